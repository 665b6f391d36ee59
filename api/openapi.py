"""OpenAPI metadata: the error responses every endpoint documents, the finishing touches the
generated document needs, and the docs pages (served from a pinned package, no CDN)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from copy import deepcopy
from dataclasses import is_dataclass, replace
from enum import Enum
from typing import Any, get_args, get_origin

import msgspec
from litestar import Litestar, Router
from litestar._openapi.plugin import OpenAPIPlugin  # pinned litestar: see pyproject
from litestar._openapi.schema_generation import SchemaCreator  # pinned litestar: see pyproject
from litestar._openapi.schema_generation.plugins import StructSchemaPlugin
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import (
    Components,
    Example,
    OpenAPI,
    OpenAPIFormat,
    OpenAPIHeader,
    OpenAPIResponse,
    OpenAPIType,
    Operation,
    Reference,
    Schema,
    SecurityScheme,
)
from litestar.static_files import create_static_files_router
from litestar.typing import FieldDefinition
from swagger_ui_bundle import swagger_ui_path

from api.path_ids import path_can_exist
from api.schemas.common import ErrorBody, ValidationErrorBody
from models.errors import ErrorCode


def error_response(
    body: type[Any], description: str, examples: dict[str, dict[str, Any]]
) -> ResponseSpec:
    """A documented error response with real example bodies: never generated ones (noise,
    and generating them would load polyfactory and faker into every web process). An error
    body's example gives its `message` and `code`; `errors` and `details` default to `{}`."""
    return ResponseSpec(
        body,
        description=description,
        generate_examples=False,
        examples=[
            Example(summary=summary, value=_complete(body, value))
            for summary, value in examples.items()
        ],
    )


def _complete(body: type[Any], example: dict[str, Any]) -> dict[str, Any]:
    if body is ErrorBody:
        return {"message": example["message"], "code": example["code"], "details": {}}
    if body is ValidationErrorBody:
        return {
            "message": example["message"],
            "code": example["code"],
            "errors": example.get("errors", {}),
            "details": example.get("details", {}),
        }
    return example


COMMON_RESPONSES: dict[int, ResponseSpec] = {
    401: error_response(
        ErrorBody,
        "Missing, malformed, invalid, expired or revoked token (with `WWW-Authenticate: Bearer`)",
        {
            "missing": {
                "message": "Missing bearer token: send 'Authorization: Bearer <token>'",
                "code": ErrorCode.UNAUTHENTICATED,
            },
            "invalid": {"message": "Invalid token", "code": ErrorCode.UNAUTHENTICATED},
            "expired": {"message": "Token expired", "code": ErrorCode.UNAUTHENTICATED},
            "revoked": {"message": "Token revoked", "code": ErrorCode.UNAUTHENTICATED},
        },
    ),
    403: error_response(
        ErrorBody,
        "The token's user is deactivated",
        {"deactivated": {"message": "User is deactivated", "code": ErrorCode.FORBIDDEN}},
    ),
    422: error_response(
        ValidationErrorBody,
        "Validation failed (every failing field in `errors`), the plan does not include "
        "the API, a plan limit was hit, or a stage move was refused (reason in `message`)",
        {
            "invalid parameter": {
                "message": "The page parameter must be at least 1.",
                "code": ErrorCode.VALIDATION_FAILED,
                "errors": {"page": ["The page parameter must be at least 1."]},
            },
            "plan without API": {
                "message": "The workspace's plan (standard) does not include API access; "
                "upgrade to Premium or Enterprise",
                "code": ErrorCode.PLAN_EXCLUDES_API,
            },
        },
    ),
    429: error_response(
        ErrorBody,
        "Rate limited; `Retry-After` gives the seconds to wait",
        {
            "rate limited": {
                "message": "Rate limit of 60 requests per minute exceeded; retry in 12 s",
                "code": ErrorCode.RATE_LIMITED,
            }
        },
    ),
}
ONE_RECORD_RESPONSES: dict[int, ResponseSpec] = {
    **COMMON_RESPONSES,
    404: error_response(
        ErrorBody,
        "Not found, or in another workspace",
        {"not found": {"message": "Order not found", "code": ErrorCode.NOT_FOUND}},
    ),
}

