"""The readiness marks of a board card: art, stock and paid, each saying who
must act next — the shop, the customer or no one. The rules live here only; the board's reads
(models/orders/board.py) feed them and the template shows what they return."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import NamedTuple

import msgspec

from models.invoices.status import InvoiceStatus


class NextActor(StrEnum):
    """Who must act next for a mark to be done (the mark's colour and its words)."""

    SHOP = "shop"
    CUSTOMER = "customer"
    NO_ONE = "no_one"


class MarkKind(StrEnum):
    ART = "art"
    STOCK = "stock"
    PAID = "paid"


class Mark(msgspec.Struct, frozen=True):
    """One mark: its state (a stable name, for styles and tests), what people read, who acts
    next, and an amount of money the words end with (paid marks with a balance)."""

    kind: MarkKind
    state: str
    label: str
    next: NextActor
    amount_cents: int | None = None
    currency: str | None = None


# --- art: the artwork row's status (None: an order without one, as an old order may be) -------

ART: dict[str | None, tuple[str, NextActor]] = {
    "approved": ("Art approved", NextActor.NO_ONE),
    "awaiting_approval": ("Art waiting on the customer", NextActor.CUSTOMER),
    "changes_requested": ("Art changes requested", NextActor.SHOP),  # a new proof is needed
    "awaiting_proof": ("No proof yet", NextActor.SHOP),
    None: ("No proof yet", NextActor.SHOP),
}


def art(status: str | None) -> Mark:
    label, actor = ART.get(status, ART[None])
    return Mark(MarkKind.ART, status or "awaiting_proof", label, actor)


# --- stock: the order's SKU lines against what is available -----------------------------------


class StockNeed(NamedTuple):
    """One SKU of the order: the quantity its lines ask for and the SKU's `available`
    (on hand - reserved) now; the order's own reservation is already counted in it."""

    quantity: int
    available: int


def shortfall(needs: Iterable[StockNeed]) -> int:
    """Garments missing for this order: for each SKU below 0 available, the part of the
    order's quantity not covered (never more than the order asked for)."""
    return sum(min(need.quantity, -need.available) for need in needs if need.available < 0)


def stock(needs: Sequence[StockNeed], *, consumed: bool) -> Mark:
    """Covered or short N while the order still holds reservations; once production took its
    stock (models/stages.py CONSUMES_STOCK_FROM) nothing is left to check, and an order without
    SKU lines has nothing to check either."""
    if consumed:
        return Mark(MarkKind.STOCK, "taken", "Stock taken", NextActor.NO_ONE)
    if not needs:
        return Mark(MarkKind.STOCK, "not_stocked", "No stock lines", NextActor.NO_ONE)
    short = shortfall(needs)
    if short:
        return Mark(MarkKind.STOCK, "short", f"Stock short {short}", NextActor.SHOP)
    return Mark(MarkKind.STOCK, "covered", "Stock covered", NextActor.NO_ONE)


# --- paid: the order's invoices and the payments recorded against them ------------------------


class Bill(NamedTuple):
    """An invoice of the order as the board reads it (`paid_cents`: its payments' sum)."""

    status: str
    total_cents: int
    paid_cents: int
    currency: str
    due_at: dt.datetime | None


def paid(bills: Sequence[Bill], *, now: dt.datetime) -> Mark:
    """Invoices are issued on dispatch (models/invoices/issuing.py), so an open order usually
    has none: "Not invoiced", with no one to act. A draft waits on the shop to issue it; a
    balance on the customer to pay (overdue past the invoice's `due_at`, "balance due" after a
    part payment such as a deposit); nothing left to pay is settled. Void invoices count for
    nothing."""
    live = [bill for bill in bills if bill.status != InvoiceStatus.VOID]
    if not live:
        return Mark(MarkKind.PAID, "not_invoiced", "Not invoiced", NextActor.NO_ONE)
    if any(bill.status == InvoiceStatus.DRAFT for bill in live):
        return Mark(MarkKind.PAID, "draft", "Invoice not issued", NextActor.SHOP)
    owing = [bill for bill in live if bill.total_cents > bill.paid_cents]
    if not owing:
        return Mark(MarkKind.PAID, "settled", "Paid", NextActor.NO_ONE)
    balance = sum(bill.total_cents - bill.paid_cents for bill in owing)
    currency = owing[0].currency
    if any(bill.due_at is not None and bill.due_at < now for bill in owing):
        state, label = "overdue", "Overdue"
    elif any(bill.paid_cents > 0 for bill in live):
        state, label = "part_paid", "Balance due"
    else:
        state, label = "due", "Payment due"
    return Mark(MarkKind.PAID, state, label, NextActor.CUSTOMER, balance, currency)
