"""Order lines as every writer gives them, and their totals and tax (one rule for all)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Final
from zoneinfo import ZoneInfo

from models.errors import InvalidFields
from models.money import round_half_up
from models.pricing.breakdown import PriceBreakdown, PriceSource

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
    price_source: PriceSource = PriceSource.TYPED
    breakdown: PriceBreakdown | None = None  # None: a plain line, priced as given


@dataclass(frozen=True)
class Totals:
    line_totals: tuple[int, ...]
    subtotal_cents: int
    tax_cents: int
    total_cents: int


def compute_totals(
    lines: Sequence[NewLine], tax_rate: Decimal, tax_exempt: bool, *, inclusive: bool = False
) -> Totals:
    """Tax-exclusive prices: tax = round_half_up(subtotal * rate / 100), total = subtotal +
    tax. Tax-inclusive (gross) prices: the total is the sum of the line totals exactly, tax =
    round_half_up(total * rate / (100 + rate)), subtotal = total - tax. No tax when exempt.

    Raises InvalidFields when any amount would not fit the 64-bit money columns.
    """
    line_totals = tuple(line.quantity * line.unit_price_cents for line in lines)
    amount = sum(line_totals)
    too_large = InvalidFields(
        {"lines": ["The order total is larger than the largest amount that can be stored."]}
    )
    if amount > MAX_CENTS or any(total > MAX_CENTS for total in line_totals):
        raise too_large
    if tax_exempt:
        return Totals(line_totals, amount, 0, amount)
    if inclusive:
        tax = round_half_up(Decimal(amount) * tax_rate / (100 + tax_rate))
        return Totals(line_totals, amount - tax, tax, amount)
    tax = round_half_up(Decimal(amount) * tax_rate / 100)
    if amount + tax > MAX_CENTS:
        raise too_large
    return Totals(line_totals, amount, tax, amount + tax)


def applied_rate(tax_rate: Decimal, tax_exempt: bool) -> Decimal:
    """The rate an order's tax is computed at, kept with its totals (`orders.tax_rate`): the
    workspace's, 0 for a tax-exempt customer."""
    return Decimal(0) if tax_exempt else tax_rate


def local_midnight(day: dt.date, timezone: str) -> dt.datetime:
    """`due_by` is stored as 00:00 of its date in the workspace time zone."""
    return dt.datetime.combine(day, dt.time(), tzinfo=ZoneInfo(timezone))
