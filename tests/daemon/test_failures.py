"""Consecutive failures per subscription: counted atomically, deactivation at the limit, reset."""

from __future__ import annotations

import asyncio

from aiohttp import web

from models import clock
from models.webhooks import deliveries, subscriptions
from tests.daemon import support
from tests.daemon.support import FakeClock, Receiver


async def test_deactivated_at_the_20th_consecutive_failure_not_the_19th(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    receiver.behaviour = support.down
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    await support.queued(ws, sub, 19)
    dispatcher = make_dispatcher(concurrency=4)

    assert await dispatcher.run_once() == 19
    row = await support.load_subscription(sub)
    assert (row.is_active, row.consecutive_failures, row.deactivated_at) == (True, 19, None)

    await support.queued(ws, sub, 1)
    assert await dispatcher.run_once() == 1
    row = await support.load_subscription(sub)
    assert (row.is_active, row.consecutive_failures) == (False, 20)
    assert row.deactivated_at == fake_clock()
    assert row.deactivated_reason == "20 consecutive failed delivery attempts"

    # Its pending deliveries stop: their retry time comes and nothing is sent.
    fake_clock.advance(3600)
    assert await dispatcher.run_once() == 0
    assert len(receiver.requests) == 20


async def test_concurrent_workers_never_lose_a_count(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    receiver.behaviour = support.down
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    await support.queued(ws, sub, 12)
    first = make_dispatcher(worker="worker-a", concurrency=6)
    second = make_dispatcher(worker="worker-b", concurrency=6)

    sent = await asyncio.gather(first.run_once(), second.run_once())

    assert sum(sent) == 12
    assert sorted(receiver.deliveries()) == sorted(set(receiver.deliveries()))
    row = await support.load_subscription(sub)
    assert (row.consecutive_failures, row.is_active) == (12, True)


async def test_any_success_resets_the_count(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    async def fail_three(_: web.Request, n: int) -> web.Response:
        return web.Response(status=500) if n <= 3 else web.Response(text="ok")

    receiver.behaviour = fail_three
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    await support.queued(ws, sub, 3)
    dispatcher = make_dispatcher(concurrency=1)
    await dispatcher.run_once()
    assert (await support.load_subscription(sub)).consecutive_failures == 3
    await support.queued(ws, sub, 1)
    await dispatcher.run_once()
    assert (await support.load_subscription(sub)).consecutive_failures == 0


async def test_enable_requeues_what_failed_or_was_skipped_since_a_time(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url(), is_active=False, consecutive_failures=20)
    old_ev, new_ev, skipped_ev, done_ev = [await support.event(ws) for _ in range(4)]
    cutoff = clock.now()
    old = await support.delivery(
        old_ev, sub, status="failed", created_at=cutoff.replace(year=cutoff.year - 1)
    )
    failed = await support.delivery(new_ev, sub, status="failed", attempts=5)
    skipped = await support.delivery(skipped_ev, sub, status="skipped")
    done = await support.delivery(done_ev, sub, status="succeeded", attempts=1)
    dispatcher = make_dispatcher()
    assert await dispatcher.run_once() == 0

    result = await subscriptions.enable(sub.id, requeue_since=cutoff)

    assert result["requeued"] == 2 and result["is_active"]
    row = await support.load_subscription(sub)
    assert (row.is_active, row.consecutive_failures, row.deactivated_at) == (True, 0, None)
    fake_clock.advance(1)
    assert await dispatcher.run_once() == 2
    assert sorted(receiver.deliveries()) == sorted([failed.public_id, skipped.public_id])
    assert {r.headers["X-SVC-Attempt"] for r in receiver.requests} == {"1"}
    assert (await support.load(old)).status == "failed"
    assert (await support.load(done)).status == "succeeded"


async def test_redeliver_sends_one_delivery_again(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    dispatcher = make_dispatcher()
    await dispatcher.run_once()
    assert (await support.load(d)).status == "succeeded"

    await deliveries.redeliver(d.id)
    fake_clock.advance(1)
    assert await dispatcher.run_once() == 1
    assert receiver.deliveries() == [d.public_id, d.public_id]
    assert receiver.requests[0].body == receiver.requests[1].body
    assert (await support.load(d)).status == "succeeded"


async def test_disable_stops_pending_deliveries(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    result = await subscriptions.disable(sub.id)
    assert result["deactivated_reason"] == "disabled by an operator"
    dispatcher = make_dispatcher()
    assert await dispatcher.run_once() == 0
    await subscriptions.enable(sub.id)
    fake_clock.advance(1)
    assert await dispatcher.run_once() == 1
    assert receiver.deliveries() == [d.public_id]
