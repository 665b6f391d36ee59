"""Query parameters of the list endpoints. Each endpoint has one query Struct whose fields are
its parameters with their rules; `api.validation.parse_query` reads a request into it (every
bad parameter in one 422) and `QueryOperation` documents the same fields in OpenAPI, so the
rules are written once. The shared fields are here."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import msgspec
from litestar.openapi.spec import OpenAPIFormat, OpenAPIType, Operation, Parameter, Schema
from msgspec import inspect as mi

from api.validation import TextFormat, choices, struct_info

# A `+` left unencoded in a query string arrives as a space: "…10:15:00 00:00".
_SPACE_OFFSET = re.compile(r" (\d{2}:?\d{2})$")
MAX_PAGE = 2**31 - 1


def read_instant(text: str) -> dt.datetime:
    """An ISO 8601 date-time (or date: its midnight) as an aware UTC datetime; no offset = UTC."""
    parsed = dt.datetime.fromisoformat(_SPACE_OFFSET.sub(r"+\1", text.strip()))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    # In UTC the value must still be a representable date (0001-01-01T00:00-01:00 is not);
    # astimezone raises OverflowError then.
    return parsed.astimezone(dt.UTC)


INSTANT = TextFormat(read_instant, "an ISO 8601 date-time")

Search = (
    Annotated[
        str,
        msgspec.Meta(
            description=(
                "Case-insensitive substring match; `%`, `_` and quotes are literal characters. "
                "Any length is accepted (text longer than the field simply matches nothing)."
            )
        ),
    ]
    | None
)

UpdatedSince = (
    Annotated[
        dt.datetime,
        msgspec.Meta(
            description=(
                "Incremental sync (extension): only rows whose `updated_at` is at or after this "
                "ISO 8601 date-time, e.g. 2026-11-22T10:15:00+00:00 or 2026-11-22T10:15:00Z. "
                "Without an offset the value is UTC."
            ),
            extra={"rule": INSTANT},
        ),
    ]
    | None
)

PageNumber = Annotated[
    int,
    msgspec.Meta(
        ge=1,
        le=MAX_PAGE,
        description="Page number, from 1. A page past the last answers an empty `data`.",
    ),
]


def query_operation(query: type[msgspec.Struct]) -> type[Operation]:
    """The handler's `operation_class`: its OpenAPI operation lists `query`'s fields."""
    return type(f"{query.__name__}Operation", (QueryOperation,), {"query": query})


@dataclass
class QueryOperation(Operation):
    query: ClassVar[type[msgspec.Struct]]

    def __post_init__(self) -> None:
        fields = struct_info(self.query).fields
        self.parameters = [*(self.parameters or []), *map(_parameter, fields)]


def _parameter(field: mi.Field) -> Parameter:
    schema, description = _schema(field.type)
    if field.default not in (mi.NODEFAULT, None):
        schema.default = field.default
    return Parameter(
        name=field.encode_name,
        param_in="query",
        required=field.required,
        schema=schema,
        description=description,
    )


def _schema(t: mi.Type) -> tuple[Schema, str | None]:
    if isinstance(t, mi.UnionType):
        return _schema(next(m for m in t.types if not isinstance(m, mi.NoneType)))
    if isinstance(t, mi.Metadata):
        schema, _ = _schema(t.type)
        extra: dict[str, Any] = dict(t.extra_json_schema or {})
        description = extra.pop("description", None)
        for key, value in extra.items():
            setattr(schema, key, value)
        return schema, description
    if isinstance(t, mi.IntType):
        return Schema(type=OpenAPIType.INTEGER, minimum=t.ge, maximum=t.le), None
    if isinstance(t, mi.LiteralType):
        return Schema(type=OpenAPIType.STRING, enum=list(choices(t))), None
    if isinstance(t, mi.DateTimeType):
        return Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.DATE_TIME), None
    if isinstance(t, mi.StrType):
        return Schema(type=OpenAPIType.STRING, max_length=t.max_length, pattern=t.pattern), None
    raise TypeError(f"no OpenAPI schema for a query parameter of type {t!r}")
