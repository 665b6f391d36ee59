"""The daemon's own database access over the raw driver: few round trips, nothing per query.

The statements are daemon/claim.py's and daemon/record.py's, each written once. PostgreSQL:
two dedicated asyncpg connections (claims, results), so a claim never waits for a write and
there is no pool reset between statements; a claim is one statement (PG_CLAIM, after FOLD_DUE
has applied the due marks), and so is a batch of results while all its leases hold
(PG_RECORD_WHOLE: moves, attempts and counts); otherwise it is one transaction (the
subscriptions locked in id order, then moves and attempts in one statement, then the counts).
Every statement locks subscriptions before deliveries, each in id order. SQLite: one `sqlite3`
connection on one thread of its own (a busy database never blocks the event loop); each claim
and each batch of results is one `BEGIN IMMEDIATE` transaction. Both reconnect on the next
call after losing the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import random
import sqlite3
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

import asyncpg
from piccolo.engine.postgres import PostgresEngine

from daemon import claim as claims
from daemon import record as records
from daemon.claim import Claimed
from daemon.config import DaemonConfig
from models import db, logs
from models.statements import Sql

log = logging.getLogger("daemon.store")

APPLICATION_NAME = "pressline-worker"
STATEMENT_TIMEOUT = 60.0  # seconds; a database that stops answering fails the call
DEADLOCK_RETRIES = 3
# Errors caused by one row's data: the batch is written again row by row, so that only the
# delivery concerned is affected (it is sent again after its lease).
_ROW_ERRORS = (asyncpg.DataError, asyncpg.IntegrityConstraintViolationError)

T = TypeVar("T")


class Store(Protocol):
    async def claim(
        self,
        *,
        worker: str,
        limits: claims.Limits,
        now: dt.datetime,
        lease: float,
    ) -> list[Claimed]:
        """Lease due deliveries of active subscriptions within `limits` (daemon/claim.py),
        counting them in flight: each is sent at once."""
        ...

    async def expired(self, *, now: dt.datetime, limit: int, lease: float) -> list[Claimed]:
        """Attempts whose lease ran out (their worker died), oldest first, for `record`;
        `lease` is the length of a claim's lease."""
        ...

    async def release(self, items: list[Claimed], worker: str) -> None:
        """Give back claims not attempted (shutdown), so any worker can send them now."""
        ...

    async def record(
        self, entries: list[records.Entry], *, worker: str, config: DaemonConfig, now: dt.datetime
    ) -> list[str | None]:
        """Store the attempts and move their deliveries on; per entry the delivery's new
        status, or None if the lease was lost meanwhile (the attempt is still stored)."""
        ...

    async def close(self) -> None: ...


def open_store() -> Store:
    """A store on the database every table is bound to (models.db.bind)."""
    engine = db.engine()
    if isinstance(engine, PostgresEngine):
        return PostgresStore(dict(engine.config))
    path = str(engine.connection_kwargs["database"])  # type: ignore[attr-defined]
    timeout = float(engine.connection_kwargs.get("timeout", 30))  # type: ignore[attr-defined]
    return SqliteStore(path, timeout)


def _log_deactivated(subscription_ids: list[int], limit: int) -> None:
    for subscription_id in subscription_ids:
        log.warning(
            "subscription deactivated",
            extra=logs.fields(subscription_id=subscription_id, consecutive_failures=limit),
        )


# --- PostgreSQL ----------------------------------------------------------------------------


class _Connection:
    """One asyncpg connection used by one caller at a time, opened again after a loss."""

    def __init__(
        self, connect_kwargs: dict[str, Any], role: str, settings: dict[str, str] | None = None
    ) -> None:
        self._kwargs = {
            **connect_kwargs,
            "server_settings": {
                "application_name": f"{APPLICATION_NAME}-{role}",
                **(settings or {}),
            },
        }
        self._conn: asyncpg.Connection | None = None
        self._lock = asyncio.Lock()

    @contextlib.asynccontextmanager
    async def use(self) -> AsyncIterator[asyncpg.Connection]:
        async with self._lock:
            if self._conn is None or self._conn.is_closed():
                self._conn = await asyncpg.connect(timeout=10, **self._kwargs)
            conn = self._conn
            try:
                yield conn
            except asyncpg.PostgresError as exc:
                if isinstance(exc, asyncpg.PostgresConnectionError) or conn.is_closed():
                    self._drop()
                raise
            except BaseException:  # lost, timed out or cancelled mid-statement: state unknown
                self._drop()
                raise

    def _drop(self) -> None:
        if self._conn is not None and not self._conn.is_closed():
            self._conn.terminate()
        self._conn = None

    async def close(self) -> None:
        async with self._lock:
            if self._conn is not None and not self._conn.is_closed():
                try:
                    await asyncio.wait_for(self._conn.close(), timeout=5)
                except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
                    self._conn.terminate()
            self._conn = None