DOCS_PATH = "/schema"
ASSETS_PATH = "/assets"  # under DOCS_PATH


class PackagedSwagger(SwaggerRenderPlugin):
    """Swagger UI (5.x, which reads OpenAPI 3.1) from the pinned `swagger-ui-bundle-v2`
    package, its files served by this app: the docs page works without internet access and
    runs no script from elsewhere."""

    def __init__(self, path: str) -> None:
        assets = DOCS_PATH + ASSETS_PATH
        super().__init__(
            js_url=f"{assets}/swagger-ui-bundle.js",
            css_url=f"{assets}/swagger-ui.css",
            standalone_preset_js_url=f"{assets}/swagger-ui-standalone-preset.js",
            favicon=f"<link rel='icon' type='image/png' href='{assets}/favicon-32x32.png'>",
            path=path,
        )

    def receive_router(self, router: Router) -> None:
        router.register(
            create_static_files_router(
                path=ASSETS_PATH,
                directories=[swagger_ui_path],
                name="swagger-ui-assets",
                include_in_schema=False,
                guards=[path_can_exist],  # a name no file can have: 404, not a failed stat
            )
        )


# A handler's name says what it does to what; these verbs are said the same way everywhere.
_VERBS = {"add": "create", "edit": "update", "remove": "delete"}


def operation_id(handler: HTTPRouteHandler, method: Any, path: list[Any]) -> str:
    """The operation id of a handler without one of its own (`operation_id=` on its decorator):
    its name in camelCase, the first word in the document's verbs (`edit_order` →
    `updateOrder`). Stable, so a generated client's function names do not change when a path
    or a router does."""
    verb, *rest = handler.handler_name.strip("_").split("_")
    return camel_case([_VERBS.get(verb, verb), *rest])


def camel_case(words: list[str]) -> str:
    """`["order", "stage", "changed"]` → `orderStageChanged`: every operation id's form."""
    first, *rest = words
    return first + "".join(word.capitalize() for word in rest)


OPENAPI_CONFIG = OpenAPIConfig(
    title="Pressline API",
    version="1.0.0",
    description=(
        "Production-management API for apparel print shops. Authenticate with "
        "`Authorization: Bearer <token>`. Reference: docs/api.md."
    ),
    path=DOCS_PATH,
    # The first plugin also answers DOCS_PATH itself.
    render_plugins=[PackagedSwagger(path="/swagger")],
    components=Components(
        security_schemes={
            "BearerToken": SecurityScheme(
                type="http", scheme="bearer", description="Personal access token (plk_…)"
            )
        }
    ),
    security=[{"BearerToken": []}],
    operation_id_creator=operation_id,
)


def _operations(schema: OpenAPI) -> Iterator[Operation]:
    for path_item in (schema.paths or {}).values():
        for operation in (
            path_item.get,
            path_item.post,
            path_item.put,
            path_item.patch,
            path_item.delete,
        ):
            if operation is not None:
                yield operation


def drop_framework_400(schema: OpenAPI) -> None:
    """Litestar documents a 400 for every handler with parameters, but this API answers
    invalid input with 422 (docs/api.md §5), so the 400 entries would mislead integrators."""
    for operation in _operations(schema):
        if operation.responses:
            operation.responses.pop("400", None)


# Response headers Litestar documents without a schema (OpenAPI requires one).
HEADER_SCHEMAS = {
    "Location": Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.URI),
    "Idempotent-Replayed": Schema(type=OpenAPIType.STRING, enum=["true"]),
    "ETag": Schema(type=OpenAPIType.STRING, pattern='^"[0-9a-f]{32}"$'),
}


REQUEST_ID_HEADER = OpenAPIHeader(
    schema=Schema(type=OpenAPIType.STRING),
    description="The id of this request's log line: the `X-Request-ID` the platform's router "
    "sent when usable, else one made here. Quote it when reporting a problem",
)


def document_request_id(schema: OpenAPI) -> None:
    """`X-Request-ID` on every response of every operation (api/request_path.py adds it)."""
    for operation in _operations(schema):
        for response in (operation.responses or {}).values():
            if isinstance(response, OpenAPIResponse):
                response.headers = {**(response.headers or {}), "X-Request-ID": REQUEST_ID_HEADER}


