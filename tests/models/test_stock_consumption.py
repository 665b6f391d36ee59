"""Consuming stock never drives on hand below 0: a move that would consume more than a SKU has
is refused with every short SKU and by how much (the API's 422 reason, the admin's order page,
the command's error), nothing changes, and two moves racing for the last units cannot both
take them (docs/orders.md, Stock)."""

from __future__ import annotations

import asyncio

import pytest

from models import stock
from models.actors import OPERATOR
from models.orders import creating
from models.orders.lines import NewLine
from models.tables import Customer, Order, Sku, StockMovement, Workspace
from tests import factories
from tests.api.order_helpers import advance, create, line, order_body, shop, snapshot
from tests.models.test_concurrency import _callers

SHORT = (
    "Not enough stock to start production: CAP needs 5, 2 on hand (3 short); "
    "HOOD needs 4, 0 on hand (4 short). Receive the stock (adjust on hand) first; nothing was "
    "changed."
)


async def _levels(*codes: str) -> list[tuple[int, int]]:
    rows = {r["code"]: r for r in await Sku.select(Sku.code, Sku.on_hand, Sku.reserved)}
    return [(rows[c]["on_hand"], rows[c]["reserved"]) for c in codes]


async def _short_order(ws: Workspace, customer: Customer) -> int:
    """TEE has enough, CAP has 2 of 5, HOOD (already at -1 from before this rule) 0 of 4."""
    await factories.sku(ws, "TEE", on_hand=20)
    await factories.sku(ws, "CAP", on_hand=2)
    await factories.sku(ws, "HOOD", on_hand=-1)
    lines = [
        NewLine(description="Tee", quantity=8, unit_price_cents=900, sku="TEE"),
        NewLine(description="Hoodie", quantity=4, unit_price_cents=2500, sku="HOOD"),
        NewLine(description="Cap", quantity=3, unit_price_cents=700, sku="CAP"),
        NewLine(description="Cap, 2nd", quantity=2, unit_price_cents=700, sku="CAP"),
    ]
    created = await creating.create(
        workspace_id=ws.id, customer_id=customer.id, lines=lines, actor=OPERATOR
    )
    return int(created.order.id)


@pytest.mark.parametrize("target", ["in_production", "qc_pack", "dispatched"])
async def test_api_refuses_a_move_that_would_consume_missing_stock(client, target):
    s = await shop()
    order_id = await _short_order(s.ws, s.customer)
    await advance(client, s.auth, order_id, "print_queue")
    before = await snapshot()
    movements = await StockMovement.count()

    refused = await advance(client, s.auth, order_id, target)

    assert refused.status_code == 422, refused.text
    assert refused.json()["message"] == SHORT
    assert not refused.json().get("errors")
    assert await snapshot() == before
    assert await StockMovement.count() == movements
    assert await _levels("TEE", "CAP", "HOOD") == [(20, 8), (2, 5), (-1, 4)]

    # Received stock, the same move goes through and takes exactly what the order needs.
    for code, delta in (("CAP", 3), ("HOOD", 5)):
        await stock.adjust(
            workspace_id=s.ws.id, sku=code, delta=delta, reason="received", actor=OPERATOR
        )
    moved = await advance(client, s.auth, order_id, target)
    assert moved.status_code == 200, moved.text
    assert await _levels("TEE", "CAP", "HOOD") == [(12, 0), (0, 0), (0, 0)]
    kinds = await StockMovement.select(StockMovement.kind).where(
        StockMovement.kind == "consumption"
    )
    assert len(kinds) == 3


@pytest.mark.usefixtures("backend")
async def test_cli_prints_the_shortage_and_changes_nothing(pressline):
    s = await shop()
    order_id = await _short_order(s.ws, s.customer)
    before = await snapshot()

    run = await pressline(f"order advance {order_id} --to in_production")

    assert run.code == 1
    assert run.err.strip() == f"error: {SHORT}"
    assert await snapshot() == before


async def test_two_moves_racing_for_the_last_units_do_not_both_take_them(client):
    """Ten orders of 3 each want a SKU holding 10: three may start production, seven are
    refused, on hand ends at 1 — never below 0, whatever order the transactions commit in."""
    s = await shop()
    await factories.sku(s.ws, "TEE", on_hand=10)
    callers = await _callers(s, 20)
    ids = []
    for _ in range(10):
        body = order_body(s.customer.id, lines=[line(sku="TEE", quantity=3)])
        created = await create(client, next(callers), body)
        assert created.status_code == 201, created.text
        ids.append(created.json()["id"])

    answers = await asyncio.gather(
        *(advance(client, next(callers), order_id, "in_production") for order_id in ids)
    )

    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] * 3 + [422] * 7, [a.text for a in answers]
    assert all(
        "TEE needs 3, 1 on hand (2 short)" in a.text for a in answers if a.status_code == 422
    )
    assert await _levels("TEE") == [(1, 21)]
    started = await Order.count().where(Order.stock_consumed.eq(True))
    assert started == 3
    consumed = await StockMovement.select(StockMovement.delta_on_hand).where(
        StockMovement.kind == "consumption"
    )
    assert [m["delta_on_hand"] for m in consumed] == [-3] * 3
