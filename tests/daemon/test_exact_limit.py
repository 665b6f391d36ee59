"""Exactly WEBHOOK_DEACTIVATE_AFTER failed attempts, never one more."""

from __future__ import annotations

import asyncio

from models.tables import WebhookAttempt
from tests.daemon import support
from tests.daemon.support import FakeClock, Receiver


async def test_a_failing_receiver_sees_exactly_20_attempts_across_events_and_batches(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    receiver.behaviour = support.down
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    await support.queued(ws, sub, 30)
    # Two workers at once, each with room for everything and a generous per-subscription cap.
    workers = [
        make_dispatcher(worker=name, concurrency=64, max_in_flight_per_subscription=16)
        for name in ("w1", "w2")
    ]

    for _ in range(10):  # retries come due as the clock moves on; nothing more is sent
        await asyncio.gather(*(w.run_once() for w in workers))
        fake_clock.advance(3600)

    assert len(receiver.requests) == 20
    row = await support.load_subscription(sub)
    assert (row.is_active, row.consecutive_failures, row.in_flight) == (False, 20, 0)
    assert row.deactivated_reason == "20 consecutive failed delivery attempts"
    assert await WebhookAttempt.count() == 20
