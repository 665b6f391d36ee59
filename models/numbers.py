"""Numbers as people type them: the one reading of the admin's whole-number fields (and a CSV
file's), and of its percentages. Amounts are models/money.py's. The API reads none of this:
its JSON carries numbers.

Whole numbers: ASCII digits, optionally grouped in threes by commas or spaces (a space, a
no-break space or a thin space, as word processors and other locales write them): `6000`,
`6,000`, `6 000`, `1,000,000`; not `6,00` nor `6,0000` (not groups of three), and not mixed
separators. Digits of other scripts are not numbers here.

Percentages: `17.5`, `17,5` (a decimal comma before one or two final digits), `17.5 %`."""

from __future__ import annotations

import re

MAX_DIGITS = 12  # past any count the service keeps; what `int()` is ever asked to read
# Between groups of three: a comma, a space, a no-break space, a thin space, a narrow no-break
# space (the one separator used throughout).
_SEPARATORS = ",\u0020\u00a0\u2009\u202f"
_WHOLE = re.compile(
    rf"(?P<sign>-?)(?:(?P<plain>[0-9]+)|(?P<grouped>[0-9]{{1,3}}(?P<sep>[{_SEPARATORS}])[0-9]{{3}}"
    rf"(?:(?P=sep)[0-9]{{3}})*))",
    re.ASCII,
)
# Rates have two decimals: `1,000` is not read as 1.000 (a thousand to others), but refused.
_DECIMAL_COMMA = re.compile(r"-?[0-9]+,[0-9]{1,2}", re.ASCII)


def whole_number(text: str) -> int | None:
    """`text` (surrounding spaces ignored) as an int, or None when it is not a whole number
    written one of the ways above, or has more than MAX_DIGITS digits after its leading
    zeros."""
    found = _WHOLE.fullmatch(text.strip())
    if found is None:
        return None
    digits = found["plain"] or re.sub(f"[{_SEPARATORS}]", "", found["grouped"])
    digits = digits.lstrip("0") or "0"  # leading zeros are no part of its size
    if len(digits) > MAX_DIGITS:
        return None
    return int(found["sign"] + digits)


def percent_text(text: str) -> str:
    """A typed percentage as the domain reads one (models/errors.py `FieldErrors.percent`):
    spaces and a final `%` left out, a decimal comma before one or two final digits as a point
    (`17,5` → `17.5`). Anything else is left as typed, for the domain to refuse in its words."""
    typed = text.strip().removesuffix("%").strip()
    return typed.replace(",", ".") if _DECIMAL_COMMA.fullmatch(typed) else typed
