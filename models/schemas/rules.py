"""Rules a request Struct carries beside msgspec's own constraints: two patterns and two markers
(`Meta(extra={"rule": ...})`). api/validation.py enforces them and words every refusal."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

NO_NUL = r"^[^\x00]*$"
NOT_BLANK = r"^[^\x00]*[^\s\x00][^\x00]*$"


@dataclass(frozen=True)
class DateBetween:
    """A date field's inclusive range (msgspec has no bounds for dates)."""

    earliest: dt.date
    latest: dt.date


@dataclass(frozen=True)
class Refused:
    """Values outside a field's choices that deserve their own explanation."""

    reasons: Mapping[str, str]
