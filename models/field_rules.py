"""Rules a request Struct carries beside msgspec's own constraints: four patterns and three
markers (`Meta(extra={"rule": ...})`). api/validation.py enforces them and words every refusal.

The patterns are the service's one text rule (models/errors.py `storable` for the admin and
the command line): no C0 control character but tab, and line breaks only in multi-line fields.
Each is written so that a regex engine matches it in one pass (no nested repetition to
backtrack through), whatever the text. They end with `(?![\\s\\S])`, "no character follows",
since `$` also matches before a final line break and `\\Z` is not in JSON Schema's regex
dialect."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from models.errors import EMAIL

# One line of text: no C0 control but tab (NUL included: PostgreSQL text holds none).
ONE_LINE = r"^[^\x00-\x08\x0a-\x1f]*(?![\s\S])"
# Multi-line text (notes): tab and line breaks (LF, and CR as sent by Windows systems; stored
# as LF) but no other C0 control.
MULTI_LINE = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f]*(?![\s\S])"
# One line with something other than spaces in it.
NOT_BLANK = r"^[^\S\x00-\x08\x0a-\x1f]*[^\s\x00-\x1f][^\x00-\x08\x0a-\x1f]*(?![\s\S])"
# An email address (models.errors.EMAIL), spaces around it trimmed when stored.
EMAIL_ADDRESS = rf"^[ \t]*{EMAIL.pattern}[ \t]*(?![\s\S])"


@dataclass(frozen=True)
class DateBetween:
    """A date field's inclusive range (msgspec has no bounds for dates)."""

    earliest: dt.date
    latest: dt.date


@dataclass(frozen=True)
class RequiredUnless:
    """A field required unless `other` is given (and not empty): `lines` beside `items`."""

    other: str


@dataclass(frozen=True)
class Refused:
    """Values outside a field's choices that deserve their own explanation."""

    reasons: Mapping[str, str]
