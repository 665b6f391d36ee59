"""Results written in batches keep every one-by-one rule; a stop gives back what it cut short."""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools

import pytest
from aiohttp import web

from daemon.deliver import Outcome
from daemon.record import FailureCount
from models.tables import WebhookAttempt, WebhookDelivery
from tests.daemon import support
from tests.daemon.conftest import config
from tests.daemon.support import FakeClock, Receiver


def one_by_one(stored: int, active: bool, outcomes: tuple[bool, ...], limit: int):
    """The rule as decided for single attempts: +1 per failure, 0 on success, off at `limit`."""
    count = stored
    for succeeded in outcomes:
        count = 0 if succeeded else count + 1
        if count >= limit:
            active = False
    return count, active


def together(stored: int, active: bool, outcomes: tuple[bool, ...], limit: int):
    """What the batched statements compute from a FailureCount."""
    c = FailureCount(1)
    for succeeded in outcomes:
        c.add(succeeded)
    count = c.tail if c.reset else stored + c.lead
    if (c.lead and stored + c.lead >= limit) or c.peak >= limit:
        active = False
    return count, active


def test_a_batch_counts_exactly_as_its_attempts_one_by_one():
    for length in range(1, 8):
        for outcomes in itertools.product((True, False), repeat=length):
            for stored, limit, active in itertools.product(range(5), (1, 2, 3, 20), (True, False)):
                assert together(stored, active, outcomes, limit) == one_by_one(
                    stored, active, outcomes, limit
                ), (stored, active, outcomes, limit)


def _outcome(clock: FakeClock, status: int) -> Outcome:
    return Outcome(started_at=clock(), status_code=status, duration_ms=3)


@pytest.mark.parametrize(
    ("stored", "codes", "expected"),
    [
        # 1 stored + 2 failures reaches 3 before the success: off, and the count goes on
        (1, (500, 500, 200, 500), (1, False)),
        (0, (500, 500, 200, 500), (1, True)),
        (0, (200, 500, 500, 500), (3, False)),  # a run after a success reaches the limit
        (2, (200, 200), (0, True)),
        (0, (500, 500), (2, True)),
    ],
)
async def test_one_batch_of_results_counts_and_deactivates_in_order(
    make_store, fake_clock: FakeClock, stored, codes, expected
):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook", consecutive_failures=stored)
    other = await support.subscription(ws, "http://127.0.0.1:9/other")
    await support.queued(ws, sub, len(codes))
    await support.queued(ws, other, 1)
    store = make_store()
    claimed = await store.claim(worker="a", limits=support.limits(10), now=fake_clock(), lease=30)
    entries = [
        (item, _outcome(fake_clock, code if item.subscription_id == sub.id else 200))
        for item, code in zip(claimed, (*codes, 200), strict=True)
    ]

    statuses = await store.record(
        entries, worker="a", config=config(deactivate_after=3), now=fake_clock()
    )

    assert statuses == ["succeeded" if o.succeeded else "pending" for _, o in entries]
    row = await support.load_subscription(sub)
    assert (row.consecutive_failures, row.is_active) == expected
    if not expected[1]:
        assert row.deactivated_at == fake_clock()
        assert row.deactivated_reason == "3 consecutive failed delivery attempts"
    untouched = await support.load_subscription(other)
    assert (untouched.consecutive_failures, untouched.is_active) == (0, True)
    assert await WebhookAttempt.count() == len(entries)