def give_headers_a_schema(schema: OpenAPI) -> None:
    for operation in _operations(schema):
        for response in (operation.responses or {}).values():
            if not isinstance(response, OpenAPIResponse):
                continue
            for name, header in (response.headers or {}).items():
                if not isinstance(header, Reference) and header.schema is None:
                    header.schema = HEADER_SCHEMAS.get(name, Schema(type=OpenAPIType.STRING))


_GENERIC_NAME = re.compile(r"^(\w+?)_(?:[\w]+\.)*(\w+)_$")  # Page_api.schemas.orders.Order_


def readable_name(name: str) -> str:
    """`Page_api.schemas.orders.Order_` → `OrderPage`; other names unchanged."""
    match = _GENERIC_NAME.match(name)
    return f"{match[2]}{match[1]}" if match else name


def rename_components(schema: OpenAPI) -> None:
    """Generic bodies get names a generated client can use (`OrderPage`); every `$ref` to
    them follows."""
    components = schema.components.schemas or {}
    renamed = {old: readable_name(old) for old in components if readable_name(old) != old}
    if not renamed:
        return
    clash = set(renamed.values()) & (set(components) - set(renamed))
    if clash:
        raise RuntimeError(f"component names would clash: {sorted(clash)}")
    schema.components.schemas = dict(
        sorted((renamed.get(key, key), value) for key, value in components.items())
    )
    for new in renamed.values():
        body = schema.components.schemas[new]
        if isinstance(body, Schema):
            body.title = new
    _retarget(schema, renamed)


_LEAVES = (str, int, float, Enum)  # bool is an int


