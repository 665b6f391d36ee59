"""Claiming: a lease keeps a delivery to one worker until it expires (then the attempt counts as
cut off); nothing is claimed twice; per-subscription caps and the failure limit hold."""

from __future__ import annotations

import asyncio
import datetime as dt

from daemon import record
from daemon.deliver import Outcome
from models.tables import WebhookAttempt
from tests.daemon import support
from tests.daemon.conftest import config
from tests.daemon.support import FakeClock


async def test_a_leased_delivery_waits_for_its_lease_then_counts_as_cut_off(
    make_store, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    [d] = await support.queued(ws, sub)
    now = fake_clock()
    a, b = make_store(), make_store()

    [mine] = await a.claim(worker="a", limits=support.limits(), now=now, lease=30)
    assert (mine.id, mine.attempt, mine.url) == (d.id, 1, "http://127.0.0.1:9/hook")
    row = await support.load(d)
    assert (row.leased_by, row.lease_expires_at) == ("a", now + dt.timedelta(seconds=30))
    assert (await support.load_subscription(sub)).in_flight == 1

    soon = now + dt.timedelta(seconds=29)
    assert await b.claim(worker="b", limits=support.limits(), now=soon, lease=30) == []
    assert await b.expired(now=soon, limit=10, lease=30) == []
    # Worker "a" died: after the lease its attempt is recorded as failed, counted against
    # the delivery's attempts but not the subscription's failures.
    later = now + dt.timedelta(seconds=31)
    [lost] = await b.expired(now=later, limit=10, lease=30)
    assert (lost.id, lost.attempt, lost.worker) == (d.id, 1, "a")
    cfg = config()
    assert await b.record([record.cut_off(lost, later)], worker="b", config=cfg, now=later) == [
        "pending"
    ]
    [attempt] = await WebhookAttempt.objects().where(WebhookAttempt.delivery == d.id)
    assert (attempt.error, attempt.worker, attempt.status_code) == (record.CUT_OFF, "a", None)
    counted = await support.load_subscription(sub)
    assert (counted.in_flight, counted.consecutive_failures) == (0, 0)
    row = await support.load(d)
    assert (row.status, row.attempts, row.leased_by) == ("pending", 1, None)

    # A late answer from "a" no longer moves the delivery, nor is it stored or counted twice.
    outcome = Outcome(started_at=now, status_code=200, duration_ms=5)
    assert await a.record([(mine, outcome)], worker="a", config=cfg, now=later) == [None]
    assert await WebhookAttempt.count().where(WebhookAttempt.delivery == d.id) == 1
    assert (await support.load_subscription(sub)).consecutive_failures == 0

    retry_at = later + dt.timedelta(seconds=60)
    [again] = await b.claim(worker="b", limits=support.limits(), now=retry_at, lease=30)
    assert (again.id, again.attempt) == (d.id, 2)
    status = await b.record([(again, outcome)], worker="b", config=cfg, now=retry_at)
    assert status == ["succeeded"]


async def test_the_last_attempt_cut_off_fails_the_delivery(make_store, fake_clock: FakeClock):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    [d] = await support.queued(ws, sub, attempts=4)
    store = make_store()
    [mine] = await store.claim(worker="a", limits=support.limits(), now=fake_clock(), lease=30)
    assert mine.attempt == 5
    later = fake_clock() + dt.timedelta(seconds=31)
    [lost] = await store.expired(now=later, limit=10, lease=30)
    assert await store.record(
        [record.cut_off(lost, later)], worker="b", config=config(), now=later
    ) == ["failed"]
    row = await support.load(d)
    assert (row.status, row.attempts, row.last_error) == ("failed", 5, record.CUT_OFF)


async def test_only_due_deliveries_of_active_subscriptions_are_claimed(
    make_store, fake_clock: FakeClock
):
    ws = await support.workspace()
    active = await support.subscription(ws, "http://127.0.0.1:9/a")
    inactive = await support.subscription(ws, "http://127.0.0.1:9/b", is_active=False)
    [due] = await support.queued(ws, active)
    await support.queued(ws, active, next_attempt_at=fake_clock() + dt.timedelta(minutes=5))
    await support.queued(ws, active, status="succeeded")
    await support.queued(ws, active, status="skipped")
    await support.queued(ws, inactive)

    claimed = await make_store().claim(
        worker="a", limits=support.limits(10), now=fake_clock(), lease=30
    )
    assert [c.id for c in claimed] == [due.id]


async def test_claims_come_oldest_due_first_with_what_sending_needs(
    make_store, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook", secret="k-1")
    now = fake_clock()
    ev = [await support.event(ws) for _ in range(3)]
    late = await support.delivery(ev[0], sub, next_attempt_at=now - dt.timedelta(seconds=1))
    early = await support.delivery(ev[1], sub, next_attempt_at=now - dt.timedelta(seconds=3))
    middle = await support.delivery(ev[2], sub, next_attempt_at=now - dt.timedelta(seconds=2))

    claimed = await make_store().claim(worker="a", limits=support.limits(10), now=now, lease=30)

    assert [c.id for c in claimed] == [early.id, middle.id, late.id]
    first = claimed[0]
    assert (first.secret, first.event, first.event_id) == ("k-1", ev[1].name, ev[1].event_id)
    assert first.body == ev[1].body.encode("utf-8") and first.subscription_id == sub.id


async def test_concurrent_claims_never_overlap(make_store, fake_clock: FakeClock):
    ws = await support.workspace()
    subs = [await support.subscription(ws, f"http://127.0.0.1:9/{n}") for n in range(3)]
    rows = [row for sub in subs for row in await support.queued(ws, sub, 10)]
    workers = [make_store() for _ in range(6)]

    ids: list[int] = []
    async with asyncio.timeout(20):
        while len(ids) < 30:  # a subscription being claimed by one worker is skipped by others
            batches = await asyncio.gather(
                *(
                    store.claim(
                        worker=f"w{n}", limits=support.limits(7), now=fake_clock(), lease=30
                    )
                    for n, store in enumerate(workers)
                )
            )
            ids += [c.id for batch in batches for c in batch]

    assert len(ids) == len(set(ids)) == 30
    assert set(ids) == {r.id for r in rows}
    assert {(await support.load_subscription(sub)).in_flight for sub in subs} == {10}


async def test_a_subscription_never_holds_more_than_its_cap(make_store, fake_clock: FakeClock):
    ws = await support.workspace()
    busy = await support.subscription(ws, "http://127.0.0.1:9/busy")
    quiet = await support.subscription(ws, "http://127.0.0.1:9/quiet")
    await support.queued(ws, busy, 10)
    [q] = await support.queued(ws, quiet, 1)
    store = make_store()
    capped = support.limits(room=100, per_subscription=4)

    first = await store.claim(worker="a", limits=capped, now=fake_clock(), lease=30)
    assert sorted(c.subscription_id for c in first) == [busy.id] * 4 + [quiet.id]
    assert await store.claim(worker="b", limits=capped, now=fake_clock(), lease=30) == []
    # The worker's own room: every subscription's first before any second.
    await support.queued(ws, quiet, 3)
    other = await support.subscription(ws, "http://127.0.0.1:9/other")
    await support.queued(ws, other, 3)
    [a, b] = await store.claim(
        worker="b", limits=support.limits(room=2, per_subscription=4), now=fake_clock(), lease=30
    )
    assert {a.subscription_id, b.subscription_id} == {quiet.id, other.id}
    assert q.id in {c.id for c in first}


async def test_no_more_attempts_start_than_could_reach_the_failure_limit(
    make_store, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook", consecutive_failures=17)
    await support.queued(ws, sub, 10)
    store = make_store()
    rules = support.limits(room=100, per_subscription=10, deactivate_after=20)
    claimed = await store.claim(worker="a", limits=rules, now=fake_clock(), lease=30)
    assert len(claimed) == 3  # 17 + 3 in flight could reach 20: no fourth starts
    assert await store.claim(worker="b", limits=rules, now=fake_clock(), lease=30) == []


async def test_release_gives_claims_back(make_store, fake_clock: FakeClock):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    await support.queued(ws, sub, 2)
    store = make_store()
    claimed = await store.claim(worker="a", limits=support.limits(10), now=fake_clock(), lease=30)
    await store.release(claimed, worker="someone-else")  # not theirs: no effect
    assert (
        await store.claim(worker="b", limits=support.limits(10), now=fake_clock(), lease=30) == []
    )
    await store.release(claimed, worker="a")
    again = await store.claim(worker="b", limits=support.limits(10), now=fake_clock(), lease=30)
    assert len(again) == 2
