"""The base Struct and the field types of the API's bodies: the API answers with them and the
command line prints the same bodies with `--json` (so they live here, where both may import
them)."""

from __future__ import annotations

from typing import Annotated

import msgspec

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
