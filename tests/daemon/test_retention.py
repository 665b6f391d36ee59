"""Retention: finished deliveries, their attempts and unreferenced events go after the
retention period, in batches; pending deliveries and recent rows stay."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from models import clock, retention
from models.tables import WebhookAttempt, WebhookDelivery, WebhookEvent
from tests.daemon import support
from tests.daemon.support import Receiver

DAYS = 30


def days_ago(days: float) -> dt.datetime:
    return clock.now() - dt.timedelta(days=days)


async def attempt(delivery: WebhookDelivery) -> None:
    await WebhookAttempt(
        delivery=delivery.id, number=1, started_at=delivery.updated_at, duration_ms=5
    ).save()


async def ids(table) -> set[int]:
    return set(await table.select(table.id).output(as_list=True))


async def test_prune_deletes_only_what_is_finished_and_old(backend, receiver: Receiver):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    old, recent = days_ago(DAYS + 1), days_ago(DAYS - 1)
    kept_deliveries, kept_events, gone_events = set(), set(), set()
    for status in ("succeeded", "failed", "skipped"):
        gone = await support.delivery(
            await support.event(ws, created_at=old), sub, status=status, updated_at=old
        )
        await attempt(gone)
        gone_events.add(gone.event)
        fresh = await support.delivery(
            await support.event(ws, created_at=old), sub, status=status, updated_at=recent
        )
        await attempt(fresh)
        kept_deliveries.add(fresh.id)
        kept_events.add(fresh.event)
    # Pending is never deleted, however old; nor its event.
    stuck = await support.delivery(
        await support.event(ws, created_at=old), sub, status="pending", updated_at=old
    )
    kept_deliveries.add(stuck.id)
    kept_events.add(stuck.event)
    # An event nothing was delivered for: old goes, recent stays.
    gone_events.add((await support.event(ws, created_at=old)).id)
    kept_events.add((await support.event(ws, created_at=recent)).id)

    pruned = await retention.prune(DAYS, batch=2)

    assert pruned == retention.Pruned(deliveries=3, events=len(gone_events))
    assert await ids(WebhookDelivery) == kept_deliveries
    assert await ids(WebhookEvent) == kept_events
    remaining = await WebhookAttempt.select(WebhookAttempt.delivery).output(as_list=True)
    assert set(remaining) == kept_deliveries - {stuck.id}  # attempts went with their delivery
    assert await retention.prune(DAYS, batch=2) == retention.Pruned(deliveries=0, events=0)


async def test_a_full_batch_of_referenced_events_does_not_stop_the_prune(
    backend, receiver: Receiver
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    old = days_ago(DAYS + 5)
    for _ in range(3):  # the first batch (of 2) holds only events with pending deliveries
        await support.delivery(await support.event(ws, created_at=old), sub, status="pending")
    free = {(await support.event(ws, created_at=old)).id for _ in range(3)}

    pruned = await retention.prune(DAYS, batch=2)

    assert pruned.events == 3
    assert not free & await ids(WebhookEvent)


@pytest.mark.postgres_only
async def test_prune_while_two_workers_deliver_loses_and_repeats_nothing(
    make_dispatcher, receiver: Receiver
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    old = days_ago(DAYS + 2)
    for _ in range(40):  # finished history to prune, in many small batches
        finished = await support.delivery(
            await support.event(ws, created_at=old), sub, status="succeeded", updated_at=old
        )
        await attempt(finished)
    first = make_dispatcher("worker-a")
    second = make_dispatcher("worker-b")
    pending: list[WebhookDelivery] = []

    async def keep_queueing() -> None:
        for _ in range(30):
            pending.extend(await support.queued(ws, sub, 2))
            await asyncio.sleep(0)

    async def deliver_until_done() -> None:
        while True:
            await asyncio.gather(first.run_once(), second.run_once())
            done = await WebhookDelivery.count().where(WebhookDelivery.status == "pending")
            if queueing.done() and done == 0:
                return

    queueing = asyncio.create_task(keep_queueing())
    pruned, _ = await asyncio.gather(retention.prune(DAYS, batch=3), deliver_until_done())
    await queueing

    assert pruned == retention.Pruned(deliveries=40, events=40)
    sent = receiver.deliveries()
    assert sorted(sent) == sorted(d.public_id for d in pending)  # each pending one, exactly once
    statuses = await WebhookDelivery.select(WebhookDelivery.status).output(as_list=True)
    assert statuses == ["succeeded"] * len(pending)
