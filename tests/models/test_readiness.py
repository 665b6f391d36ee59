"""The board's readiness rules (models/orders/readiness.py) and card facts
(models/orders/board.py) at their edges, without a database: the HTTP tests
(tests/admin/test_board.py) show each state on a card."""

from __future__ import annotations

import datetime as dt

from models.orders.board import back_stage, forward_stage, garment_count, method_labels
from models.orders.readiness import Bill, NextActor, StockNeed, art, paid, shortfall, stock

NOW = dt.datetime(2026, 11, 27, 9, tzinfo=dt.UTC)


def bill(
    status: str = "issued",
    total: int = 1000,
    paid_cents: int = 0,
    due_at: dt.datetime | None = NOW + dt.timedelta(days=30),
) -> Bill:
    return Bill(status, total, paid_cents, "GBP", due_at)


def test_a_short_sku_counts_at_most_what_the_order_asks_for() -> None:
    # another order's reservations made the SKU 40 short; this order needs only 5 of it
    assert shortfall([StockNeed(5, -40), StockNeed(10, -3), StockNeed(8, 0)]) == 8
    assert stock([StockNeed(5, -40)], consumed=False).label == "Stock short 5"
    assert stock([StockNeed(5, 0)], consumed=False).next is NextActor.NO_ONE
    # once production took the stock, levels no longer concern the order
    assert stock([StockNeed(5, -40)], consumed=True).state == "taken"


def test_void_invoices_count_for_nothing_and_balances_add_up() -> None:
    assert paid([bill("void")], now=NOW).state == "not_invoiced"
    mark = paid([bill(total=1000, paid_cents=1000), bill(total=500, paid_cents=100)], now=NOW)
    assert (mark.state, mark.amount_cents, mark.next) == ("part_paid", 400, NextActor.CUSTOMER)
    late = paid([bill(due_at=NOW - dt.timedelta(seconds=1))], now=NOW)
    assert (late.state, late.amount_cents) == ("overdue", 1000)
    assert paid([bill(due_at=None)], now=NOW).state == "due"
    assert paid([bill("paid", paid_cents=1000), bill("void")], now=NOW).state == "settled"


def test_an_unknown_or_missing_artwork_needs_a_proof() -> None:
    assert art(None).next is NextActor.SHOP
    assert art("something_new").label == "No proof yet"


def test_garments_moves_and_methods() -> None:
    assert garment_count([{"S": 2, "M": 3}, {"XL": 1}], 99) == 6
    assert garment_count(None, 11) == 11 and garment_count([], 11) == 11
    assert (back_stage("artwork"), forward_stage("artwork")) == (None, "print_queue")
    assert (back_stage("qc_pack"), forward_stage("qc_pack")) == ("in_production", "dispatched")
    assert method_labels(["dtg", "screen", "dtg", "vinyl"]) == ["Screen print", "DTG", "Vinyl"]