class PostgresStore:
    def __init__(self, connect_kwargs: dict[str, Any]) -> None:
        # The claim's plan is made once per connection, not per claim (planning it cost about
        # twice its execution), and from its shape alone, whatever the parameters' values.
        self._claims = _Connection(
            connect_kwargs, "claim", {"plan_cache_mode": "force_generic_plan"}
        )
        self._results = _Connection(connect_kwargs, "record")

    async def claim(
        self,
        *,
        worker: str,
        limits: claims.Limits,
        now: dt.datetime,
        lease: float,
    ) -> list[Claimed]:
        if limits.room <= 0:
            return []
        expires = claims.lease_until(now, lease)
        async with self._claims.use() as conn:
            await conn.execute(claims.FOLD_DUE, timeout=STATEMENT_TIMEOUT)
            rows = await conn.fetch(
                claims.PG_CLAIM, now, limits.per_subscription, limits.deactivate_after,
                limits.room, expires, worker, timeout=STATEMENT_TIMEOUT,
            )  # fmt: skip
        return claims.claimed(rows, expires)

    async def expired(self, *, now: dt.datetime, limit: int, lease: float) -> list[Claimed]:
        before = claims.claimed_before(now, lease)
        async with self._claims.use() as conn:
            rows = await conn.fetch(
                claims.EXPIRED.postgres, now, limit, before, timeout=STATEMENT_TIMEOUT
            )
        return claims.expired(rows)

    async def release(self, items: list[Claimed], worker: str) -> None:
        if not items:
            return
        subscriptions = sorted({item.subscription_id for item in items})
        async with self._claims.use() as conn, conn.transaction():
            # Subscriptions before deliveries, each in id order: the one lock order.
            await conn.execute(
                records.PG_LOCK_SUBSCRIPTIONS, subscriptions, timeout=STATEMENT_TIMEOUT
            )
            for item in sorted(items, key=lambda item: item.id):
                sub = await conn.fetchval(
                    claims.RELEASE.postgres,
                    item.id,
                    worker,
                    item.lease_expires_at,
                    timeout=STATEMENT_TIMEOUT,
                )
                if sub is not None:
                    await conn.execute(claims.RELEASED.postgres, sub, 1, timeout=STATEMENT_TIMEOUT)

    async def record(
        self, entries: list[records.Entry], *, worker: str, config: DaemonConfig, now: dt.datetime
    ) -> list[str | None]:
        planned = [records.plan(item, outcome, config, now) for item, outcome in entries]
        try:
            moved, deactivated = await self._write(planned, entries, worker, config, now)
        except _ROW_ERRORS:
            if len(entries) == 1:
                # This row's data cannot be stored: reported as a lease lost (None), so the
                # recorder does not write it again forever; its lease runs out and the attempt
                # is recorded as cut off.
                log.exception(
                    "the attempt could not be recorded",
                    extra=logs.fields(delivery_id=entries[0][0].id),
                )
                return [None]
            log.exception(
                "writing results failed; writing them one by one",
                extra=logs.fields(count=len(entries)),
            )
            statuses: list[str | None] = []
            for entry in entries:
                statuses += await self.record([entry], worker=worker, config=config, now=now)
            return statuses
        _log_deactivated(deactivated, config.deactivate_after)
        return [p.status if p.item.id in moved else None for p in planned]

    async def _write(
        self,
        planned: list[records.Planned],
        entries: list[records.Entry],
        worker: str,
        config: DaemonConfig,
        now: dt.datetime,
    ) -> tuple[set[int], list[int]]:
        """While every lease holds, one statement for everything (PG_RECORD_WHOLE); otherwise
        one transaction: the batch's moves and attempts in one statement, then the
        subscriptions' counters for what moved in another (locked in id order, the order every
        worker locks them in)."""
        limit = config.deactivate_after
        for attempt in range(1, DEADLOCK_RETRIES + 1):
            try:
                async with self._results.use() as conn:
                    whole, deactivated = await conn.fetchrow(
                        records.PG_RECORD_WHOLE,
                        *records.pg_whole_args(
                            planned, records.failure_counts(entries), worker, limit, now
                        ),
                        timeout=STATEMENT_TIMEOUT,
                    )
                    if whole:
                        return {p.item.id for p in planned}, list(deactivated)
                    async with conn.transaction():
                        subscriptions = sorted({p.item.subscription_id for p in planned})
                        await conn.execute(
                            records.PG_LOCK_SUBSCRIPTIONS, subscriptions, timeout=STATEMENT_TIMEOUT
                        )
                        rows = await conn.fetch(
                            records.PG_RECORD_BATCH,
                            *records.pg_batch_args(planned, worker, now),
                            timeout=STATEMENT_TIMEOUT,
                        )
                        moved = {row[0] for row in rows}
                        counted = [e for e in entries if e[0].id in moved]
                        counts = records.failure_counts(counted)
                        deactivated = []
                        if counts:
                            result = await conn.fetch(
                                records.PG_COUNT_BATCH,
                                *records.pg_count_args(counts, limit, now),
                                timeout=STATEMENT_TIMEOUT,
                            )
                            deactivated = [row["id"] for row in result if row["deactivated"]]
                    return moved, deactivated
            except (asyncpg.DeadlockDetectedError, asyncpg.SerializationError):
                # Rolled back as a whole; the other side has gone on. (Every statement locks in
                # the one order, so this is a safety net, not a path taken.)
                if attempt == DEADLOCK_RETRIES:
                    raise
                log.warning("deadlock while recording results; trying again")
                await asyncio.sleep(random.uniform(0.01, 0.05) * attempt)  # noqa: S311
        raise AssertionError("unreachable")

    async def close(self) -> None:
        await self._claims.close()
        await self._results.close()


