"""`GET /admin/stream` (models/live.py, api/admin/stream.py): the session's workspace's order
changes as Server-Sent Events, on both databases.

httpx's ASGI transport hands back a response only once its body has ended, so the stream is
read here by calling the application directly, as a server would, a message at a time."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar

from api.admin import stream as stream_module
from models import admin_sessions, live
from models.actors import OPERATOR
from models.orders.stage_moves import advance_order
from models.tables import Order, Workspace
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import log_in, member

WAIT = 5.0


class Opened:
    """One streamed GET: the status, the headers and the body as it arrives."""

    def __init__(self) -> None:
        self.status = 0
        self.headers: dict[str, str] = {}
        self.chunks: asyncio.Queue[bytes] = asyncio.Queue()
        self.text = ""
        self.ended = asyncio.Event()

    async def read_until(self, wanted: str, seconds: float = WAIT) -> str:
        """The body so far, once it contains `wanted` (fails after `seconds`)."""
        deadline = asyncio.get_running_loop().time() + seconds
        while wanted not in self.text:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0 or (self.ended.is_set() and self.chunks.empty()):
                pytest.fail(f"{wanted!r} not in the stream: {self.text!r}")
            try:
                self.text += (await asyncio.wait_for(self.chunks.get(), left)).decode()
            except TimeoutError:
                continue
        return self.text

    async def quiet_for(self, seconds: float) -> str:
        """What arrived within `seconds` (nothing is expected)."""
        await asyncio.sleep(seconds)
        while not self.chunks.empty():
            self.text += self.chunks.get_nowait().decode()
        return self.text

    def events(self) -> list[dict[str, Any]]:
        found = []
        for block in self.text.split("\n\n"):
            fields = dict(
                line.split(": ", 1) for line in block.splitlines() if not line.startswith(":")
            )
            if "event" in fields:
                data = json.loads(fields["data"])
                found.append({"id": int(fields["id"]), "event": fields["event"], **data})
        return found


@asynccontextmanager
async def opened(
    app: Litestar, client: httpx.AsyncClient, headers: dict[str, str] | None = None
) -> AsyncIterator[Opened]:
    """GET /admin/stream with `client`'s cookies; the client goes away on leaving."""
    cookie = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
    raw = [(b"host", b"testserver"), (b"accept", b"text/event-stream")]
    raw += [(b"cookie", cookie.encode())] if cookie else []
    # Header values as a server hands them on: bytes that read back as latin-1.
    raw += [(k.lower().encode(), v.encode("latin-1")) for k, v in (headers or {}).items()]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": "/admin/stream", "raw_path": b"/admin/stream",
        "query_string": b"", "root_path": "", "headers": raw,
        "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
    }  # fmt: skip
    result = Opened()
    started = asyncio.Event()
    gone = asyncio.Event()
    requested = False

    async def receive() -> dict[str, Any]:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            result.status = message["status"]
            result.headers = {k.decode(): v.decode() for k, v in message["headers"]}
            started.set()
        elif message["type"] == "http.response.body":
            if message.get("body"):
                result.chunks.put_nowait(message["body"])
            if not message.get("more_body"):
                result.ended.set()

    task = asyncio.create_task(app(scope, receive, send))  # type: ignore[arg-type]
    try:
        await asyncio.wait_for(started.wait(), WAIT)
        yield result
    finally:
        gone.set()
        await asyncio.wait_for(task, WAIT)


async def _order(ws: Workspace) -> Order:
    return await factories.order(ws, await factories.customer(ws))


async def _move(order: Order, to_stage: str) -> None:
    await advance_order(
        workspace_id=order.workspace, order_id=order.id, to_stage=to_stage, actor=OPERATOR
    )


async def _other_shop(app: Litestar) -> tuple[Workspace, httpx.AsyncClient]:
    ws = await factories.workspace()
    owner = await member(ws, role="owner")
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")
    assert (await log_in(client, owner.email)).status_code == 303
    return ws, client


async def test_no_session_is_a_401_not_a_login_page(app: Litestar, browser: httpx.AsyncClient):
    async with opened(app, browser) as answer:
        await answer.read_until("Log in")
    assert answer.status == 401
    assert "location" not in answer.headers
    assert answer.headers["content-security-policy"].startswith("default-src 'self'")


