"""A successful attempt frees its subscription's slot when it ends, not when its result is
written: one subscription's rate is its cap over the receiver's answer time, while the cap
still bounds the attempts waiting on a receiver and the failure limit still counts every
attempt not yet written."""

from __future__ import annotations

import asyncio
import datetime as dt

from aiohttp import web

from daemon import record
from daemon.claim import Claimed
from daemon.config import DaemonConfig
from daemon.deliver import Outcome
from daemon.dispatch import Dispatcher, open_session
from daemon.store import Store, open_store
from tests.daemon import support
from tests.daemon.conftest import config
from tests.daemon.support import FakeClock, Receiver

CAP = 4


class HeldWrites:
    """The worker's real store, whose result writes wait until the test lets them go (a slow
    database for writes): claims go on meanwhile."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.go = asyncio.Event()

    async def claim(self, **kwargs: object) -> list[Claimed]:
        return await self.store.claim(**kwargs)  # type: ignore[arg-type]

    async def expired(self, **kwargs: object) -> list[Claimed]:
        return await self.store.expired(**kwargs)  # type: ignore[arg-type]

    async def release(self, items: list[Claimed], worker: str) -> None:
        await self.store.release(items, worker)

    async def record(self, entries: list[record.Entry], **kwargs: object) -> list[str | None]:
        await self.go.wait()
        return await self.store.record(entries, **kwargs)  # type: ignore[arg-type]

    async def close(self) -> None:
        await self.store.close()


async def test_a_subscription_keeps_sending_while_its_results_wait_to_be_written(
    backend: str, receiver: Receiver, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    await support.queued(ws, sub, 12)
    now_in_flight, most = 0, 0

    async def answer(_: web.Request, __: int) -> web.Response:
        nonlocal now_in_flight, most
        now_in_flight += 1
        most = max(most, now_in_flight)
        await asyncio.sleep(0.02)
        now_in_flight -= 1
        return web.Response(text="ok")

    receiver.behaviour = answer
    cfg: DaemonConfig = config(concurrency=64, max_in_flight_per_subscription=CAP)
    store = HeldWrites(open_store())
    dispatcher = Dispatcher(
        cfg,
        open_session(cfg),
        worker="w",
        now=fake_clock,
        store=store,  # type: ignore[arg-type]
    )
    try:
        async with asyncio.timeout(10):
            while len(receiver.requests) < 12:  # polls, as the scheduler's job would
                await dispatcher.fill()
                await asyncio.sleep(0.02)
        # No result is written yet, and every event was sent, never more than CAP at once.
        assert sorted(receiver.deliveries()) == sorted(set(receiver.deliveries()))
        assert most <= CAP
        row = await support.load_subscription(sub)
        assert row.in_flight == 12  # not written: still counted against the failure limit
        store.go.set()
        assert await dispatcher.recorder.idle(timeout=10)
    finally:
        store.go.set()
        await dispatcher.close()
    row = await support.load_subscription(sub)
    assert (row.in_flight, row.consecutive_failures) == (0, 0)
    assert dispatcher.succeeded == {}


async def test_unwritten_successes_free_cap_slots_but_not_failure_room(
    make_store, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook", consecutive_failures=10)
    await support.queued(ws, sub, 20)
    store = make_store()
    now = fake_clock()
    rules = support.limits(room=100, per_subscription=CAP, deactivate_after=20)

    first = await store.claim(worker="a", limits=rules, now=now, lease=30)
    assert len(first) == CAP
    assert await store.claim(worker="a", limits=rules, now=now, lease=30) == []
    # Two ended in success, not written: two more may start, and the others still count.
    again = await store.claim(worker="a", limits=rules, now=now, lease=30, succeeded=first[:2])
    assert len(again) == 2
    # Another worker's successes, or a lease that no longer matches, free nothing.
    assert await store.claim(worker="b", limits=rules, now=now, lease=30, succeeded=first) == []
    stale = [_with_lease(c, now) for c in first]
    assert await store.claim(worker="a", limits=rules, now=now, lease=30, succeeded=stale) == []
    # Failure room: 10 failures + 6 in flight (successes included until written) leave 4.
    more = await store.claim(worker="a", limits=rules, now=now, lease=30, succeeded=first + again)
    assert len(more) == CAP
    assert (
        await store.claim(
            worker="a", limits=rules, now=now, lease=30, succeeded=first + again + more
        )
        == []
    )
    assert (await support.load_subscription(sub)).in_flight == 10

    # Once written, a success frees nothing more: in_flight went down instead.
    ok = Outcome(started_at=now, status_code=200, duration_ms=3)
    written = [(c, ok) for c in first[:2]]
    assert await store.record(written, worker="a", config=config(), now=now) == ["succeeded"] * 2
    row = await support.load_subscription(sub)
    assert (row.in_flight, row.consecutive_failures) == (8, 0)
    # Eight unwritten successes are all that is in flight: the cap is whole again (the two
    # written ones, passed again, are not subtracted a second time).
    unwritten = first + again + more
    taken = await store.claim(worker="a", limits=rules, now=now, lease=30, succeeded=unwritten)
    assert len(taken) == CAP


def _with_lease(item: Claimed, now: dt.datetime) -> Claimed:
    return Claimed(
        id=item.id, attempt=item.attempt, lease_expires_at=now + dt.timedelta(seconds=5),
        subscription_id=item.subscription_id, url=item.url, secret=item.secret,
        event=item.event, event_id=item.event_id, body=item.body,
    )  # fmt: skip
