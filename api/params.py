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
        description=(
            "Case-insensitive substring match; `%`, `_` and quotes are literal characters. "
            "Any length is accepted (text longer than the field simply matches nothing)."
        ),
    ),
]

UpdatedSince = Annotated[
    str | None,
    QueryParameter(
        description=(
            "Incremental sync (extension): only rows whose `updated_at` is at or after this "
            "ISO 8601 date-time, e.g. 2026-11-22T10:15:00+00:00 or 2026-11-22T10:15:00Z. "
            "Without an offset the value is UTC."
        ),
        schema_extra={"format": "date-time"},
    ),
]

# A `+` left unencoded in a query string arrives as a space: "…10:15:00 00:00".
_SPACE_OFFSET = re.compile(r" (\d{2}:?\d{2})$")
_INVALID = {"updated_since": ["updated_since must be an ISO 8601 date-time."]}


def parse_updated_since(value: str | None) -> dt.datetime | None:
    """The instant as an aware UTC datetime; 422 (`errors.updated_since`) if unreadable."""
    if value is None:
        return None
    text = _SPACE_OFFSET.sub(r"+\1", value.strip())
    try:
        parsed = dt.datetime.fromisoformat(text)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=dt.UTC)
        # In UTC the value must still be a representable date (0001-01-01T00:00-01:00 is not).
        return parsed.astimezone(dt.UTC)
    except (ValueError, OverflowError):
        raise ValidationFailed(_INVALID) from None
