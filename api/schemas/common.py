"""Shared Struct base, field types and the bodies every endpoint can answer with."""

from __future__ import annotations

from typing import Annotated, Generic, TypeVar

import msgspec

T = TypeVar("T")

Timestamp = Annotated[
    str,
    msgspec.Meta(
        extra_json_schema={
            "description": "ISO 8601 date-time with offset, UTC (e.g. 2026-11-22T10:15:00+00:00)",
            "extra": {"format": "date-time"},
        }
    ),
]
LocalTimestamp = Annotated[
    str,
    msgspec.Meta(
        extra_json_schema={
            "description": (
                "ISO 8601 date-time with the workspace's UTC offset "
                "(e.g. 2026-07-15T00:00:00+01:00 in Europe/London in summer)"
            ),
            "extra": {"format": "date-time"},
        }
    ),
]
UpdatedAt = Annotated[
    str,
    msgspec.Meta(
        extra_json_schema={
            "description": (
                "Extension: when this row, or anything it embeds, last changed; ISO 8601 "
                "with offset, UTC, whole seconds. Matches the lists' `updated_since` filter."
            ),
            "extra": {"format": "date-time"},
        }
    ),
]
DecimalString = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^-?\d+\.\d{2}$",
        extra_json_schema={"description": "Decimal with two places, as a string (e.g. 12.50)"},
    ),
]


class Schema(msgspec.Struct, kw_only=True):
    """Base for every body: keyword-only fields, encoded in declaration order."""


class ErrorBody(Schema):
    message: str


class ValidationErrorBody(Schema):
    message: str
    errors: Annotated[
        dict[str, list[str]],
        msgspec.Meta(
            description=(
                "Every failing field or parameter (dot paths for nested fields) with its "
                "messages; empty when the refusal is a rule, not a field"
            )
        ),
    ]


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
