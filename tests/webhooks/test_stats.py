"""The outbox figures: pending and oldest-pending count active subscriptions' deliveries only."""

from __future__ import annotations

import datetime as dt

from models import clock
from models.webhooks.stats import outbox_stats
from tests.daemon import support


async def test_pending_gauges_leave_out_inactive_subscriptions(backend: str):
    ws = await support.workspace()
    active = await support.subscription(ws, "http://127.0.0.1:9/a")
    off = await support.subscription(ws, "http://127.0.0.1:9/b", is_active=False)
    now = clock.now()
    await support.queued(ws, active, 2, created_at=now - dt.timedelta(minutes=1))
    await support.queued(ws, off, 3, created_at=now - dt.timedelta(hours=5))

    stats = await outbox_stats(now, ws.id)

    assert stats.pending == 2
    assert 59 <= stats.oldest_pending_age_seconds <= 61
    assert (stats.active_subscriptions, stats.deactivated_subscriptions) == (1, 1)
    everywhere = await outbox_stats(now)
    assert everywhere.oldest_pending_age_seconds < 3600
