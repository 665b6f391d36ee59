"""Order lines as every writer gives them, and their totals and tax (one rule for all)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Final
from zoneinfo import ZoneInfo

from models.errors import InvalidFields

# Money columns are signed 64-bit integers (minor units).
MAX_CENTS = 2**63 - 1
# Where every order starts: its stage, and its artwork's status and version.
FIRST_STAGE: Final = "artwork"
FIRST_ARTWORK_STATUS: Final = "awaiting_proof"


@dataclass(frozen=True)
class NewLine:
    description: str
    quantity: int
    unit_price_cents: int
    sku: str | None = None
    item: int | None = None  # made from the order's item at this position (models/orders/items.py)


@dataclass(frozen=True)
class Totals:
    line_totals: tuple[int, ...]
    subtotal_cents: int
    tax_cents: int
    total_cents: int


def round_half_up(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def compute_totals(lines: Sequence[NewLine], tax_rate: Decimal, tax_exempt: bool) -> Totals:
    """Prices are tax-exclusive; tax = round_half_up(subtotal * rate / 100), 0 when exempt.

    Raises InvalidFields when any amount would not fit the 64-bit money columns.
    """
    line_totals = tuple(line.quantity * line.unit_price_cents for line in lines)
    subtotal = sum(line_totals)
    too_large = InvalidFields(
        {"lines": ["The order total is larger than the largest amount that can be stored."]}
    )
    if subtotal > MAX_CENTS or any(total > MAX_CENTS for total in line_totals):
        raise too_large
    tax = 0 if tax_exempt else round_half_up(Decimal(subtotal) * tax_rate / 100)
    if subtotal + tax > MAX_CENTS:
        raise too_large
    return Totals(line_totals, subtotal, tax, subtotal + tax)


def local_midnight(day: dt.date, timezone: str) -> dt.datetime:
    """`due_by` is stored as 00:00 of its date in the workspace time zone."""
    return dt.datetime.combine(day, dt.time(), tzinfo=ZoneInfo(timezone))
