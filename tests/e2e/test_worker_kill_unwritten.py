"""A worker killed with answered attempts whose results are not written yet (PostgreSQL, real
processes): the next worker records them as cut off and sends them again — at most the
per-subscription cap of them, since a slot frees only once its result is written — and those
lost attempts never count towards the subscription's deactivation."""

from __future__ import annotations

import asyncio
from collections import Counter

import asyncpg
import pytest
from aiohttp import web

from daemon import record
from models import db
from models.tables import WebhookAttempt
from tests.daemon import support
from tests.daemon.support import Receiver
from tests.e2e.test_worker_processes import spawn, wait_until_succeeded

__all__ = ["spawn"]

CAP = 4


@pytest.mark.postgres_only
async def test_a_kill_with_answered_unwritten_results_costs_a_resend_not_the_subscription(
    spawn, receiver: Receiver
):
    blocker = await asyncpg.connect(**db.engine().config)  # type: ignore[attr-defined]
    holding = blocker.transaction()
    ws = await support.workspace()
    # Two failures to go before deactivation: four attempts counted as failed would do it.
    sub = await support.subscription(ws, receiver.url(), consecutive_failures=2)

    locked = asyncio.Event()

    async def answer(_: web.Request, n: int) -> web.Response:
        # Every answer comes once the worker's result writes must wait for this lock: the
        # results stay unwritten.
        if n == 1:
            await holding.start()
            await blocker.execute(
                # NO KEY UPDATE: the worker's result write waits for it, a delivery's insert
                # (its foreign key check) does not.
                "SELECT id FROM webhook_subscriptions WHERE id = $1 FOR NO KEY UPDATE",
                sub.id,
            )
            locked.set()
        await locked.wait()
        return web.Response(text="ok")

    receiver.behaviour = answer
    env = {
        "WEBHOOK_TIMEOUT": "2",
        "WEBHOOK_LEASE": "3",
        "WEBHOOK_BACKOFF": "1,1,1,1,1",
        "WEBHOOK_DEACTIVATE_AFTER": "6",
        "WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION": str(CAP),
    }
    try:
        # Queued before the worker starts, so its first claim takes the cap's four at once.
        deliveries = await support.queued(ws, sub, 10)
        first = await spawn(**env)
        await first.started()
        async with asyncio.timeout(15):
            await locked.wait()
        await asyncio.sleep(1)  # answered; the results wait on the lock
        assert len(receiver.requests) == CAP  # answered; their results wait on the lock
        assert len(receiver.requests) == CAP  # no slot freed before its result is written
        first.process.kill()
        await first.process.wait()
        # Its write, sent before the kill, still waits in its server backend: ended too, so
        # the results are lost with the worker.
        await blocker.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name LIKE 'pressline-worker-%'"
        )
    finally:
        if blocker.is_in_transaction():
            await holding.rollback()
        await blocker.close()

    second = await spawn(**env)
    await second.started()
    await wait_until_succeeded(10, seconds=40)

    ids = {d.public_id: d.id for d in deliveries}  # webhook-id → the row's id
    sent = Counter(ids[webhook_id] for webhook_id in receiver.deliveries())
    assert set(sent) == {d.id for d in deliveries}
    resent = [delivery for delivery, times in sent.items() if times > 1]
    assert len(resent) == CAP and max(sent.values()) == 2
    cut = await WebhookAttempt.select(WebhookAttempt.delivery).where(
        WebhookAttempt.error == record.CUT_OFF
    )
    assert sorted(row["delivery"] for row in cut) == sorted(resent)
    row = await support.load_subscription(sub)
    assert (row.is_active, row.consecutive_failures, row.in_flight) == (True, 0, 0)
    assert row.deactivated_at is None
