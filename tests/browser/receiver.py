"""A real webhook receiver on its own thread (the browser tests are synchronous): it answers
200, or 500 with hostile content, and keeps what it received."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

from aiohttp import web

HOSTILE_BODY = b"<script>alert('receiver')</script><img src=x onerror=alert(1)> \xff\xfe bad bytes"


class ThreadedReceiver:
    def __init__(self) -> None:
        self.failing = False
        self.received: list[dict[str, Any]] = []
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/hooks"
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._serve, daemon=True)

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.received.append({"headers": dict(request.headers), "body": body})
        if self.failing:
            return web.Response(
                status=500,
                body=HOSTILE_BODY,
                headers={"X-Evil": "<script>alert('header')</script>"},
                content_type="text/html",
            )
        return web.Response(status=200, text="thanks")

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_post("/hooks", self._handle)
        self._runner = web.AppRunner(app)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        self._loop.run_until_complete(site.start())
        self._started.set()
        self._loop.run_forever()

    def start(self) -> ThreadedReceiver:
        self._thread.start()
        self._started.wait(10)
        return self

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
