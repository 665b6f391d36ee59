"""One attempt against a real receiver: signing, exact bytes, retries, and what is recorded."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import socket

import pytest
from aiohttp import web

from models import logs
from models.tables import WebhookAttempt
from tests.daemon import support
from tests.daemon.support import FakeClock, Receiver


async def attempts_of(delivery_id: int) -> list[WebhookAttempt]:
    return (
        await WebhookAttempt.objects()
        .where(WebhookAttempt.delivery == delivery_id)
        .order_by(WebhookAttempt.id)
    )


async def test_signed_post_carries_the_exact_stored_bytes(make_dispatcher, receiver: Receiver):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    # Odd spacing and non-ASCII text: the bytes must go out exactly as recorded.
    body = '{"event":"order.dispatched",  "event_id":"e-1","customer":{"name":"Café ✓"}}'
    ev = await support.event(ws, "order.dispatched", body=body)
    d = await support.delivery(ev, sub)

    assert await make_dispatcher().run_once() == 1

    [got] = receiver.requests
    assert got.signature_ok
    assert got.body == body.encode("utf-8")
    assert got.headers["X-SVC-Event"] == "order.dispatched"
    assert got.headers["User-Agent"] == "Service-Webhooks/1.0"
    assert got.headers["Content-Type"] == "application/json"
    assert got.headers["X-SVC-Delivery"] == got.headers["webhook-id"] == d.public_id
    assert got.headers["X-SVC-Workspace"] == str(ws.id)
    assert got.headers["X-SVC-Attempt"] == "1"
    row = await support.load(d)
    assert (row.status, row.attempts, row.last_status_code) == ("succeeded", 1, 200)
    assert row.completed_at is not None
    assert row.lease_expires_at is None and row.leased_by is None
    [attempt] = await attempts_of(d.id)
    assert (attempt.number, attempt.status_code, attempt.error) == (1, 200, None)
    assert json.loads(attempt.response_body) == {"ok": True}
    assert json.loads(attempt.response_headers)["Content-Type"].startswith("application/json")
    assert attempt.worker == "test-worker" and attempt.duration_ms >= 0
    assert (attempt.response_truncated, attempt.response_length) == (False, 12)


async def test_a_receiver_with_another_secret_rejects_and_the_attempt_fails(
    make_dispatcher, receiver: Receiver
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url(), secret="not-the-receivers-secret")
    [d] = await support.queued(ws, sub)
    await make_dispatcher().run_once()
    assert not receiver.requests[0].signature_ok
    row = await support.load(d)
    assert (row.status, row.last_status_code, row.last_error) == ("pending", 401, "HTTP 401")


async def test_failed_attempts_are_logged_at_info_and_successes_at_debug(
    make_dispatcher, receiver: Receiver, caplog: pytest.LogCaptureFixture
):
    async def by_path(request: web.Request, _: int) -> web.Response:
        return web.Response(status=200 if request.path == "/ok" else 503)

    receiver.behaviour = by_path
    ws = await support.workspace()
    ok = await support.subscription(ws, receiver.url("/ok"))
    down = await support.subscription(ws, receiver.url("/down"))
    [good] = await support.queued(ws, ok)
    [bad] = await support.queued(ws, down)
    caplog.set_level(logging.DEBUG, logger="daemon.dispatch")

    assert await make_dispatcher().run_once() == 2

    lines = {}
    for record in caplog.records:
        if record.getMessage() == "delivery attempt":
            f = getattr(record, logs.FIELDS)
            lines[f["delivery_id"]] = (
                record.levelname, f["status_code"], f["error"], f["delivery_status"]
            )  # fmt: skip
    assert lines == {
        good.id: ("DEBUG", 200, None, "succeeded"),
        bad.id: ("INFO", 503, "HTTP 503", "pending"),
    }


async def test_server_errors_are_retried_on_the_schedule_then_fail(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    async def boom(_: web.Request, __: int) -> web.Response:
        return web.Response(status=500, text="boom")

    receiver.behaviour = boom
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    dispatcher = make_dispatcher()

    assert await dispatcher.run_once() == 1
    for wait in (60, 300, 900, 3600):
        row = await support.load(d)
        assert row.status == "pending"
        assert row.next_attempt_at == fake_clock() + dt.timedelta(seconds=wait)
        fake_clock.advance(wait - 1)
        assert await dispatcher.run_once() == 0, f"sent before the {wait} s wait was over"
        fake_clock.advance(1)
        assert await dispatcher.run_once() == 1

    row = await support.load(d)
    assert (row.status, row.attempts, row.last_status_code) == ("failed", 5, 500)
    assert row.completed_at == fake_clock()
    fake_clock.advance(24 * 3600)
    assert await dispatcher.run_once() == 0
    assert [r.headers["X-SVC-Attempt"] for r in receiver.requests] == ["1", "2", "3", "4", "5"]
    assert set(receiver.deliveries()) == {d.public_id}
    assert {r.body for r in receiver.requests} == {receiver.requests[0].body}
    attempts = await attempts_of(d.id)
    assert [(a.number, a.status_code, a.response_body) for a in attempts] == [
        (n, 500, "boom") for n in range(1, 6)
    ]
    assert (await support.load_subscription(sub)).consecutive_failures == 5


async def test_a_timeout_is_a_failure_and_the_retry_succeeds(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    async def slow_first(_: web.Request, n: int) -> web.Response:
        if n == 1:
            await asyncio.sleep(3)
        return web.Response(text="fine")

    receiver.behaviour = slow_first
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    dispatcher = make_dispatcher(timeout=0.3)

    await dispatcher.run_once()
    [first] = await attempts_of(d.id)
    assert first.status_code is None
    assert first.error == "timeout: no complete response within 0.3 s"
    assert 250 <= first.duration_ms < 2000
    fake_clock.advance(60)
    await dispatcher.run_once()
    row = await support.load(d)
    assert (row.status, row.attempts) == ("succeeded", 2)
    assert (await support.load_subscription(sub)).consecutive_failures == 0


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_refused_connection_is_a_failure_retried_after_a_minute(
    make_dispatcher, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, f"http://127.0.0.1:{_closed_port()}/hook")
    [d] = await support.queued(ws, sub)
    dispatcher = make_dispatcher()
    await dispatcher.run_once()
    row = await support.load(d)
    assert row.status == "pending" and row.last_status_code is None
    assert row.last_error is not None and row.last_error.startswith("connection failed: 127.0.0.1")
    fake_clock.advance(59)
    assert await dispatcher.run_once() == 0
    fake_clock.advance(1)
    assert await dispatcher.run_once() == 1
    assert [a.number for a in await attempts_of(d.id)] == [1, 2]


async def test_redirects_are_failures_and_are_not_followed(make_dispatcher, receiver: Receiver):
    async def redirect(request: web.Request, __: int) -> web.Response:
        if request.path == "/hook":
            raise web.HTTPFound("/elsewhere")
        return web.Response(text="should never be reached")

    receiver.behaviour = redirect
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url("/hook"))
    [d] = await support.queued(ws, sub)
    await make_dispatcher().run_once()
    assert [r.path for r in receiver.requests] == ["/hook"]
    row = await support.load(d)
    assert (row.status, row.last_status_code) == ("pending", 302)
    assert row.last_error == "HTTP 302: redirect not followed (Location: /elsewhere)"
    assert (await support.load_subscription(sub)).consecutive_failures == 1


async def test_response_bodies_are_kept_up_to_64_kib(make_dispatcher, receiver: Receiver):
    async def sized(request: web.Request, __: int) -> web.StreamResponse:
        size = int(request.path.rsplit("/", 1)[1])
        if request.path.startswith("/chunked"):
            response = web.StreamResponse()
            response.enable_chunked_encoding()
            await response.prepare(request)
            for _ in range(size // 1000):
                await response.write(b"x" * 1000)
            await response.write_eof()
            return response
        return web.Response(body=b"y" * size)

    receiver.behaviour = sized
    ws = await support.workspace()
    cases = {"/plain/65536": (65536, False), "/plain/100000": (100000, True)}
    cases["/chunked/200000"] = (200000, True)
    deliveries = {}
    for path in cases:
        sub = await support.subscription(ws, receiver.url(path))
        [deliveries[path]] = await support.queued(ws, sub)
    await make_dispatcher().run_once()
    for path, (length, truncated) in cases.items():
        [attempt] = await attempts_of(deliveries[path].id)
        assert attempt.status_code == 200
        assert (attempt.response_length, attempt.response_truncated) == (length, truncated)
        assert len(attempt.response_body) == min(length, 64 * 1024)


async def test_private_targets_are_refused_when_not_allowed(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    ws = await support.workspace()
    port = receiver.base_url.rsplit(":", 1)[1]
    literal = await support.subscription(ws, receiver.url())  # http://127.0.0.1:port
    named = await support.subscription(ws, f"http://localhost:{port}/hook")
    [by_literal] = await support.queued(ws, literal)
    [by_name] = await support.queued(ws, named)

    await make_dispatcher(allow_private_targets=False).run_once()

    assert receiver.requests == []
    literal_row, named_row = await support.load(by_literal), await support.load(by_name)
    assert literal_row.last_error == (
        "refused target 127.0.0.1: 127.0.0.1 is loopback address "
        "(set WEBHOOK_ALLOW_PRIVATE_TARGETS=1 to allow)"
    )
    # The name is resolved first; what is refused is the address it resolved to.
    assert named_row.last_error is not None
    assert named_row.last_error.startswith("refused target localhost: ")
    assert "is loopback address" in named_row.last_error
    for row in (literal_row, named_row):
        assert row.status == "pending" and row.attempts == 1
    assert (await support.load_subscription(named)).consecutive_failures == 1

    # With the operator setting on, the retries go through.
    fake_clock.advance(60)
    assert await make_dispatcher(allow_private_targets=True).run_once() == 2
    assert sorted(receiver.deliveries()) == sorted([by_literal.public_id, by_name.public_id])


async def test_numeric_shorthands_for_loopback_never_reach_it(make_dispatcher, receiver: Receiver):
    ws = await support.workspace()
    port = receiver.base_url.rsplit(":", 1)[1]
    rows = []
    for host in ("127.1", "2130706433", "0x7f.0.0.1", "[::ffff:127.0.0.1]"):
        sub = await support.subscription(ws, f"http://{host}:{port}/hook")
        rows += await support.queued(ws, sub)
    await make_dispatcher(allow_private_targets=False).run_once()
    assert receiver.requests == []
    for d in rows:
        row = await support.load(d)
        assert row.attempts == 1 and row.last_status_code is None and row.last_error


async def test_an_integer_host_for_loopback_is_refused_by_pressline_and_never_sent(
    make_dispatcher, receiver: Receiver
):
    ws = await support.workspace()
    port = receiver.base_url.rsplit(":", 1)[1]
    sub = await support.subscription(ws, f"http://2130706433:{port}/hook")
    [d] = await support.queued(ws, sub)

    await make_dispatcher(allow_private_targets=False).run_once()

    assert receiver.requests == []
    row = await support.load(d)
    [attempt] = await attempts_of(d.id)
    refused = (
        "refused target 2130706433: 127.0.0.1 is loopback address "
        "(set WEBHOOK_ALLOW_PRIVATE_TARGETS=1 to allow)"
    )
    assert (attempt.status_code, attempt.error) == (None, refused)
    assert (row.status, row.attempts, row.last_error) == ("pending", 1, refused)
