"""An attempt holds its subscription's slot until its result is written, and a live worker
keeps every result until it is written: a write that fails is tried again, an attempt whose
result waits is never taken for one cut off by a crash, and nothing a receiver answered is
sent again."""

from __future__ import annotations

import asyncio
import datetime as dt
import sqlite3
from typing import Any

import asyncpg
import pytest

from daemon import record
from daemon.claim import Claimed
from daemon.deliver import Outcome
from daemon.dispatch import Dispatcher, open_session
from daemon.store import SqliteStore, Store, open_store
from models import db
from models.tables import WebhookAttempt, WebhookDelivery
from tests.daemon import support
from tests.daemon.conftest import config
from tests.daemon.support import FakeClock, Receiver

CAP = 4


class Wrapped:
    """The worker's real store; subclasses change how results are written."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def claim(self, **kwargs: Any) -> list[Claimed]:
        return await self.store.claim(**kwargs)

    async def expired(self, **kwargs: Any) -> list[Claimed]:
        return await self.store.expired(**kwargs)

    async def release(self, items: list[Claimed], worker: str) -> None:
        await self.store.release(items, worker)

    async def record(self, entries: list[record.Entry], **kwargs: Any) -> list[str | None]:
        return await self.store.record(entries, **kwargs)

    async def close(self) -> None:
        await self.store.close()


class HeldWrites(Wrapped):
    """Result writes wait until the test lets them go (a slow database for writes): claims go
    on meanwhile."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self.go = asyncio.Event()

    async def record(self, entries: list[record.Entry], **kwargs: Any) -> list[str | None]:
        await self.go.wait()
        return await self.store.record(entries, **kwargs)


def _dispatcher(store: object, clock: FakeClock, **overrides: Any) -> Dispatcher:
    cfg = config(**{"concurrency": 64, "max_in_flight_per_subscription": CAP, **overrides})
    return Dispatcher(cfg, open_session(cfg), worker="w", now=clock, store=store)  # type: ignore[arg-type]


async def _fill_until(dispatcher: Dispatcher, done: Any, seconds: float = 10) -> None:
    """Poll as the scheduler's job would, until `done()`."""
    async with asyncio.timeout(seconds):
        while not done():
            await dispatcher.fill()
            await asyncio.sleep(0.02)