async def test_a_change_arrives_on_its_workspace_stream_only(app: Litestar, shop: Shop):
    order = await _order(shop.ws)
    other_ws, other_client = await _other_shop(app)
    other_order = await _order(other_ws)
    async with (
        opened(app, shop.client) as mine,
        opened(app, other_client) as theirs,
    ):
        assert mine.status == 200
        assert mine.headers["content-type"].startswith("text/event-stream")
        assert mine.headers["content-security-policy"].startswith("default-src 'self'")
        assert mine.headers["cache-control"] == "no-store"
        await mine.read_until(": open")
        await theirs.read_until(": open")
        await _move(order, "print_queue")
        await mine.read_until("event: order")
        assert [(e["order_id"], e["name"]) for e in mine.events()] == [
            (order.id, "order.stage_changed")
        ]
        assert "event:" not in await theirs.quiet_for(0.3)
        await _move(other_order, "print_queue")
        await theirs.read_until("event: order")
        assert [e["order_id"] for e in theirs.events()] == [other_order.id]
        assert [e["order_id"] for e in (mine.events())] == [order.id]
    await other_client.aclose()


async def test_a_rolled_back_change_is_never_sent(app: Litestar, shop: Shop):
    order = await _order(shop.ws)
    async with opened(app, shop.client) as answer:
        await answer.read_until(": open")
        with pytest.raises(ValueError, match="refused"):
            from models import db

            async with db.transaction():
                await _move(order, "print_queue")
                raise ValueError("refused")
        assert "event:" not in await answer.quiet_for(0.3)


async def test_last_event_id_resumes_with_exactly_the_missed_events(app: Litestar, shop: Shop):
    order = await _order(shop.ws)
    other_ws, other_client = await _other_shop(app)
    await other_client.aclose()
    async with opened(app, shop.client) as first:
        await first.read_until(": open")
        await _move(order, "print_queue")
        await first.read_until("event: order")
        seen = first.events()[-1]["id"]
    # Missed while no stream was open: two of this workspace's changes, one of another's.
    await _move(order, "in_production")
    await _move(await _order(other_ws), "print_queue")
    await _move(order, "qc_pack")
    async with opened(app, shop.client, {"Last-Event-ID": str(seen)}) as resumed:
        await resumed.read_until("event: order")
        await resumed.quiet_for(0.3)
        missed = resumed.events()
    assert [e["order_id"] for e in missed] == [order.id, order.id]
    assert all(e["id"] > seen for e in missed)
    assert missed == sorted(missed, key=lambda e: e["id"])
    # A new stream without Last-Event-ID starts from now.
    async with opened(app, shop.client) as fresh:
        await fresh.read_until(": open")
        assert "event:" not in await fresh.quiet_for(0.3)


@pytest.mark.parametrize(
    "value", ["\u00b2", "1\u00b2", "99999999999", "2147483648", "-1", "1e3", "+1", " 1", "0x1"]
)
async def test_a_last_event_id_no_row_can_have_is_ignored(app: Litestar, shop: Shop, value: str):
    """Not ASCII digits below 2**31 (a superscript two, which `str.isdigit` takes and `int`
    refuses; an id past PostgreSQL's integer): the stream opens as without the header."""
    order = await _order(shop.ws)
    await _move(order, "print_queue")  # before the stream: a resumed stream would send it
    async with opened(app, shop.client, {"Last-Event-ID": value}) as answer:
        assert answer.status == 200
        await answer.read_until(": open")
        assert "event:" not in await answer.quiet_for(0.2)
        await _move(order, "in_production")
        await answer.read_until("event: order")
    assert [e["order_id"] for e in answer.events()] == [order.id]


