"""`GET /admin/stream`: the workspace's order changes as Server-Sent Events, for the pages that
patch themselves (static/live.js).

Each event is one `webhook_events` row of an order of the session's workspace:
`id: <row id>`, `event: order`, `data: {"order_id": …, "name": …}` (the page re-reads what it
shows, so nothing else is sent); a change to an order's timeline that records no event (an
email's progress, an invoice page opened: models/live.py) is the same without `id:`. A client
that reconnects with `Last-Event-ID` first gets the rows it missed; more than
models/live.CATCH_UP_LIMIT missed is one `event: reset`, and so is a catch-up after changes
were dropped (a full queue, a lost LISTEN connection), sent after the rows it read. A comment
every HEARTBEAT_SECONDS keeps proxies from closing a quiet stream.

Without a session the answer is 401 (EventSource cannot follow a redirect to the login page,
and a 401 stops its reconnecting). An open stream holds no database connection: it waits on
its process's in-memory queue, reads the table only to catch up, and checks once a minute
that its session is still good (ending when it is not). On SIGTERM or SIGINT every stream ends
at once, so the server's graceful stop does not wait for them.
"""

from __future__ import annotations

import asyncio
import re
import signal
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from types import FrameType
from typing import Any

import msgspec
from litestar import Litestar, Request, Response, get
from litestar.response import Stream

from api.admin.security import HEADERS, NotLoggedIn
from models import admin_sessions, live
from models.admin_sessions import AdminUser
from models.filters import MAX_ID

HEARTBEAT_SECONDS = 15.0
SESSION_CHECK_SECONDS = 60.0  # how often an open stream reads its session again
RETRY_MS = 1000  # how soon EventSource reconnects after the stream ends
_EVENT_ID = re.compile(r"[0-9]{1,10}")


def order_event(change: live.Change) -> bytes:
    """`event: order` with the row's id; a change without a row (live.NOT_AN_EVENT) has no
    `id:`, so the browser's Last-Event-ID stays the last row's."""
    data = msgspec.json.encode({"order_id": change.order_id, "name": change.name})
    if change.id == live.NOT_AN_EVENT:
        return b"event: order\ndata: %s\n\n" % data
    return b"id: %d\nevent: order\ndata: %s\n\n" % (change.id, data)


def reset_event(event_id: int | None = None) -> bytes:
    """The page reloads its regions; with the id of the newest row when it replaces rows."""
    if event_id is None:
        return b"event: reset\ndata: {}\n\n"
    return b"id: %d\nevent: reset\ndata: {}\n\n" % event_id


def last_event_id(value: str | None) -> int | None:
    """The header EventSource sends on reconnecting: the id of the last event it received.
    Anything but ASCII digits naming an id a row can have (below 2**31) is ignored, as if the
    header were absent: `str.isdigit` takes superscripts that `int` refuses, and a larger id
    is refused by PostgreSQL's integer column."""
    if value is None or not _EVENT_ID.fullmatch(value):
        return None
    number = int(value)
    return number if number <= MAX_ID else None


async def events(user: AdminUser, resume_after: int | None) -> AsyncIterator[bytes]:
    """The stream's body; ends when the server stops or the session is no longer good."""
    subscription = live.FEED.subscribe(user.workspace_id)
    try:
        if resume_after is None:
            cursor = await live.FEED.cursor()
        else:
            cursor = resume_after
            subscription.fall_behind()
        yield b"retry: %d\n: open\n\n" % RETRY_MS
        caught_up: set[int] = set()  # sent by the last catch-up; the queue may hold them too
        reset_to = 0  # a reset covers every change up to its id, whenever its NOTIFY arrives
        loop = asyncio.get_running_loop()
        checked_at = loop.time()
        while True:
            ready = await subscription.wait(HEARTBEAT_SECONDS)
            if loop.time() - checked_at >= SESSION_CHECK_SECONDS:
                if not await admin_sessions.still_good(user.session_id):
                    return
                checked_at = loop.time()
            if not ready:
                yield b": heartbeat\n\n"
                continue
            if subscription.closed:
                return
            if subscription.behind:
                subscription.behind = False
                missed = await live.since(user.workspace_id, cursor)
                if missed.reset_to is not None:
                    cursor = reset_to = missed.reset_to
                    caught_up = set()
                    subscription.refresh = False
                    subscription.changes.clear()
                    yield reset_event(cursor)
                    continue
                caught_up = {change.id for change in missed.changes}
                for change in missed.changes:
                    cursor = max(cursor, change.id)
                    yield order_event(change)
                if subscription.refresh:  # changes without a row were dropped with the queue
                    subscription.refresh = False
                    yield reset_event()
            while subscription.changes:
                change = subscription.changes.popleft()
                if change.id == live.NOT_AN_EVENT:  # no row: never caught up nor a cursor
                    yield order_event(change)
                    continue
                if change.id in caught_up or change.id <= reset_to:
                    continue
                cursor = max(cursor, change.id)
                yield order_event(change)
    finally:
        live.FEED.unsubscribe(subscription)


def not_logged_in(_: Request[Any, Any, Any], __: NotLoggedIn) -> Response[str]:
    return Response(
        "Log in to the admin first.\n",
        status_code=401,
        media_type="text/plain",
        headers={**HEADERS, "Cache-Control": "no-store"},
    )


@get("/stream", exception_handlers={NotLoggedIn: not_logged_in}, include_in_schema=False)
async def stream(request: Request[AdminUser, Any, Any]) -> Stream:
    """The session's workspace's order changes, as they are committed."""
    resume_after = last_event_id(request.headers.get("last-event-id"))
    return Stream(
        events(request.user, resume_after),
        media_type="text/event-stream",
        headers={
            **HEADERS,
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",  # nginx: pass each event on at once
        },
    )


def _ending_streams_on(signals: tuple[signal.Signals, ...]) -> Callable[[], None]:
    """Chain a handler before the server's own for `signals` that ends every open stream, so
    a graceful stop does not wait out its timeout for them (uvicorn lets responses in flight
    finish before the lifespan's shutdown runs). Returns the undo."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None  # signals reach the main thread only (a test server's thread)
    loop = asyncio.get_running_loop()
    installed: dict[signal.Signals, Any] = {}
    for number in signals:
        previous = signal.getsignal(number)
        if not callable(previous):
            continue

        def handler(
            sig: int, frame: FrameType | None, previous: Callable[..., Any] = previous
        ) -> None:
            loop.call_soon_threadsafe(live.FEED.close)
            previous(sig, frame)

        signal.signal(number, handler)
        installed[number] = (handler, previous)

    def undo() -> None:
        for number, (handler, previous) in installed.items():
            if signal.getsignal(number) is handler:
                signal.signal(number, previous)

    return undo


@asynccontextmanager
async def live_updates(_: Litestar) -> AsyncIterator[None]:
    """The process's LISTEN connection (PostgreSQL) for the life of the web process."""
    await live.start()
    undo = _ending_streams_on((signal.SIGTERM, signal.SIGINT))
    try:
        yield
    finally:
        undo()
        await live.stop()
