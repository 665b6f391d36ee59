"""Fair delivery: receivers that hang never delay another subscription."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from daemon.scheduler import Daemon
from models.tables import WebhookSubscription
from tests.daemon import support
from tests.daemon.conftest import config
from tests.daemon.support import Receiver

HANGING = 50
BACKLOG = 6  # deliveries queued for each hanging subscription
HEALTHY_EVENTS = 40


@pytest.fixture
async def hanging() -> AsyncIterator[list[str]]:
    """HANGING receivers on 127.0.0.1, each on its own port: they accept, then never answer."""
    forever = asyncio.Event()

    async def hang(_: web.Request) -> web.Response:
        await forever.wait()
        return web.Response(text="never")

    app = web.Application()
    app.router.add_route("POST", "/{tail:.*}", hang)
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5)
    await runner.setup()
    for _ in range(HANGING):
        await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield [f"http://{host}:{port}/hook" for host, port, *_ in runner.addresses]
    forever.set()
    await runner.cleanup()


async def test_a_healthy_subscription_gets_every_event_within_a_second_beside_50_hanging(
    backend: str, hanging: list[str], receiver: Receiver
):
    ws = await support.workspace()
    for url in hanging:
        sub = await support.subscription(ws, url)
        await support.queued(ws, sub, BACKLOG)
    healthy = await support.subscription(ws, receiver.url())
    arrived: dict[str, float] = {}

    async def note(request: web.Request, _: int) -> web.Response:
        arrived[request.headers["X-SVC-Delivery"]] = time.monotonic()
        return web.Response(text="ok")

    receiver.behaviour = note
    daemon = Daemon(config(poll_interval=0.2, timeout=3.0, lease=10.0, concurrency=1024))
    await daemon.start()
    try:
        committed: dict[str, float] = {}
        for _ in range(HEALTHY_EVENTS):  # over ~4 s: before, during and after the timeouts
            [row] = await support.queued(ws, healthy)
            committed[row.public_id] = time.monotonic()
            await asyncio.sleep(0.1)
        await receiver.wait_for(HEALTHY_EVENTS, seconds=15)
        held = await WebhookSubscription.select(WebhookSubscription.in_flight).where(
            WebhookSubscription.id != healthy.id
        )
    finally:
        await daemon.stop()

    latencies = sorted(arrived[d] - committed[d] for d in committed)
    p99 = latencies[int(0.99 * (len(latencies) - 1))]
    assert set(arrived) == set(committed)
    assert p99 < 1.0, latencies
    # No hanging subscription ever held more than its cap.
    assert max(row["in_flight"] for row in held) <= 4