def _nodes(*roots: Any) -> Iterator[Any]:
    """Every object of the document under `roots` (its dataclasses, dicts and lists), each
    once; a `$ref` is not followed."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node is None or isinstance(node, _LEAVES) or id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
        elif is_dataclass(node):
            stack.extend(vars(node).values())  # the spec's dataclasses have no slots


_COMPONENT = "#/components/schemas/"


def _retarget(root: Any, names: dict[str, str]) -> None:
    """Point every `$ref` under `root` to a component in `names` at its new name."""
    targets = {_COMPONENT + old: _COMPONENT + new for old, new in names.items()}
    for node in _nodes(root):
        if isinstance(node, Reference):
            node.ref = targets.get(node.ref, node.ref)


def _referenced(components: dict[str, Any], *roots: Any) -> set[str]:
    """The components `roots` refer to, directly or through other components."""
    found: set[str] = set()
    todo = list(roots)
    while todo:
        for node in _nodes(todo.pop()):
            if isinstance(node, Reference) and node.ref.startswith(_COMPONENT):
                name = node.ref.removeprefix(_COMPONENT)
                if name not in found and name in components:
                    found.add(name)
                    todo.append(components[name])
    return found


def type_nullable_formats(schema: OpenAPI) -> None:
    """Litestar writes a nullable timestamp's `format` beside its `oneOf`
    (`{"oneOf": [{"type": "string"}, {"type": "null"}], "format": "date-time"}`): valid, but
    client generators read the branches and type the field as a plain string. The format
    moves into the string branch, where they find it (`datetime | None` in Python)."""
    for node in list(_nodes(schema)):
        if not isinstance(node, Schema) or not node.one_of or node.format is None:
            continue
        branches = [
            replace(branch, format=node.format)
            if isinstance(branch, Schema)
            and branch.type == OpenAPIType.STRING
            and branch.format is None
            else branch
            for branch in node.one_of
        ]
        if any(new is not old for new, old in zip(branches, node.one_of, strict=True)):
            node.one_of, node.format = branches, None


def always_encoded(struct: Any) -> frozenset[str]:
    """The keys every encoding of a msgspec Struct (or a generic one's alias) has: every
    field's, but a field that may be UNSET and, with `omit_defaults`, one with a default."""
    config = (get_origin(struct) or struct).__struct_config__
    keys = {
        field.encode_name
        for field in msgspec.structs.fields(struct)
        if not _may_be_unset(field) and not (config.omit_defaults and not field.required)
    }
    if config.tag_field is not None:
        keys.add(config.tag_field)
    return frozenset(keys)


def _may_be_unset(field: msgspec.structs.FieldInfo) -> bool:
    def mentions_unset(annotation: Any) -> bool:
        return annotation is msgspec.UnsetType or any(map(mentions_unset, get_args(annotation)))

    return field.default is msgspec.UNSET or mentions_unset(field.type)


class StructSchemas(StructSchemaPlugin):
    """Litestar's own schemas of msgspec Structs, each remembered with the keys every
    encoding of its Struct has (`always_encoded`), for `require_what_is_always_sent`. One per
    application: give the same instance to `Litestar(plugins=...)` and to that function."""

    def __init__(self) -> None:
        self._keys: dict[int, tuple[Schema, frozenset[str]]] = {}

    def to_openapi_schema(
        self, field_definition: FieldDefinition, schema_creator: SchemaCreator
    ) -> Schema:
        schema = super().to_openapi_schema(field_definition, schema_creator)
        self._keys[id(schema)] = (schema, always_encoded(field_definition.type_))
        return schema

    def keys_of(self, schema: Schema) -> frozenset[str] | None:
        known = self._keys.get(id(schema))
        return known[1] if known is not None and known[0] is schema else None


INPUT_SUFFIX = "Input"


def require_what_is_always_sent(schema: OpenAPI, structs: StructSchemas) -> None:
    """Litestar lists as required only the fields without a default: right for what a client
    sends, where a default means "may be left out". What the API sends (responses, webhook
    bodies) has every field of its Struct, defaults included, so there every key the Struct
    always encodes is required, and a generated client's models need not make them optional.

    A Struct that is both sent and received (an order's `ShipTo`) becomes two components: the
    one responses use, with its keys required, and `<Name>Input` for request bodies, whose
    defaulted fields stay optional (so does a body of both kinds that embeds one)."""
    components = schema.components.schemas or {}
    operations = list(_operations(schema))
    requests = [(op.request_body, op.parameters) for op in operations]
    sent = _referenced(components, [op.responses for op in operations], schema.webhooks)
    received = _referenced(components, requests)
    required: dict[str, list[str]] = {}
    for name in sent:
        body = components[name]
        keys = structs.keys_of(body) if isinstance(body, Schema) else None
        if keys is None or not body.properties:
            continue
        listed = set(body.required or ())
        wanted = listed | (keys & body.properties.keys())
        if wanted != listed:
            required[name] = sorted(wanted)
    both = sent & received
    changed = both & required.keys()
    split = {
        name: name + INPUT_SUFFIX
        for name in sorted(both)
        if name in changed or _referenced(components, components[name]) & changed
    }
    if clash := set(split.values()) & set(components):
        raise RuntimeError(f"component names would clash: {sorted(clash)}")
    copies = {copy: deepcopy(components[name]) for name, copy in split.items()}
    for copy, body in copies.items():
        body.title = copy
    # Requests refer to the copies: directly, through components only requests use, and
    # through the copies themselves.
    _retarget([requests, [components[name] for name in received - sent], copies], split)
    components.update(copies)
    for name, listed_keys in required.items():
        components[name].required = listed_keys
    schema.components.schemas = dict(sorted(components.items()))


def finish_on_first_use(app: Litestar, finish: Callable[[OpenAPI], None]) -> None:
    """Run `finish` — Pressline's passes over the OpenAPI document — when Litestar first
    builds the document (the first request for `/schema`, or a test reading
    `app.openapi_schema`), not when the app starts: the document's objects are MiB the web
    process would otherwise hold from its start (docs/benchmarks.md, web memory). Litestar has
    no hook there, so the app's OpenAPI plugin becomes an instance of a subclass whose build
    ends with `finish` (same slots: only the class changes)."""
    plugin = app.plugins.get(OpenAPIPlugin)

    class FinishedOnFirstUse(OpenAPIPlugin):
        __slots__ = ()

        def _build_openapi(self) -> OpenAPI:
            document = super()._build_openapi()
            finish(document)
            return document

    plugin.__class__ = FinishedOnFirstUse
