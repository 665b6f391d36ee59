"""The daemon as a whole, in process: the polling job, LISTEN wake-ups, graceful stop."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import asyncpg
import pytest
from aiohttp import web

from daemon import listen
from daemon.scheduler import HOUSEKEEPING_EVERY, HOUSEKEEPING_JOB, Daemon
from models import admin_sessions, login_throttle
from models.tables import (
    AdminSession,
    FailedLogin,
    IdempotencyKey,
    WebhookDelivery,
    WebhookEvent,
)
from models.webhooks import events as outbox
from tests import factories
from tests.daemon import support
from tests.daemon.conftest import config
from tests.daemon.support import Receiver


@pytest.fixture
async def start_daemon(backend: str) -> AsyncIterator[Callable[..., Any]]:
    started: list[Daemon] = []

    async def start(**overrides: Any) -> Daemon:
        daemon = Daemon(config(database_url=backend, **overrides), worker=f"d{len(started)}")
        await daemon.start()
        started.append(daemon)
        return daemon

    yield start
    for daemon in started:
        if not daemon._stopping:
            await daemon.stop()


async def test_the_polling_job_delivers_new_rows(start_daemon, receiver: Receiver):
    await start_daemon(poll_interval=0.2)
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    await asyncio.sleep(0.3)
    [d] = await support.queued(ws, sub)
    await receiver.wait_for(1, seconds=5)
    assert receiver.deliveries() == [d.public_id]


async def _listening(daemon: Daemon) -> None:
    assert daemon.listener is not None
    async with asyncio.timeout(10):
        await daemon.listener.connected.wait()
    await asyncio.sleep(0.2)  # let the wake-up that follows each (re)connect run


async def _record(ws_id: int, customer: Any) -> None:
    fields = {"order_number": "ORD-2026-0001", "from_stage": "print", "to_stage": "finishing"}
    await outbox.record_event(
        workspace_id=ws_id, name="order.stage_changed", fields=fields, customer_id=customer.id
    )


@pytest.mark.postgres_only
async def test_notify_wakes_the_daemon_long_before_the_next_poll(start_daemon, receiver: Receiver):
    ws = await factories.workspace()
    customer = await factories.customer(ws)
    await support.subscription(ws, receiver.url())
    daemon = await start_daemon(poll_interval=60)
    await _listening(daemon)

    began = time.monotonic()
    await _record(ws.id, customer)
    await receiver.wait_for(1, seconds=5)
    assert time.monotonic() - began < 2

    # The listening connection is cut: the daemon reconnects and wakes up again.
    assert daemon.listener is not None
    admin = await asyncpg.connect(daemon.config.database_url)
    try:
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = $1 AND datname = current_database()",
            listen.APPLICATION_NAME,
        )
    finally:
        await admin.close()
    async with asyncio.timeout(5):
        while True:  # wait for the daemon to notice
            if not daemon.listener.connected.is_set():
                break
            await asyncio.sleep(0.05)
    await _listening(daemon)
    began = time.monotonic()
    await _record(ws.id, customer)
    await receiver.wait_for(2, seconds=5)
    assert time.monotonic() - began < 2


async def test_stop_lets_short_attempts_finish(start_daemon, receiver: Receiver):
    async def slowish(_: web.Request, __: int) -> web.Response:
        await asyncio.sleep(0.5)
        return web.Response(text="ok")

    receiver.behaviour = slowish
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    daemon = await start_daemon(poll_interval=0.1, shutdown_grace=5.0)
    await receiver.wait_for(1)
    await daemon.stop()
    assert (await support.load(d)).status == "succeeded"
    assert not daemon.scheduler.running


async def test_stop_releases_what_cannot_finish_in_time(start_daemon, receiver: Receiver):
    async def stuck(_: web.Request, __: int) -> web.Response:
        await asyncio.sleep(30)
        return web.Response(text="too late")

    receiver.behaviour = stuck
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    deliveries = await support.queued(ws, sub, 3)
    daemon = await start_daemon(poll_interval=0.1, timeout=20.0, shutdown_grace=0.3)
    await receiver.wait_for(3)

    began = time.monotonic()
    await daemon.stop()
    assert time.monotonic() - began < 3
    for d in deliveries:
        row = await support.load(d)
        assert (row.status, row.attempts, row.leased_by, row.lease_expires_at) == (
            "pending",
            0,
            None,
            None,
        )
        assert row.next_attempt_at <= dt.datetime.now(dt.UTC)


async def test_the_worker_purges_expired_keys_and_old_outbox_history(start_daemon, receiver):
    daemon = await start_daemon(poll_interval=5)
    job = daemon.scheduler.get_job(HOUSEKEEPING_JOB)
    assert job is not None and job.trigger.interval == HOUSEKEEPING_EVERY
    ws = await factories.workspace()
    user = await factories.user(ws)
    now = daemon.now()
    for key, expires_at in (
        ("old", now - dt.timedelta(seconds=1)),
        ("live", now + dt.timedelta(hours=1)),
    ):
        await IdempotencyKey(
            user=user.id, key=key, request_hash="0" * 64, expires_at=expires_at
        ).save()
    sub = await support.subscription(ws, receiver.url())
    past = now - dt.timedelta(days=daemon.config.retention_days, seconds=1)
    recent = now - dt.timedelta(days=daemon.config.retention_days - 1)
    old = await support.delivery(
        await support.event(ws, created_at=past), sub, status="failed", updated_at=past
    )
    kept = await support.delivery(
        await support.event(ws, created_at=past), sub, status="failed", updated_at=recent
    )
    stale_session = await admin_sessions.create(user.id, ws.id, now - dt.timedelta(days=8))
    live_session = await admin_sessions.create(user.id, ws.id, now)
    await login_throttle.reserve("old@example.com", "", now - dt.timedelta(hours=1))
    await login_throttle.reserve("new@example.com", "", now)

    await daemon.housekeeping()

    sessions = await AdminSession.select(AdminSession.digest).output(as_list=True)
    assert sessions == [admin_sessions.digest(live_session)]
    assert admin_sessions.digest(stale_session) not in sessions
    assert await FailedLogin.select(FailedLogin.email).output(as_list=True) == ["new@example.com"]
    assert await IdempotencyKey.select(IdempotencyKey.key).output(as_list=True) == ["live"]
    remaining = await WebhookDelivery.select(WebhookDelivery.id).output(as_list=True)
    assert remaining == [kept.id]
    assert not await WebhookEvent.exists().where(WebhookEvent.id == old.event)
