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
    errors: dict[str, list[str]] = msgspec.field(
        default_factory=dict,
    )


class Links(Schema):
    first: str
    last: str
    prev: str | None
    next: str | None


class Page(Schema, Generic[T]):
    data: list[T]
    current_page: int
    last_page: int
    per_page: int
    total: int
    links: Links
