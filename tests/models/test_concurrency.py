"""Simultaneous writes through HTTP: numbers stay gapless and unique, the open-order limit
holds, a move happens once, and one Idempotency-Key makes one order.

Requests run concurrently with asyncio.gather over the ASGI client; on PostgreSQL each holds
its own pooled connection, so the database sees truly simultaneous transactions. SQLite runs
the same tests (its write transactions take the lock up front, BEGIN IMMEDIATE).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter

import pytest

from models import clock
from models.tables import (
    CustomerMessage,
    Invoice,
    NumberSequence,
    Order,
    Sku,
    StageChange,
    WebhookEvent,
)
from tests import factories
from tests.api.order_helpers import (
    Shop,
    advance,
    create,
    line,
    more_callers,
    order_body,
    shop,
    subscription,
)

pytestmark = pytest.mark.slow


async def _callers(s: Shop, requests: int) -> itertools.cycle[dict[str, str]]:
    """Enough users that no one hits the per-user write rate limit."""
    extra = await more_callers(s.ws, max(0, -(-requests // 10) - 1))
    return itertools.cycle([s.auth, *extra])


async def test_fifty_simultaneous_creates_get_fifty_consecutive_numbers(client):
    s = await shop()
    callers = await _callers(s, 50)
    responses = await asyncio.gather(
        *(create(client, next(callers), order_body(s.customer.id)) for _ in range(50))
    )
    assert [r.status_code for r in responses] == [201] * 50, [r.text for r in responses]
    year = clock.now().year
    numbers = sorted(r.json()["number"] for r in responses)
    assert numbers == [f"ORD-{year}-{n:04d}" for n in range(1, 51)]
    counter = await NumberSequence.select(NumberSequence.last_value).first()
    assert counter == {"last_value": 50}


async def test_the_open_order_limit_holds_under_simultaneous_creates(client):
    limit = 5
    s = await shop(open_order_limit=limit)
    callers = await _callers(s, 2 * limit)
    responses = await asyncio.gather(
        *(create(client, next(callers), order_body(s.customer.id)) for _ in range(2 * limit))
    )
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {201: limit, 422: limit}, [r.text for r in responses]
    refused = [r.json()["message"] for r in responses if r.status_code == 422]
    assert all("limit of 5 open orders" in message for message in refused)
    assert await Order.count() == limit
    year = clock.now().year
    assert sorted(r.json()["number"] for r in responses if r.status_code == 201) == [
        f"ORD-{year}-{n:04d}" for n in range(1, limit + 1)
    ]


async def test_simultaneous_dispatches_of_one_order_happen_once(client):
    s = await shop()
    await subscription(s.ws)
    tee = await factories.sku(s.ws, "TEE", on_hand=100)
    created = await create(
        client, s.auth, order_body(s.customer.id, lines=[line(sku="TEE", quantity=7)])
    )
    order_id = created.json()["id"]
    callers = await _callers(s, 10)
    responses = await asyncio.gather(
        *(advance(client, next(callers), order_id, "dispatched") for _ in range(10))
    )
    assert Counter(r.status_code for r in responses) == {200: 1, 422: 9}
    sku = await Sku.select(Sku.on_hand, Sku.reserved).where(Sku.id == tee.id).first()
    assert sku == {"on_hand": 93, "reserved": 0}
    assert await Invoice.count() == 1
    names = Counter(e["name"] for e in await WebhookEvent.select(WebhookEvent.name))
    assert names == {"order.created": 1, "order.dispatched": 1, "invoice.issued": 1}
    assert await StageChange.count().where(StageChange.to_stage == "dispatched") == 1
    assert await CustomerMessage.count() == 1


async def test_simultaneous_moves_consume_stock_once(client):
    s = await shop()
    tee = await factories.sku(s.ws, "TEE", on_hand=100)
    created = await create(
        client, s.auth, order_body(s.customer.id, lines=[line(sku="TEE", quantity=7)])
    )
    order_id = created.json()["id"]
    callers = await _callers(s, 12)
    targets = ["in_production", "qc_pack", "print_queue"] * 4
    responses = await asyncio.gather(
        *(advance(client, next(callers), order_id, target) for target in targets)
    )
    assert {r.status_code for r in responses} <= {200, 422}
    moved = sum(r.status_code == 200 for r in responses)
    assert moved >= 1
    sku = await Sku.select(Sku.on_hand, Sku.reserved).where(Sku.id == tee.id).first()
    consumed = await Order.select(Order.stock_consumed).where(Order.id == order_id).first()
    if consumed["stock_consumed"]:
        assert sku == {"on_hand": 93, "reserved": 0}
    else:  # only print_queue moves won the races
        assert sku == {"on_hand": 100, "reserved": 7}
    # Every successful move is exactly one history entry (plus the create's).
    assert await StageChange.count().where(StageChange.order == order_id) == moved + 1


async def test_simultaneous_dispatches_of_many_orders_number_invoices_gaplessly(client):
    s = await shop()
    callers = await _callers(s, 30)
    ids = [
        (await create(client, next(callers), order_body(s.customer.id))).json()["id"]
        for _ in range(15)
    ]
    responses = await asyncio.gather(
        *(advance(client, next(callers), order_id, "dispatched") for order_id in ids)
    )
    assert [r.status_code for r in responses] == [200] * 15
    year = clock.now().year
    numbers = sorted(r.json()["invoices"][0]["number"] for r in responses)
    assert numbers == [f"INV-{year}-{n:04d}" for n in range(1, 16)]


async def test_one_idempotency_key_sent_simultaneously_makes_one_order(client):
    s = await shop()
    body = order_body(s.customer.id)
    responses = await asyncio.gather(
        *(create(client, s.auth, body, **{"Idempotency-Key": "once"}) for _ in range(10))
    )
    statuses = Counter(r.status_code for r in responses)
    assert set(statuses) <= {201, 409}, [r.text for r in responses]
    assert statuses[201] >= 1
    assert len({r.content for r in responses if r.status_code == 201}) == 1
    assert await Order.count() == 1
    # Once the first has finished, every retry is a replay.
    retry = await create(client, s.auth, body, **{"Idempotency-Key": "once"})
    assert (retry.status_code, retry.headers["idempotent-replayed"]) == (201, "true")


async def test_simultaneous_creates_with_one_external_ref_make_one_order(client):
    s = await shop()
    callers = await _callers(s, 10)
    body = order_body(s.customer.id, external_ref="shop-9")
    responses = await asyncio.gather(*(create(client, next(callers), body) for _ in range(10)))
    assert Counter(r.status_code for r in responses) == {201: 1, 422: 9}
    winner = next(r.json()["id"] for r in responses if r.status_code == 201)
    for response in responses:
        if response.status_code == 422:
            assert response.json()["errors"] == {
                "external_ref": [f"The external_ref has already been taken by order {winner}."]
            }
