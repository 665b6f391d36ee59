"""Retention (docs/operations.md, Retention): what the outbox keeps, and for how long.

Finished deliveries (`succeeded`, `failed`, `skipped`) untouched for `WEBHOOK_RETENTION_DAYS`
go with their attempts (the foreign key cascades), then events left with no delivery and
older than the same period. `pending` is never deleted. Each batch is one short statement on
rows no worker claims (claims lock only `pending` rows), so pruning never waits on delivery
nor makes delivery wait; the partial index `deliveries_done_updated` finds the batch without
reading pending rows.
"""

from __future__ import annotations

import asyncio
import datetime as dt

import msgspec

from models import clock
from models.tables import WebhookDelivery, WebhookEvent

BATCH = 1000  # rows per statement: milliseconds of work, so a claim never queues behind one
PAUSE = 0.02  # seconds between batches: the worker's own deliveries run in between
PENDING = "pending"


class Pruned(msgspec.Struct, frozen=True):
    deliveries: int
    events: int


async def prune_deliveries_batch(cutoff: dt.datetime, batch: int = BATCH) -> int:
    """Delete up to `batch` finished deliveries last changed before `cutoff`."""
    ids = await (
        WebhookDelivery.select(WebhookDelivery.id)
        .where((WebhookDelivery.status != PENDING) & (WebhookDelivery.updated_at < cutoff))
        .order_by(WebhookDelivery.updated_at)
        .limit(batch)
        .output(as_list=True)
    )
    if not ids:
        return 0
    # Re-checked in the DELETE: an operator may have queued one again since the SELECT.
    deleted = await (
        WebhookDelivery.delete()
        .where(WebhookDelivery.id.is_in(ids) & (WebhookDelivery.status != PENDING))
        .returning(WebhookDelivery.id)
    )
    return len(deleted)


async def prune_events_batch(
    cutoff: dt.datetime, after_id: int = 0, batch: int = BATCH
) -> tuple[int, int | None]:
    """Delete, among the next `batch` events (by id, after `after_id`) created before `cutoff`,
    those no delivery refers to. Returns how many went and the last id looked at (None at the
    end). A delivery is only ever created with its event, so an event found without one
    keeps none."""
    candidates = await (
        WebhookEvent.select(WebhookEvent.id)
        .where((WebhookEvent.created_at < cutoff) & (WebhookEvent.id > after_id))
        .order_by(WebhookEvent.id)
        .limit(batch)
        .output(as_list=True)
    )
    if not candidates:
        return 0, None
    referenced = set(
        await WebhookDelivery.select(WebhookDelivery.event)
        .where(WebhookDelivery.event.is_in(candidates))
        .distinct()
        .output(as_list=True)
    )
    free = [event_id for event_id in candidates if event_id not in referenced]
    if free:
        await WebhookEvent.delete().where(WebhookEvent.id.is_in(free))
    return len(free), candidates[-1]


async def prune(retention_days: int, now: dt.datetime | None = None, batch: int = BATCH) -> Pruned:
    """Delete everything past the retention period, batch by batch, pausing between them."""
    cutoff = (now or clock.now()) - dt.timedelta(days=retention_days)
    deliveries = events = 0
    while count := await prune_deliveries_batch(cutoff, batch):
        deliveries += count
        await asyncio.sleep(PAUSE)
    last_id: int | None = 0
    while last_id is not None:
        count, last_id = await prune_events_batch(cutoff, last_id, batch)
        events += count
        await asyncio.sleep(PAUSE)
    return Pruned(deliveries=deliveries, events=events)
