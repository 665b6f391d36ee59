"""OpenAPI metadata: the error responses every endpoint documents, and the docs page."""

from __future__ import annotations

from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import ScalarRenderPlugin, SwaggerRenderPlugin
from litestar.openapi.spec import Components, OpenAPI, SecurityScheme

from api.schemas.common import ErrorBody, ValidationErrorBody

COMMON_RESPONSES: dict[int, ResponseSpec] = {
    401: ResponseSpec(ErrorBody, description="Missing, invalid, expired or revoked token"),
    403: ResponseSpec(ErrorBody, description="The token's user is deactivated"),
    422: ResponseSpec(
        ValidationErrorBody,
        description=(
            "Validation failed (every failing field in `errors`), the plan does not include "
            "the API, a plan limit was hit, or a stage move was refused (reason in `message`)"
        ),
    ),
    429: ResponseSpec(ErrorBody, description="Rate limited; see `Retry-After` (seconds)"),
}
ONE_RECORD_RESPONSES: dict[int, ResponseSpec] = {
    **COMMON_RESPONSES,
    404: ResponseSpec(ErrorBody, description="Not found, or in another workspace"),
}

OPENAPI_CONFIG = OpenAPIConfig(
    title="Pressline API",
    version="1.0.0",
    description=(
        "Production-management API for apparel print shops. Authenticate with "
        "`Authorization: Bearer <token>`. Reference: docs/api.md."
    ),
    path="/schema",
    render_plugins=[ScalarRenderPlugin(), SwaggerRenderPlugin(path="/swagger")],
    components=Components(
        security_schemes={
            "BearerToken": SecurityScheme(
                type="http", scheme="bearer", description="Personal access token (plk_…)"
            )
        }
    ),
    security=[{"BearerToken": []}],
)


def drop_framework_400(schema: OpenAPI) -> None:
    """Litestar documents a 400 for every handler with parameters, but this API answers
    invalid input with 422 (DECISIONS 1), so the 400 entries would mislead integrators."""
    for path_item in (schema.paths or {}).values():
        for operation in (path_item.get, path_item.post):
            if operation is not None and operation.responses:
                operation.responses.pop("400", None)
