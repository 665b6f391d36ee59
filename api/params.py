"""Query parameters shared by the list endpoints, with their parsing rules."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated

from litestar.params import QueryParameter

from api.errors import ValidationFailed

Search = Annotated[
    str | None,
    QueryParameter(
        max_length=200,
        description="Case-insensitive substring match; `%` and `_` are literal characters.",
    ),
]

UpdatedSince = Annotated[
    str | None,
    QueryParameter(
        description=(
            "Incremental sync: only rows changed at or after this ISO 8601 date-time "
            "(e.g. 2026-11-22T10:15:00+00:00; no offset means UTC)."
        ),
        schema_extra={"format": "date-time"},
    ),
]

# A `+` left unencoded in a query string arrives as a space: "…10:15:00 00:00".
_SPACE_OFFSET = re.compile(r" (\d{2}:?\d{2})$")


def parse_updated_since(value: str | None) -> dt.datetime | None:
    if value is None:
        return None
    text = _SPACE_OFFSET.sub(r"+\1", value.strip())
    try:
        parsed = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ValidationFailed(
            {"updated_since": ["updated_since must be an ISO 8601 date-time."]}
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed
