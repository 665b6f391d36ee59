"""Credentials in a URL: the delivery sends them; no log line, stored error or shown row
repeats the password (the command line prints what the domain functions return)."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import sys
from pathlib import Path

import msgspec
import pytest
from aiohttp import web

from models.logs import JsonFormatter
from models.tables import WebhookAttempt
from models.webhooks import deliveries, subscriptions
from tests.daemon import support
from tests.daemon.support import Receiver

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "s3cret"


def _with_credentials(url: str) -> str:
    return url.replace("http://", f"http://user:{PASSWORD}@", 1)


async def test_the_receiver_gets_basic_auth_and_nothing_shown_or_logged_has_the_password(
    make_dispatcher, receiver: Receiver, caplog: pytest.LogCaptureFixture
):
    ws = await support.workspace()
    url = _with_credentials(receiver.url())
    sub = await support.subscription(ws, url)
    [d] = await support.queued(ws, sub)
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="daemon.dispatch")  # successes are DEBUG lines

    assert await make_dispatcher().run_once() == 1

    [got] = receiver.requests
    assert (
        got.headers["Authorization"]
        == "Basic " + base64.b64encode(f"user:{PASSWORD}".encode()).decode()
    )
    assert (await support.load(d)).status == "succeeded"
    lines = [JsonFormatter().format(record) for record in caplog.records]
    assert any('"delivery attempt"' in line for line in lines)
    assert not [line for line in lines if PASSWORD in line]
    shown = [
        await subscriptions.get(sub.id),
        await subscriptions.list_for_workspace(ws.id),
        await subscriptions.disable(sub.id),
        await subscriptions.enable(sub.id),
        await deliveries.for_subscription(sub.id),
        await deliveries.get(d.id),
        await deliveries.attempts(d.id),
    ]
    assert PASSWORD not in msgspec.json.encode(shown).decode()
    masked = _with_credentials(receiver.url()).replace(PASSWORD, "****")
    assert (await subscriptions.get(sub.id))["url"] == masked


async def test_a_redirect_to_a_url_with_credentials_is_recorded_with_the_password_masked(
    make_dispatcher, receiver: Receiver
):
    async def moved(request: web.Request, _: int) -> web.StreamResponse:
        return web.Response(
            status=302, headers={"Location": _with_credentials(receiver.url("/new"))}
        )

    receiver.behaviour = moved
    ws = await support.workspace()
    sub = await support.subscription(ws, _with_credentials(receiver.url()))
    [d] = await support.queued(ws, sub)

    await make_dispatcher().run_once()

    [attempt] = await WebhookAttempt.objects().where(WebhookAttempt.delivery == d.id)
    expected = "HTTP 302: redirect not followed (Location: " + receiver.url("/new").replace(
        "http://", "http://user:****@"
    )
    assert attempt.error == expected + ")"
    assert (await support.load(d)).last_error == expected + ")"


async def test_the_worker_never_prints_the_database_password():
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://postgres:{PASSWORD}@127.0.0.1:1/pressline",
        "LOG_LEVEL": "DEBUG",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "daemon", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 1
    printed = (out + err).decode()
    assert '"message":"cannot open the database"' in printed
    assert '"database":"postgres://postgres:****@127.0.0.1:1/pressline"' in printed
    assert PASSWORD not in printed
