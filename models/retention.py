"""Retention (docs/operations.md, Retention): what the outbox keeps, and for how long.

Finished deliveries (`succeeded`, `failed`, `skipped`) untouched for `WEBHOOK_RETENTION_DAYS`
go with their attempts (the foreign key cascades), then events older than that which no
delivery refers to any more. `pending` is never deleted. Each batch is one short statement on
rows no worker claims (claims lock only `pending` rows), so pruning never waits on delivery;
it walks its rows in key order from where the last batch stopped (the partial index
`deliveries_done_updated`, the events' primary key), so no batch re-reads what an earlier one
deleted; and it rests between batches, so delivery keeps most of the database's time.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from typing import Any

import msgspec

from models import clock, db, statements
from models.statements import Sql

# Rows per statement: milliseconds of work, so a claim never queues long behind one. SQLite
# has one writer at a time, so its batches are smaller (measured: docs/benchmarks.md).
BATCH = 500
SQLITE_BATCH = 500
# After each batch the prune rests this many times as long as the batch took, so it takes
# at most a fifth of the database's (and the worker's) time from delivery.
REST_FACTOR = 4.0
# PostgreSQL keeps deleted rows as dead tuples until a VACUUM; left to autovacuum, a large
# prune doubled delivery latency until it came (docs/benchmarks.md, Retention). So the prune
# vacuums the outbox's tables itself, every this many deleted rows and when it ends. VACUUM
# (not FULL) blocks no reads or writes.
VACUUM_EVERY = 50_000
VACUUM = "VACUUM (ANALYZE) webhook_deliveries, webhook_attempts, webhook_events"

# Finished deliveries last changed before $1, after the (updated_at, id) key ($2, $3) where
# the previous batch stopped. The outer status test re-checks each row as it is deleted: an
# operator may have queued one again meanwhile.
PRUNE_DELIVERIES = Sql(
    """
    DELETE FROM webhook_deliveries
    WHERE id IN (
        SELECT id FROM webhook_deliveries
        WHERE status <> 'pending' AND updated_at < $1 AND (updated_at, id) > ($2, $3)
        ORDER BY updated_at, id LIMIT $4
    ) AND status <> 'pending'
    RETURNING updated_at, id
    """
)
# Events created before $1 with ids in ($2, $3] that no delivery refers to. A delivery is
# only ever created with its event, so an event found without one keeps none.
PRUNE_EVENTS = Sql(
    """
    DELETE FROM webhook_events
    WHERE id > $2 AND id <= $3 AND created_at < $1
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event = webhook_events.id)
    RETURNING id
    """
)
# The events' walk: from the first id to the newest event old enough to go.
OLD_EVENT_IDS = Sql(
    """
    SELECT (SELECT MIN(id) FROM webhook_events),
           (SELECT id FROM webhook_events WHERE created_at < $1
            ORDER BY created_at DESC, id DESC LIMIT 1)
    """
)


class Pruned(msgspec.Struct, frozen=True):
    deliveries: int
    events: int


async def _write(sql: Sql, *args: Any) -> list[Any]:
    async def write() -> list[Any]:
        async with statements.connection() as conn:
            return await conn.rows(sql, *args)

    return await db.atomic(write)


async def _rest(began: float) -> None:
    await asyncio.sleep((time.monotonic() - began) * REST_FACTOR)


async def _vacuum() -> None:
    if db.is_postgres():
        await db.engine().run_ddl(VACUUM)


async def prune_deliveries(cutoff: dt.datetime, batch: int = BATCH) -> int:
    deleted = 0
    key: tuple[Any, int] = (dt.datetime(1970, 1, 1, tzinfo=dt.UTC), 0)
    while True:
        began = time.monotonic()
        rows = await _write(PRUNE_DELIVERIES, cutoff, *key, batch)
        if not rows:
            return deleted
        deleted += len(rows)
        key = max((row[0], row[1]) for row in rows)
        await _rest(began)
        if deleted % VACUUM_EVERY < len(rows):
            await _vacuum()


async def prune_events(cutoff: dt.datetime, batch: int = BATCH) -> int:
    async with statements.connection() as conn:
        bounds = await conn.row(OLD_EVENT_IDS, cutoff)
    if bounds is None or bounds[1] is None:
        return 0
    deleted, after, last = 0, bounds[0] - 1, bounds[1]
    while after < last:
        began = time.monotonic()
        gone = len(await _write(PRUNE_EVENTS, cutoff, after, after + batch))
        deleted += gone
        after += batch
        await _rest(began)
        if gone and deleted % VACUUM_EVERY < gone:
            await _vacuum()
    return deleted


async def prune(
    retention_days: int, now: dt.datetime | None = None, batch: int | None = None
) -> Pruned:
    """Delete everything past the retention period, batch by batch, resting between them."""
    cutoff = (now or clock.now()) - dt.timedelta(days=retention_days)
    batch = batch or (BATCH if db.is_postgres() else SQLITE_BATCH)
    pruned = Pruned(
        deliveries=await prune_deliveries(cutoff, batch), events=await prune_events(cutoff, batch)
    )
    if pruned.deliveries or pruned.events:
        await _vacuum()
    return pruned
