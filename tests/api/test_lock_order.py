"""One lock order on PostgreSQL (docs/operations.md, "Transactions and lock order"): writes
that move the stock of several SKUs lock them in id order, whatever order the request lists
them in, so concurrent creates, edits and stage moves over the same SKUs never deadlock.

Each round sends, at the same time: two edits moving reservations between the same six SKUs
in opposite directions (listed in opposite orders), a move into production consuming them
all, and a create listing them last to first. Every answer is 2xx, PostgreSQL counted no
deadlock (none even retried), and the stock levels are exact afterwards.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from models.tables import Order, Sku, StockMovement, Workspace
from tests import factories
from tests.api.order_helpers import advance, create, line, more_callers, order_body, shop

pytestmark = pytest.mark.slow

ROUNDS = 20
ON_HAND = 10_000
CODES = ("A", "B", "C", "D", "E", "F")


@pytest.fixture
async def postgres(backend: str) -> AsyncIterator[None]:
    if not backend.startswith("postgres"):
        pytest.skip("PostgreSQL only: row locks (SQLite's write transaction locks everything)")
    yield


async def _deadlocks() -> int:
    rows = await Workspace.raw(
        "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"
    )
    return int(rows[0]["deadlocks"])


async def _deadlocks_since(before: int) -> int:
    """Deadlocks PostgreSQL counted in this database since `before` was read. A backend
    reports its counts within a second of going idle, so a count is waited for that long."""
    deadline = time.monotonic() + 1.5
    for _ in itertools.count():
        now = await _deadlocks()
        if now != before or time.monotonic() >= deadline:
            return now - before
        await asyncio.sleep(0.1)
    raise AssertionError("unreachable")


def _lines(quantities: list[tuple[str, int]]) -> list[dict[str, Any]]:
    return [line(description=f"{code} tees", quantity=q, sku=code) for code, q in quantities]


async def test_stock_moves_of_several_skus_in_opposite_orders_never_deadlock(
    client, postgres, caplog
):
    s = await shop(require_artwork_approval=False)
    skus = [await factories.sku(s.ws, code, on_hand=ON_HAND) for code in CODES]
    callers = itertools.cycle([s.auth, *await more_callers(s.ws, 15)])

    async def created(quantities: list[tuple[str, int]]) -> int:
        body = order_body(s.customer.id, lines=_lines(quantities))
        response = await create(client, next(callers), body)
        assert response.status_code == 201, response.text
        return int(response.json()["id"])

    rounds = []
    for _ in range(ROUNDS):
        first = await created([(code, 10) for code in CODES])
        second = await created([(code, 10) for code in reversed(CODES)])
        produced = await created([(code, 1) for code in reversed(CODES)])
        rounds.append((first, second, produced))

    def edit(order_id: int, quantities: list[tuple[str, int]]) -> Any:
        return client.patch(
            f"/api/v1/orders/{order_id}", json={"lines": _lines(quantities)}, headers=next(callers)
        )

    # Each edit orders more of every other SKU and less of the rest, the two of a round the
    # other way round, listed in opposite orders; both meet the moves into production.
    odd = {code: 16 if n % 2 else 4 for n, code in enumerate(CODES)}
    even = {code: 20 - q for code, q in odd.items()}
    before = await _deadlocks()
    caplog.set_level(logging.WARNING, logger="pressline.db")
    requests = []
    for first, second, produced in rounds:
        requests += [
            edit(first, [(code, odd[code]) for code in reversed(CODES)]),
            advance(client, next(callers), produced, "in_production"),
            edit(second, [(code, even[code]) for code in CODES]),
            create(
                client,
                next(callers),
                order_body(s.customer.id, lines=_lines([(code, 1) for code in reversed(CODES)])),
            ),
        ]
    responses = await asyncio.gather(*requests)

    assert [r.status_code // 100 for r in responses] == [2] * len(requests), [
        r.text for r in responses if r.status_code >= 300
    ]
    assert await _deadlocks_since(before) == 0
    assert [r.getMessage() for r in caplog.records if r.name == "pressline.db"] == []
    levels = {
        row["code"]: (row["on_hand"], row["reserved"])
        for row in await Sku.select(Sku.code, Sku.on_hand, Sku.reserved)
    }
    # Reserved: each round's two edited orders (20 of each SKU) and its new order (1 each);
    # the order in production took its unit of each out of on_hand and reserved.
    assert levels == {code: (ON_HAND - ROUNDS, ROUNDS * 21) for code in CODES}
    # Every unit is explained by the movements (the SKUs were made with ON_HAND, no movement).
    for sku in skus:
        moved = await StockMovement.select(
            StockMovement.delta_on_hand, StockMovement.delta_reserved
        ).where(StockMovement.sku == sku.id)
        on_hand, reserved = levels[sku.code]
        assert sum(m["delta_on_hand"] for m in moved) == on_hand - ON_HAND
        assert sum(m["delta_reserved"] for m in moved) == reserved
    assert await Order.count().where(Order.stock_consumed.eq(True)) == ROUNDS