async def test_a_slot_frees_only_when_its_result_is_written(
    backend: str, receiver: Receiver, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    await support.queued(ws, sub, 12)
    store = HeldWrites(open_store())
    dispatcher = _dispatcher(store, fake_clock)
    try:
        await _fill_until(dispatcher, lambda: len(receiver.requests) >= CAP)
        for _ in range(10):  # answered, not written: the cap's slots stay taken
            await dispatcher.fill()
            await asyncio.sleep(0.02)
        assert len(receiver.requests) == CAP
        assert (await support.load_subscription(sub)).in_flight == CAP
        store.go.set()
        await _fill_until(dispatcher, lambda: len(receiver.requests) >= 12)
        assert await dispatcher.recorder.idle(timeout=10)
    finally:
        store.go.set()
        await dispatcher.close()
    assert sorted(receiver.deliveries()) == sorted(set(receiver.deliveries()))  # each once
    row = await support.load_subscription(sub)
    assert (row.in_flight, row.consecutive_failures) == (0, 0)
    statuses = await WebhookDelivery.select(WebhookDelivery.status).output(as_list=True)
    assert statuses == ["succeeded"] * 12


class FailingFirstWrite(Wrapped):
    """The real store, whose first write meets a real fault of the database: on PostgreSQL
    its connection is terminated by the server mid-write; on SQLite the database stays locked
    by another writer past the store's busy timeout."""

    def __init__(self, store: Store, sqlite_path: str | None) -> None:
        super().__init__(store)
        self.sqlite_path = sqlite_path
        self.failed = 0

    async def record(self, entries: list[record.Entry], **kwargs: Any) -> list[str | None]:
        if self.failed:
            return await self.store.record(entries, **kwargs)
        try:
            if self.sqlite_path is None:
                return await self._terminated(entries, **kwargs)
            return await self._locked(entries, **kwargs)
        except Exception:
            self.failed += 1
            raise

    async def _terminated(self, entries: list[record.Entry], **kwargs: Any) -> list[str | None]:
        killer = await asyncpg.connect(**db.engine().config)  # type: ignore[attr-defined]
        blocker = await asyncpg.connect(**db.engine().config)  # type: ignore[attr-defined]
        try:
            # The write waits on a subscription lock, and its backend is terminated meanwhile.
            subs = sorted({item.subscription_id for item, _ in entries})
            async with blocker.transaction():
                await blocker.execute(
                    "SELECT id FROM webhook_subscriptions WHERE id = ANY($1) FOR UPDATE", subs
                )
                write = asyncio.create_task(self.store.record(entries, **kwargs))
                async with asyncio.timeout(10):  # until the write waits on the lock
                    while True:
                        if await killer.fetchval(
                            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name"
                            " = 'pressline-worker-record' AND wait_event_type = 'Lock')"
                        ):
                            break
                        await asyncio.sleep(0.02)
                await killer.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = 'pressline-worker-record'"
                )
                return await write
        finally:
            await killer.close()
            await blocker.close()

    async def _locked(self, entries: list[record.Entry], **kwargs: Any) -> list[str | None]:
        assert self.sqlite_path is not None
        other = sqlite3.connect(self.sqlite_path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # the store's busy timeout is short (the test's)
            return await self.store.record(entries, **kwargs)
        finally:
            other.execute("ROLLBACK")
            other.close()


async def test_a_write_that_fails_is_tried_again_and_nothing_is_sent_twice(
    backend: str, receiver: Receiver, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    await support.queued(ws, sub, 6)
    if db.is_postgres():
        store = FailingFirstWrite(open_store(), None)
    else:
        path = db.sqlite_path(backend)
        store = FailingFirstWrite(SqliteStore(path, timeout=0.2), path)
    dispatcher = _dispatcher(store, fake_clock)
    try:
        await _fill_until(
            dispatcher,
            lambda: len(receiver.requests) >= 6 and dispatcher.recorder.pending == 0,
            seconds=20,
        )
        for _ in range(5):  # more polls: nothing more is due, nothing is sent again
            await dispatcher.fill()
            await asyncio.sleep(0.05)
    finally:
        await dispatcher.close()
    assert store.failed == 1
    assert sorted(receiver.deliveries()) == sorted(set(receiver.deliveries()))
    assert len(receiver.requests) == 6
    statuses = await WebhookDelivery.select(WebhookDelivery.status).output(as_list=True)
    assert statuses == ["succeeded"] * 6
    numbers = await WebhookAttempt.select(WebhookAttempt.number).output(as_list=True)
    assert numbers == [1] * 6
    row = await support.load_subscription(sub)
    assert (row.in_flight, row.consecutive_failures) == (0, 0)


async def test_a_live_worker_never_takes_its_unwritten_results_for_cut_off_attempts(
    backend: str, receiver: Receiver, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    await support.queued(ws, sub, CAP)
    store = HeldWrites(open_store())
    dispatcher = _dispatcher(store, fake_clock, lease=30.0)
    try:
        await _fill_until(dispatcher, lambda: dispatcher.recorder.pending == CAP)
        fake_clock.advance(60)  # the leases ran out while the writes waited
        assert await dispatcher.recover(force=True) == 0
        store.go.set()
        assert await dispatcher.recorder.idle(timeout=10)
        assert await dispatcher.recover(force=True) == 0
    finally:
        store.go.set()
        await dispatcher.close()
    assert len(receiver.requests) == CAP
    errors = await WebhookAttempt.select(WebhookAttempt.error).output(as_list=True)
    assert errors == [None] * CAP
    statuses = await WebhookDelivery.select(WebhookDelivery.status).output(as_list=True)
    assert statuses == ["succeeded"] * CAP


async def test_attempts_cut_off_by_a_crash_never_deactivate_a_subscription(
    make_store: Any, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook", consecutive_failures=18)
    await support.queued(ws, sub, CAP)
    dead, alive = make_store(), make_store()
    now = fake_clock()
    rules = support.limits(room=100, per_subscription=CAP, deactivate_after=20)
    taken = await dead.claim(worker="dead", limits=rules, now=now, lease=30)
    assert len(taken) == 2  # 18 failures + 2 in flight: the failure room is 2
    later = now + dt.timedelta(seconds=31)
    lost = await alive.expired(now=later, limit=10, lease=30)
    entries = [record.cut_off(item, later) for item in lost]
    assert (
        await alive.record(entries, worker="alive", config=config(), now=later) == ["pending"] * 2
    )
    row = await support.load_subscription(sub)
    assert (row.is_active, row.consecutive_failures, row.in_flight) == (True, 18, 0)
    attempts = await WebhookDelivery.select(WebhookDelivery.attempts).where(
        WebhookDelivery.id.is_in([item.id for item in taken])
    )
    assert [a["attempts"] for a in attempts] == [1, 1]  # they still count against the delivery


@pytest.mark.postgres_only(reason="SQLite stores any integer: nothing to refuse")
async def test_a_result_whose_data_cannot_be_stored_is_given_up_not_written_forever(
    backend: str, make_store: Any, fake_clock: FakeClock
):
    """A row the database refuses (here a duration past its integer column, on PostgreSQL)
    comes back as a lease lost, alone or in a batch, so the recorder moves on; the others of
    its batch are written."""
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    await support.queued(ws, sub, 3)
    store = make_store()
    now = fake_clock()
    good, bad, alone = await store.claim(worker="w", limits=support.limits(), now=now, lease=30)
    ok = Outcome(started_at=now, status_code=200, duration_ms=3)
    huge = Outcome(started_at=now, status_code=200, duration_ms=2**40)
    statuses = await store.record([(good, ok), (bad, huge)], worker="w", config=config(), now=now)
    assert statuses == ["succeeded", None]
    assert await store.record([(alone, huge)], worker="w", config=config(), now=now) == [None]