# --- SQLite --------------------------------------------------------------------------------


def _run(conn: sqlite3.Connection, sql: Sql, *args: Any) -> list[sqlite3.Row]:
    return conn.execute(sql.sqlite, sql.sqlite_args(args)).fetchall()


class SqliteStore:
    """One daemon per SQLite database (README); its statements queue on one thread."""

    def __init__(self, path: str, timeout: float) -> None:
        self._path, self._timeout = path, timeout
        self._conn: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="daemon-sqlite")

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, self._transaction, work)

    def _transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self._conn is None:
            conn = sqlite3.connect(
                self._path, timeout=self._timeout, isolation_level=None, check_same_thread=False
            )
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys = 1")
            # WAL without an fsync per commit, for this connection only: what a power cut
            # could take back (a claim, a result) is sent again, as at-least-once allows.
            conn.execute("PRAGMA synchronous = NORMAL")
            self._conn = conn
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            result = work(conn)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise
        return result

    async def claim(
        self,
        *,
        worker: str,
        limits: claims.Limits,
        now: dt.datetime,
        lease: float,
    ) -> list[Claimed]:
        if limits.room <= 0:
            return []
        expires = claims.lease_until(now, lease)

        def work(conn: sqlite3.Connection) -> list[sqlite3.Row]:
            candidates = _run(conn, claims.CANDIDATES, now, limits.deactivate_after)
            due: list[tuple[int, int, int]] = []
            for order, (sub, room) in enumerate(claims.rooms(candidates, limits)):
                rows = _run(conn, claims.DUE, sub, now, room)
                due.extend((row[0], rank, order) for rank, row in enumerate(rows, start=1))
            ids = claims.fair(due, limits.room)
            if not ids:
                return []
            taken = _run(conn, claims.TAKE, ids, worker, expires)
            for sub, count in claims.started(taken):
                _run(conn, claims.STARTED, sub, count)
            return _run(conn, claims.CLAIMED, [row[0] for row in taken], worker, expires, now)

        return claims.claimed(await self._run(work), expires)

    async def expired(self, *, now: dt.datetime, limit: int, lease: float) -> list[Claimed]:
        before = claims.claimed_before(now, lease)
        rows = await self._run(lambda conn: _run(conn, claims.EXPIRED, now, limit, before))
        return claims.expired(rows)

    async def release(self, items: list[Claimed], worker: str) -> None:
        if not items:
            return

        def work(conn: sqlite3.Connection) -> None:
            for item in items:
                rows = _run(conn, claims.RELEASE, item.id, worker, item.lease_expires_at)
                if rows:
                    _run(conn, claims.RELEASED, rows[0][0], 1)

        await self._run(work)

    async def record(
        self, entries: list[records.Entry], *, worker: str, config: DaemonConfig, now: dt.datetime
    ) -> list[str | None]:
        planned = [records.plan(item, outcome, config, now) for item, outcome in entries]
        limit = config.deactivate_after

        def work(conn: sqlite3.Connection) -> tuple[list[str | None], list[int]]:
            statuses: list[str | None] = []
            counted: list[records.Entry] = []
            for p, entry in zip(planned, entries, strict=True):
                moved = _run(conn, records.MOVE, *records.move_args(p, worker, now))
                if not moved:  # the lease ran out: recorded as cut off by whoever found it
                    statuses.append(None)
                    continue
                _run(conn, records.ATTEMPT, *records.attempt_args(p, worker))
                statuses.append(p.status)
                counted.append(entry)
            counts = [records.count_args(c, limit, now) for c in records.failure_counts(counted)]
            deactivated = []
            for args in counts:
                rows = _run(conn, records.COUNT, *args)
                if rows and rows[0]["deactivated"]:
                    deactivated.append(rows[0]["id"])
            return statuses, deactivated

        statuses, deactivated = await self._run(work)
        _log_deactivated(deactivated, limit)
        return statuses

    async def close(self) -> None:
        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._thread, shut)
        self._thread.shutdown(wait=False)
