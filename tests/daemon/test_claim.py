"""Claiming: a lease keeps a delivery to one worker until it expires; nothing is claimed twice."""

from __future__ import annotations

import asyncio
import datetime as dt

from daemon import claim, record
from daemon.deliver import Outcome
from models.tables import WebhookAttempt
from tests.daemon import support
from tests.daemon.conftest import config
from tests.daemon.support import FakeClock


async def test_a_leased_delivery_waits_for_its_lease_to_expire(backend, fake_clock: FakeClock):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    [d] = await support.queued(ws, sub)
    now = fake_clock()

    [mine] = await claim.claim(worker="a", limit=10, now=now, lease=30)
    assert (mine.id, mine.attempt, mine.url) == (d.id, 1, "http://127.0.0.1:9/hook")
    row = await support.load(d)
    assert (row.leased_by, row.lease_expires_at) == ("a", now + dt.timedelta(seconds=30))

    assert (
        await claim.claim(worker="b", limit=10, now=now + dt.timedelta(seconds=29), lease=30) == []
    )
    # Worker "a" died: after the lease anyone may take the delivery again.
    later = now + dt.timedelta(seconds=31)
    [theirs] = await claim.claim(worker="b", limit=10, now=later, lease=30)
    assert theirs.id == d.id

    # A late answer from "a" is still logged, but no longer moves the delivery.
    outcome = Outcome(started_at=now, status_code=200, duration_ms=5)
    status = await record.record(mine, outcome, worker="a", config=config(), now=later)
    assert status is None
    row = await support.load(d)
    assert (row.status, row.leased_by) == ("pending", "b")
    assert await WebhookAttempt.count().where(WebhookAttempt.delivery == d.id) == 1

    status = await record.record(theirs, outcome, worker="b", config=config(), now=later)
    assert status == "succeeded"


async def test_only_due_deliveries_of_active_subscriptions_are_claimed(
    backend, fake_clock: FakeClock
):
    ws = await support.workspace()
    active = await support.subscription(ws, "http://127.0.0.1:9/a")
    inactive = await support.subscription(ws, "http://127.0.0.1:9/b", is_active=False)
    [due] = await support.queued(ws, active)
    await support.queued(ws, active, next_attempt_at=fake_clock() + dt.timedelta(minutes=5))
    await support.queued(ws, active, status="succeeded")
    await support.queued(ws, active, status="skipped")
    await support.queued(ws, inactive)

    claimed = await claim.claim(worker="a", limit=10, now=fake_clock(), lease=30)
    assert [c.id for c in claimed] == [due.id]


async def test_concurrent_claims_never_overlap(backend, fake_clock: FakeClock):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    rows = await support.queued(ws, sub, 30)

    batches = await asyncio.gather(
        *(claim.claim(worker=f"w{n}", limit=7, now=fake_clock(), lease=30) for n in range(6))
    )

    ids = [c.id for batch in batches for c in batch]
    assert len(ids) == len(set(ids)) == 30
    assert set(ids) == {r.id for r in rows}


async def test_release_gives_claims_back(backend, fake_clock: FakeClock):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    await support.queued(ws, sub, 2)
    claimed = await claim.claim(worker="a", limit=10, now=fake_clock(), lease=30)
    await claim.release(claimed, worker="someone-else")  # not theirs: no effect
    assert await claim.claim(worker="b", limit=10, now=fake_clock(), lease=30) == []
    await claim.release(claimed, worker="a")
    again = await claim.claim(worker="b", limit=10, now=fake_clock(), lease=30)
    assert len(again) == 2
