"""Claiming: a lease keeps a delivery to one worker until it expires; nothing is claimed twice."""

from __future__ import annotations

import asyncio
import datetime as dt

from daemon.deliver import Outcome
from models.tables import WebhookAttempt
from tests.daemon import support
from tests.daemon.conftest import config
from tests.daemon.support import FakeClock


async def test_a_leased_delivery_waits_for_its_lease_to_expire(make_store, fake_clock: FakeClock):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    [d] = await support.queued(ws, sub)
    now = fake_clock()
    a, b = make_store(), make_store()

    [mine] = await a.claim(worker="a", limit=10, now=now, lease=30)
    assert (mine.id, mine.attempt, mine.url) == (d.id, 1, "http://127.0.0.1:9/hook")
    row = await support.load(d)
    assert (row.leased_by, row.lease_expires_at) == ("a", now + dt.timedelta(seconds=30))

    assert await b.claim(worker="b", limit=10, now=now + dt.timedelta(seconds=29), lease=30) == []
    # Worker "a" died: after the lease anyone may take the delivery again.
    later = now + dt.timedelta(seconds=31)
    [theirs] = await b.claim(worker="b", limit=10, now=later, lease=30)
    assert theirs.id == d.id

    # A late answer from "a" is still logged, but no longer moves the delivery.
    outcome = Outcome(started_at=now, status_code=200, duration_ms=5)
    assert await a.record([(mine, outcome)], worker="a", config=config(), now=later) == [None]
    row = await support.load(d)
    assert (row.status, row.leased_by) == ("pending", "b")
    assert await WebhookAttempt.count().where(WebhookAttempt.delivery == d.id) == 1

    status = await b.record([(theirs, outcome)], worker="b", config=config(), now=later)
    assert status == ["succeeded"]


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

    claimed = await make_store().claim(worker="a", limit=10, now=fake_clock(), lease=30)
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

    claimed = await make_store().claim(worker="a", limit=10, now=now, lease=30)

    assert [c.id for c in claimed] == [early.id, middle.id, late.id]
    first = claimed[0]
    assert (first.secret, first.event, first.event_id) == ("k-1", ev[1].name, ev[1].event_id)
    assert first.body == ev[1].body.encode("utf-8") and first.subscription_id == sub.id


async def test_concurrent_claims_never_overlap(make_store, fake_clock: FakeClock):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    rows = await support.queued(ws, sub, 30)
    workers = [make_store() for _ in range(6)]

    batches = await asyncio.gather(
        *(
            store.claim(worker=f"w{n}", limit=7, now=fake_clock(), lease=30)
            for n, store in enumerate(workers)
        )
    )

    ids = [c.id for batch in batches for c in batch]
    assert len(ids) == len(set(ids)) == 30
    assert set(ids) == {r.id for r in rows}


async def test_release_gives_claims_back(make_store, fake_clock: FakeClock):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    await support.queued(ws, sub, 2)
    store = make_store()
    claimed = await store.claim(worker="a", limit=10, now=fake_clock(), lease=30)
    await store.release(claimed, worker="someone-else")  # not theirs: no effect
    assert await store.claim(worker="b", limit=10, now=fake_clock(), lease=30) == []
    await store.release(claimed, worker="a")
    again = await store.claim(worker="b", limit=10, now=fake_clock(), lease=30)
    assert len(again) == 2
