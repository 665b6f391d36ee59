"""A transaction that records events never holds a lock the worker waits for (PostgreSQL).

Recording an event inserts the event, its deliveries and their due marks: it takes no lock on
a subscription row that a claim or a result write takes (those lock subscriptions FOR NO KEY
UPDATE, which a delivery's foreign key check never conflicts with). So a change that emits two
events reaching different, overlapping sets of subscriptions cannot deadlock with the worker,
nor with another such change, in whatever order its events reach them."""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

import asyncpg
import pytest

from daemon.deliver import Outcome
from daemon.dispatch import Dispatcher, open_session
from models import db
from models.tables import WebhookDelivery
from models.webhooks import events
from tests.daemon import support
from tests.daemon.conftest import config
from tests.daemon.support import FakeClock, Receiver

pytestmark = pytest.mark.postgres_only(reason="row locks and deadlocks are PostgreSQL's")

# Event A reaches only the "*" subscription; event B reaches both: a transaction emitting A
# then B meets the subscriptions in the opposite of id order, B then A in id order.
A, B = "order.dispatched", "invoice.issued"


async def _deadlocks() -> int:
    """This database's deadlocks so far (the server reports a backend's count within a
    second or so of its transaction's end: read after a pause)."""
    await asyncio.sleep(1.2)
    conn = await asyncpg.connect(**db.engine().config)  # type: ignore[attr-defined]
    try:
        return int(
            await conn.fetchval(
                "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"
            )
        )
    finally:
        await conn.close()


async def _two_events(
    ws: int, first: str, second: str, held: tuple[asyncio.Event, asyncio.Event] | None = None
) -> None:
    """Record `first` then `second` in one transaction; with `held` (recorded, release), say
    when both are written and keep the transaction open until released."""

    async def work() -> None:
        await events.record_event(workspace_id=ws, name=first, fields={"n": 1})
        await asyncio.sleep(0)  # let the others interleave
        await events.record_event(workspace_id=ws, name=second, fields={"n": 2})
        if held is not None:
            held[0].set()
            await held[1].wait()

    await db.atomic(work)


async def test_an_open_two_event_transaction_never_blocks_the_worker(
    backend: str, make_store: Any, fake_clock: FakeClock
):
    ws = await support.workspace()
    only_b = await support.subscription(ws, "http://127.0.0.1:9/b", events=B)
    everything = await support.subscription(ws, "http://127.0.0.1:9/all")
    await support.queued(ws, only_b, 2)
    await support.queued(ws, everything, 2)
    store = make_store()
    now = fake_clock()
    taken = await store.claim(worker="w", limits=support.limits(), now=now, lease=30)
    assert len(taken) == 4

    recorded, release = asyncio.Event(), asyncio.Event()
    web = asyncio.create_task(_two_events(ws.id, A, B, held=(recorded, release)))
    ok = Outcome(started_at=now, status_code=200, duration_ms=3)
    try:
        async with asyncio.timeout(10):
            await recorded.wait()  # its rows are written, not committed
        async with asyncio.timeout(5):  # it waited for the web's commit before
            statuses = await store.record(
                [(c, ok) for c in taken], worker="w", config=config(), now=now
            )
            assert await store.claim(worker="w", limits=support.limits(), now=now, lease=30) == []
    finally:
        release.set()
        await web
    assert statuses == ["succeeded"] * 4
    # Committed: the three new deliveries are due, through their marks.
    fresh = await store.claim(worker="w", limits=support.limits(), now=fake_clock(), lease=30)
    assert sorted(c.subscription_id for c in fresh) == sorted(
        [only_b.id, everything.id, everything.id]
    )


async def test_two_event_transactions_in_both_orders_beside_a_busy_worker_never_deadlock(
    backend: str, receiver: Receiver, fake_clock: FakeClock, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.WARNING, logger="pressline.db")
    ws = await support.workspace()
    subs = [
        await support.subscription(ws, receiver.url("/b"), events=B),
        await support.subscription(ws, receiver.url("/all")),
        await support.subscription(ws, receiver.url("/a"), events=A),
        await support.subscription(ws, receiver.url("/ab"), events=f"{B},{A}"),
    ]
    cfg = config(concurrency=64, max_in_flight_per_subscription=4)
    dispatcher = Dispatcher(cfg, open_session(cfg), worker="w", now=fake_clock)
    before = await _deadlocks()
    stop = asyncio.Event()

    async def worker() -> None:
        while not stop.is_set():
            await dispatcher.fill()
            await asyncio.sleep(0.005)

    changes = [_two_events(ws.id, *random.choice([(A, B), (B, A)])) for _ in range(60)]
    running = asyncio.create_task(worker())
    try:
        for start in range(0, len(changes), 12):  # 12 at once
            await asyncio.gather(*changes[start : start + 12])
        async with asyncio.timeout(30):
            while True:
                if not await WebhookDelivery.count().where(WebhookDelivery.status == "pending"):
                    break
                await asyncio.sleep(0.05)
    finally:
        stop.set()
        await running
        await dispatcher.close()
    assert await _deadlocks() == before
    assert not [r for r in caplog.records if r.name == "pressline.db"]  # nothing run again
    # Each change's two events reached 3 + 3 deliveries (A: "*", A, A+B; B: B, "*", A+B).
    assert await WebhookDelivery.count().where(WebhookDelivery.status == "succeeded") == 60 * 6
    assert sorted(receiver.deliveries()) == sorted(set(receiver.deliveries()))
    for sub in subs:
        row = await support.load_subscription(sub)
        assert (row.in_flight, row.consecutive_failures, row.is_active) == (0, 0, True)


async def test_a_claim_never_waits_for_a_subscription_another_statement_holds(
    backend: str, make_store: Any, fake_clock: FakeClock
):
    ws = await support.workspace()
    held = await support.subscription(ws, "http://127.0.0.1:9/held")
    free = await support.subscription(ws, "http://127.0.0.1:9/free")
    await support.queued(ws, held, 1)
    await support.queued(ws, free, 1)
    store = make_store()
    other = await asyncpg.connect(**db.engine().config)  # type: ignore[attr-defined]
    try:
        async with other.transaction():
            await other.execute(
                "SELECT id FROM webhook_subscriptions WHERE id = $1 FOR NO KEY UPDATE", held.id
            )
            async with asyncio.timeout(5):  # its due marks wait; the other's are folded
                taken = await store.claim(
                    worker="w", limits=support.limits(), now=fake_clock(), lease=30
                )
            assert [c.subscription_id for c in taken] == [free.id]
    finally:
        await other.close()
    [late] = await store.claim(worker="w", limits=support.limits(), now=fake_clock(), lease=30)
    assert late.subscription_id == held.id
