"""One dedicated PostgreSQL connection in LISTEN on a channel, reconnecting whenever it is lost.

Shared by the worker's outbox wake-up (daemon/listen.py) and the web's live updates
(models/live.py). Reconnecting backs off (1, 2, 4 … 30 s) only while attempts keep failing
before the LISTEN is in place; once a connection has its LISTEN, the next loss waits the first
delay again. A server that refuses or drops connections during setup therefore sees fewer and
fewer attempts, and one that accepts the LISTEN and then drops it at once sees one attempt per
first delay (1 s): never a tight loop. After any number of passing blips, NOTIFY is back
within about a second, not after a backoff grown by the earlier losses.

Notifications sent while no connection listened are lost: `on_connected` runs each time the
LISTEN is (again) in place, for the caller to catch up from its tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import asyncpg

log = logging.getLogger("pressline.listen")

HEALTH_CHECK_EVERY = 30.0  # seconds; a silently dropped connection is noticed this late
FIRST_RECONNECT_DELAY = 1.0
MAX_RECONNECT_DELAY = 30.0


class Listener:
    """Holds one dedicated connection in LISTEN on `channel` and reconnects whenever it is lost;
    `on_notify` gets each notification's payload."""

    def __init__(
        self,
        dsn: str,
        *,
        channel: str,
        application_name: str,
        on_notify: Callable[[str], None],
        on_connected: Callable[[], None] | None = None,
    ) -> None:
        self.dsn = dsn
        self.channel = channel
        self.application_name = application_name
        self.on_notify = on_notify
        self.on_connected = on_connected
        self.connected = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._delay = FIRST_RECONNECT_DELAY

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"listen {self.channel}")

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task

    def _notified(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        self.on_notify(payload)

    async def _run(self) -> None:
        while not self._stop.is_set():
            try:
                await self._listen()
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
                delay = self._delay
                log.warning(
                    "LISTEN %s connection lost (%s); reconnecting in %g s", self.channel, exc, delay
                )
                await self._sleep(delay)
                self._delay = min(delay * 2, MAX_RECONNECT_DELAY)

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), timeout=seconds)

    async def _listen(self) -> None:
        conn = await asyncpg.connect(
            self.dsn, timeout=10, server_settings={"application_name": self.application_name}
        )
        lost = asyncio.Event()
        conn.add_termination_listener(lambda _: lost.set())
        try:
            await conn.add_listener(self.channel, self._notified)
            self._delay = FIRST_RECONNECT_DELAY  # a healthy connection: back off afresh
            self.connected.set()
            log.info("listening on %s", self.channel)
            if self.on_connected is not None:
                self.on_connected()  # whatever was recorded while nobody listened
            while not self._stop.is_set():
                waiters = [asyncio.ensure_future(event.wait()) for event in (lost, self._stop)]
                _, pending = await asyncio.wait(
                    waiters, timeout=HEALTH_CHECK_EVERY, return_when=asyncio.FIRST_COMPLETED
                )
                for waiter in pending:
                    waiter.cancel()
                if self._stop.is_set():
                    break
                if lost.is_set() or conn.is_closed():
                    raise ConnectionError("the server closed the connection")
                await conn.fetchval("SELECT 1", timeout=10)
        finally:
            self.connected.clear()
            if not conn.is_closed():
                try:
                    await asyncio.wait_for(conn.close(), timeout=5)
                except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
                    conn.terminate()