async def test_more_missed_than_the_catch_up_limit_is_one_reset(
    app: Litestar, shop: Shop, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(live, "CATCH_UP_LIMIT", 2)
    order = await _order(shop.ws)
    for stage in ("print_queue", "in_production", "qc_pack"):
        await _move(order, stage)
    async with opened(app, shop.client, {"Last-Event-ID": "0"}) as answer:
        await answer.read_until("event: reset")
        await answer.quiet_for(0.2)
    assert [e["event"] for e in answer.events()] == ["reset"]


async def test_a_quiet_stream_sends_heartbeats(
    app: Litestar, shop: Shop, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(stream_module, "HEARTBEAT_SECONDS", 0.1)
    async with opened(app, shop.client) as answer:
        text = await answer.read_until(": heartbeat\n\n: heartbeat\n\n")
    assert "event:" not in text


async def test_a_stream_ends_when_its_session_is_logged_out(
    app: Litestar, shop: Shop, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(stream_module, "HEARTBEAT_SECONDS", 0.05)
    monkeypatch.setattr(stream_module, "SESSION_CHECK_SECONDS", 0.1)
    from models.tables import AdminSession

    async with opened(app, shop.client) as answer:
        await answer.read_until(": heartbeat")
        await AdminSession.delete().where(AdminSession.user == shop.owner.id)
        await asyncio.wait_for(answer.ended.wait(), WAIT)


async def test_a_full_queue_is_dropped_and_read_from_the_table(
    app: Litestar, shop: Shop, monkeypatch: pytest.MonkeyPatch
):
    """A slow stream never holds more than QUEUE_LIMIT changes: past it, it catches up."""
    monkeypatch.setattr(live, "QUEUE_LIMIT", 1)
    order = await _order(shop.ws)
    subscription = live.FEED.subscribe(shop.ws.id)
    try:
        for stage in ("print_queue", "in_production"):
            await _move(order, stage)
        for _ in range(int(WAIT / 0.02)):  # PostgreSQL's notifications arrive after commit
            if subscription.behind:
                break
            await asyncio.sleep(0.02)
        assert subscription.behind
        assert len(subscription.changes) <= 1
    finally:
        live.FEED.unsubscribe(subscription)


async def test_closing_the_feed_ends_every_stream(app: Litestar, shop: Shop):
    """What SIGTERM does (api/admin/stream.py): streams end, so the server stops at once."""
    async with opened(app, shop.client) as answer:
        await answer.read_until(": open")
        live.FEED.close()
        try:
            await asyncio.wait_for(answer.ended.wait(), WAIT)
        finally:
            live.FEED.closed = False


async def test_the_web_process_stops_at_once_on_sigterm_with_streams_open(
    backend: str, tmp_path: Path
):
    """`python -m api` (the Procfile's web) waits up to 25 s for requests in flight on SIGTERM;
    open streams end at the signal instead of holding it."""
    ws = await factories.workspace()
    owner = await member(ws, role="owner")
    cookie = await admin_sessions.create(owner.id, ws.id)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "DATABASE_URL": backend, "PORT": str(port), "LOG_LEVEL": "WARNING"}
    log = (tmp_path / "web.log").open("wb")
    web = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "api", "--host", "127.0.0.1", env=env, stdout=log, stderr=log
    )
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
            for _ in range(150):
                try:
                    if (await client.get("/health")).status_code == 200:
                        break
                except httpx.HTTPError:
                    await asyncio.sleep(0.2)
            client.cookies.set("pressline_session", cookie)
            streams = [client.stream("GET", "/admin/stream") for _ in range(3)]
            answers = [await s.__aenter__() for s in streams]
            assert [a.status_code for a in answers] == [200, 200, 200]
            bodies = [answer.aiter_raw() for answer in answers]
            for body in bodies:
                assert b": open" in await anext(body)
            began = time.monotonic()
            web.send_signal(signal.SIGTERM)
            code = await asyncio.wait_for(web.wait(), 20)
            took = time.monotonic() - began
            for body in bodies:  # each stream ended (no error: its body is complete)
                assert [chunk async for chunk in body] == []
            for s in streams:
                await s.__aexit__(None, None, None)
        assert code == 0
        assert took < 5, f"{took:.1f} s to stop"
    finally:
        if web.returncode is None:
            web.kill()
            await web.wait()
        log.close()


async def test_postgres_announces_an_order_event_at_commit_only(backend: str, shop: Shop):
    """The row's trigger sends the payload models/live.py reads, when the change commits."""
    if not backend.startswith("postgres"):
        pytest.skip("LISTEN/NOTIFY is PostgreSQL only")
    import asyncpg

    from models import db

    order = await _order(shop.ws)
    received: asyncio.Queue[str] = asyncio.Queue()
    listener = await asyncpg.connect(backend)
    try:
        await listener.add_listener(live.CHANNEL, lambda *args: received.put_nowait(args[3]))
        async with db.transaction():
            await _move(order, "print_queue")
            await asyncio.sleep(0.2)
            assert received.empty()  # nothing before commit
        payload = await asyncio.wait_for(received.get(), WAIT)
    finally:
        await listener.close()
    change = live.decode(payload)
    assert change is not None
    assert payload == f"{shop.ws.id}:{change.id}:{order.id}:order.stage_changed"
    assert (change.workspace_id, change.order_id, change.name) == (
        shop.ws.id,
        order.id,
        "order.stage_changed",
    )