async def test_a_batch_with_a_lost_lease_counts_only_the_attempts_that_moved(
    make_store, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook", consecutive_failures=1)
    deliveries = await support.queued(ws, sub, 3)
    store = make_store()
    claimed = await store.claim(worker="a", limits=support.limits(10), now=fake_clock(), lease=30)
    assert len(claimed) == 3
    # Another worker took the last one over (its lease ran out meanwhile, say).
    lost = claimed[-1]
    await WebhookDelivery.update({WebhookDelivery.leased_by: "b"}).where(
        WebhookDelivery.id == lost.id
    )
    entries = [(item, _outcome(fake_clock, 500)) for item in claimed]

    statuses = await store.record(
        entries, worker="a", config=config(deactivate_after=4), now=fake_clock()
    )

    assert statuses == ["pending", "pending", None]
    row = await support.load_subscription(sub)
    # 1 stored + the 2 failures that moved: 3, under the limit of 4 (all three would reach it).
    assert (row.consecutive_failures, row.is_active, row.in_flight) == (3, True, 1)
    assert (
        await WebhookAttempt.count().where(
            WebhookAttempt.delivery.is_in([d.id for d in deliveries])
        )
        == 2
    )


async def test_a_result_that_cannot_be_stored_does_not_hold_back_the_others(
    make_store, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    gone, kept = await support.queued(ws, sub, 2)
    store = make_store()
    claimed = await store.claim(worker="a", limits=support.limits(10), now=fake_clock(), lease=30)
    await WebhookDelivery.delete().where(WebhookDelivery.id == gone.id)  # workspace cleanup

    statuses = await store.record(
        [(item, _outcome(fake_clock, 200)) for item in claimed],
        worker="a",
        config=config(),
        now=fake_clock(),
    )

    by_id = dict(zip([item.id for item in claimed], statuses, strict=True))
    assert by_id == {gone.id: None, kept.id: "succeeded"}
    assert (await support.load(kept)).status == "succeeded"


async def test_response_text_with_nul_bytes_is_stored(make_dispatcher, receiver: Receiver):
    async def nul(_: web.Request, __: int) -> web.Response:
        return web.Response(body=b"a\x00b", headers={"X-Odd": "yes"})

    receiver.behaviour = nul
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    await make_dispatcher().run_once()
    assert (await support.load(d)).status == "succeeded"
    [attempt] = await WebhookAttempt.objects().where(WebhookAttempt.delivery == d.id)
    assert attempt.response_body == "a\ufffdb"
    assert attempt.response_length == 3


async def test_a_delivery_whose_lease_would_run_out_while_waiting_is_not_sent_on_it(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    """One slot, two claims: the first request takes most of the lease, so the second
    delivery is given back and claimed afresh before it is sent."""
    timeout = 2.0
    short_of_lease: list[int] = []

    async def slow_clock(request: web.Request, n: int) -> web.Response:
        webhook_id = request.headers["X-SVC-Delivery"]
        row = await WebhookDelivery.objects().where(WebhookDelivery.public_id == webhook_id).first()
        assert row is not None and row.lease_expires_at is not None
        if row.lease_expires_at < fake_clock() + dt.timedelta(seconds=timeout):
            short_of_lease.append(row.id)
        if n == 1:
            fake_clock.advance(29)
        return web.Response(text="ok")

    receiver.behaviour = slow_clock
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    first, second = await support.queued(ws, sub, 2)

    dispatcher = make_dispatcher(concurrency=1, lease=30.0, timeout=timeout)
    await dispatcher.run_once()

    assert receiver.deliveries() == [first.public_id, second.public_id]
    assert short_of_lease == []
    assert {(await support.load(d)).status for d in (first, second)} == {"succeeded"}


async def test_stop_gives_back_attempts_cut_short(make_dispatcher, receiver: Receiver):
    async def stuck(_: web.Request, __: int) -> web.Response:
        await asyncio.sleep(30)
        return web.Response(text="too late")

    receiver.behaviour = stuck
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    deliveries = await support.queued(ws, sub, 3)
    dispatcher = make_dispatcher(concurrency=2, timeout=20.0)
    assert await dispatcher.fill() == 2  # the worker's ceiling: the third is not claimed
    await receiver.wait_for(2)
    assert (await support.load_subscription(sub)).in_flight == 2

    await dispatcher.stop(0.2)

    assert len(receiver.requests) == 2
    for d in deliveries:
        row = await support.load(d)
        assert (row.status, row.attempts, row.leased_by) == ("pending", 0, None)
    assert (await support.load_subscription(sub)).in_flight == 0
