"""Amounts as people type them: the one reading of every money field of the
admin, in minor units, exact (integer arithmetic).

Accepted: `1250`, `1250.5`, `1,250.00` (commas between groups of three, with the decimals),
and `12,50` (a comma followed by one or two final digits is the decimal point). Anything else
is refused with an example, `1,250` included: it reads as 1250 to some and 1.25 to others.
Digits are ASCII only (Arabic-Indic or full-width digits are not amounts here)."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

_AMOUNT = re.compile(
    r"(?P<whole>[0-9]{1,15})(?:[.,](?P<part>[0-9]{1,2}))?"  # 1250, 1250.5, 12,50
    r"|(?P<grouped>[0-9]{1,3}(?:,[0-9]{3})+)\.(?P<grouped_part>[0-9]{1,2})",  # 1,250.00
    re.ASCII,
)
REFUSED = (
    "Type an amount with at most two decimals, e.g. 1250, 1250.50, 1,250.50 or 12,50 "
    "(a comma before the last one or two digits is the decimal point)."
)
NEGATIVE = "Type the amount without a minus sign, e.g. 12.50: it cannot be negative here."
_GROUPED = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+", re.ASCII)
AMBIGUOUS = "Type the amount as {whole} (or {typed}.00) or as {small}: {typed} could be either."
GROUPED = "Type the amount as {whole} or {typed}.00, with the decimals after a point."


def cents(text: str) -> int | None:
    """`text` (surrounding spaces ignored) in minor units, or None when it is not an amount
    written one of the accepted ways."""
    found = _AMOUNT.fullmatch(text.strip())
    if found is None:
        return None
    whole = found["whole"] or found["grouped"].replace(",", "")
    part = found["part"] or found["grouped_part"] or ""
    if len(whole) > 15:  # a grouped amount past any price
        return None
    return int(whole) * 100 + int(part.ljust(2, "0"))


def refusal(text: str) -> str:
    """Why `text` is not an amount (`cents` gave None), with an example of what to type."""
    typed = text.strip()
    if typed.startswith(("-", "\u2212")) and cents(typed[1:]) is not None:
        return NEGATIVE
    if _GROUPED.fullmatch(typed) is None:
        return REFUSED
    whole = typed.replace(",", "")  # 1,250: thousands to some, a decimal comma to others
    head, _, tail = typed.partition(",")
    if "," in tail:
        return GROUPED.format(typed=typed, whole=whole)
    small = f"{head}.{tail.rstrip('0')}" if tail.rstrip("0") else head
    return AMBIGUOUS.format(typed=typed, whole=whole, small=small)


def round_half_up(value: Decimal) -> int:
    """To a whole number of minor units, halves away from zero: every computed amount."""
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def shown(cents: int | None, currency: str) -> str:
    """`123456` GBP → `1,234.56 GBP`: an amount as every page and email shows it (integer
    arithmetic, so exact at any size); — for none."""
    if cents is None:
        return "—"
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100:,}.{abs(cents) % 100:02d} {currency}"
