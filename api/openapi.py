"""OpenAPI metadata: the error responses every endpoint documents, and the docs page."""

from __future__ import annotations

from typing import Any

from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import ScalarRenderPlugin, SwaggerRenderPlugin
from litestar.openapi.spec import Components, Example, OpenAPI, SecurityScheme

from api.schemas.common import ErrorBody, ValidationErrorBody


def _error(
    body: type[ErrorBody | ValidationErrorBody],
    description: str,
    examples: dict[str, dict[str, Any]],
) -> ResponseSpec:
    """A documented error response with real example bodies (not generated noise)."""
    return ResponseSpec(
        body,
        description=description,
        generate_examples=False,
        examples=[Example(summary=summary, value=value) for summary, value in examples.items()],
    )


COMMON_RESPONSES: dict[int, ResponseSpec] = {
    401: _error(
        ErrorBody,
        "Missing, malformed, invalid, expired or revoked token (with `WWW-Authenticate: Bearer`)",
        {
            "missing": {"message": "Missing bearer token: send 'Authorization: Bearer <token>'"},
            "invalid": {"message": "Invalid token"},
            "expired": {"message": "Token expired"},
            "revoked": {"message": "Token revoked"},
        },
    ),
    403: _error(
        ErrorBody,
        "The token's user is deactivated",
        {"deactivated": {"message": "User is deactivated"}},
    ),
    422: _error(
        ValidationErrorBody,
        "Validation failed (every failing field in `errors`), the plan does not include "
        "the API, a plan limit was hit, or a stage move was refused (reason in `message`)",
        {
            "invalid parameter": {
                "message": "The page parameter must be at least 1.",
                "errors": {"page": ["The page parameter must be at least 1."]},
            },
            "plan without API": {
                "message": "The workspace's plan (standard) does not include API access; "
                "upgrade to Premium or Enterprise",
                "errors": {},
            },
        },
    ),
    429: _error(
        ErrorBody,
        "Rate limited; `Retry-After` gives the seconds to wait",
        {
            "rate limited": {
                "message": "Rate limit of 60 requests per minute exceeded; retry in 12 s"
            }
        },
    ),
}
ONE_RECORD_RESPONSES: dict[int, ResponseSpec] = {
    **COMMON_RESPONSES,
    404: _error(
        ErrorBody,
        "Not found, or in another workspace",
        {"not found": {"message": "Order not found"}},
    ),
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
    invalid input with 422 (docs/api.md §5), so the 400 entries would mislead integrators."""
    for path_item in (schema.paths or {}).values():
        for operation in (path_item.get, path_item.post):
            if operation is not None and operation.responses:
                operation.responses.pop("400", None)
