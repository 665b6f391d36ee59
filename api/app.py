"""The Litestar application: routes under /api/v1, auth, error handlers, OpenAPI, lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar, Router
from litestar.middleware import DefineMiddleware

from api.auth import TokenAuthMiddleware
from api.controllers.customers import CustomerController
from api.controllers.inventory import InventoryController
from api.controllers.me import MeController
from api.controllers.orders import OrderController
from api.errors import EXCEPTION_HANDLERS
from api.openapi import OPENAPI_CONFIG, drop_framework_400
from models import db

MAX_BODY_BYTES = 1024 * 1024  # DECISIONS 8: larger bodies answer 413


@asynccontextmanager
async def database(_: Litestar) -> AsyncIterator[None]:
    """Open the connection pool (PostgreSQL) for the life of the process."""
    await db.start()
    try:
        yield
    finally:
        await db.stop()


def create_app() -> Litestar:
    api_v1 = Router(
        path="/api/v1",
        route_handlers=[MeController, CustomerController, OrderController, InventoryController],
        middleware=[DefineMiddleware(TokenAuthMiddleware)],
    )
    app = Litestar(
        route_handlers=[api_v1],
        lifespan=[database],
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        openapi_config=OPENAPI_CONFIG,
        request_max_body_size=MAX_BODY_BYTES,
    )
    drop_framework_400(app.openapi_schema)
    return app


app = create_app()
