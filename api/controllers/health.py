"""`GET /health` for the platform's probes: no auth, no rate limit, the database reachable."""

from __future__ import annotations

import asyncio
import logging

from litestar import Controller, MediaType, Response, get
from litestar.openapi.spec import OpenAPI
from litestar.status_codes import HTTP_200_OK, HTTP_503_SERVICE_UNAVAILABLE

from api.openapi import error_response
from models import db
from models.structs import Schema

log = logging.getLogger("pressline.health")

PATH = "/health"
DATABASE_TIMEOUT = 3.0  # seconds; a probe must answer even when the database hangs


class Health(Schema):
    status: str
    database: str


class HealthFailure(Health):
    message: str


UNREACHABLE = {
    "status": "unavailable",
    "database": "unreachable",
    "message": "Database unreachable",
}


async def database_ok() -> bool:
    try:
        async with asyncio.timeout(DATABASE_TIMEOUT):
            await db.engine().run_ddl("SELECT 1")
    except Exception as exc:  # any failure means "not reachable" to a probe
        log.warning("health check: database unreachable (%s)", type(exc).__name__)
        return False
    return True


class HealthController(Controller):
    path = PATH
    tags = ["Operations"]

    @get(
        summary="Liveness and database reachability, for load balancers and the platform",
        description="No authentication and no rate limit. 200 when `SELECT 1` succeeds.",
        responses={
            HTTP_503_SERVICE_UNAVAILABLE: error_response(
                HealthFailure,
                "The database is unreachable",
                {"unreachable": UNREACHABLE},
            )
        },
        cache_control=None,
    )
    async def get_health(self) -> Response[Health]:
        headers = {"Cache-Control": "no-store"}
        if await database_ok():
            return Response(
                Health(status="ok", database="ok"),
                status_code=HTTP_200_OK,
                headers=headers,
                media_type=MediaType.JSON,
            )
        return Response(
            HealthFailure(**UNREACHABLE),
            status_code=HTTP_503_SERVICE_UNAVAILABLE,
            headers=headers,
            media_type=MediaType.JSON,
        )


def document_public(schema: OpenAPI) -> None:
    """The document-level security applies to every operation; /health needs none."""
    path_item = (schema.paths or {}).get(PATH)
    if path_item is not None and path_item.get is not None:
        path_item.get.security = []
