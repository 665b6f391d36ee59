"""The bodies every endpoint can answer with: errors and the list envelope (the Struct base and
the field types are in models/schemas/common.py)."""

from __future__ import annotations

from typing import Annotated, Any, Generic, TypeVar

import msgspec

from models.errors import ErrorCode
from models.structs import Schema

T = TypeVar("T")

Code = Annotated[
    ErrorCode,
    msgspec.Meta(description="What was refused, as a stable name to branch on (docs/api.md)"),
]
Details = Annotated[
    dict[str, Any],
    msgspec.Meta(
        description=(
            "What the refusal is about, by name (the order holding an external_ref: "
            '`{"order_id": 19}`); empty when there is nothing more to say'
        )
    ),
]


class ErrorBody(Schema):
    message: str
    code: Code
    details: Details


class ValidationErrorBody(Schema):
    message: str
    code: Code
    errors: Annotated[
        dict[str, list[str]],
        msgspec.Meta(
            description=(
                "Every failing field or parameter (dot paths for nested fields) with its "
                "messages; empty when the refusal is a rule, not a field"
            )
        ),
    ]
    details: Details


class Links(Schema):
    """Absolute URLs of other pages of the same list, keeping every other query parameter
    (built from PUBLIC_URL, else the request's address: api/links.py); `prev` and `next` are
    null at the ends."""

    first: str
    last: str
    prev: str | None
    next: str | None


class Page(Schema, Generic[T]):
    """The list envelope. A page past the last has an empty `data` and true totals."""

    data: list[T]
    current_page: Annotated[int, msgspec.Meta(description="The page asked for (`?page=`)")]
    last_page: Annotated[int, msgspec.Meta(description="At least 1, even for an empty list")]
    per_page: Annotated[
        int,
        msgspec.Meta(
            description="Fixed per endpoint (50 customers and orders, 100 inventory and events)"
        ),
    ]
    total: Annotated[int, msgspec.Meta(description="Rows matching the filters, on all pages")]
    links: Links
