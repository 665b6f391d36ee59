"""A real SMTP server (aiosmtpd) on 127.0.0.1 in the test's own event loop, recording what it
accepted and answering as a test tells it to."""

from __future__ import annotations

import asyncio
import email
import socket
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.policy import default
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session

# (n = 1 for the first DATA the server sees) → the reply, e.g. "250 OK" or "451 Try later".
Behaviour = Callable[[int], Awaitable[str]]


async def accept(_: int) -> str:
    return "250 Message accepted for delivery"


@dataclass
class Received:
    sender: str
    recipients: list[str]
    message: EmailMessage
    raw: bytes = b""  # the DATA as it came

    def text(self) -> str:
        part = self.message.get_body(preferencelist=("plain",))
        assert part is not None
        return str(part.get_content())

    def html(self) -> str:
        part = self.message.get_body(preferencelist=("html",))
        assert part is not None
        return str(part.get_content())


@dataclass
class MailServer:
    """Every DATA is counted (`attempts`, the Message-ID of the n-th in `data_ids[n]`); only
    those answered 250 land in `received`."""

    behaviour: Behaviour = accept
    # Awaited after a message is accepted (counted in `received`), before the 250 is sent: a
    # server that has taken the message while its sender has not heard so yet.
    before_reply: Callable[[int], Awaitable[None]] = field(default=lambda _: asyncio.sleep(0))
    received: list[Received] = field(default_factory=list)
    attempts: int = 0
    data_ids: dict[int, str] = field(default_factory=dict)
    port: int = 0
    server: asyncio.Server | None = None
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def handle_DATA(self, _: SMTP, __: Session, envelope: Envelope) -> str:
        self.attempts += 1
        raw = envelope.original_content or b""
        message = email.message_from_bytes(raw, policy=default)
        assert isinstance(message, EmailMessage)
        self.data_ids[self.attempts] = str(message["Message-ID"])
        reply = await self.behaviour(self.attempts)
        if reply.startswith("250"):
            self.received.append(
                Received(str(envelope.mail_from), list(envelope.rcpt_tos), message, raw)
            )
            self.arrived.set()
            await self.before_reply(self.attempts)
        return reply

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    async def start(self, port: int = 0, **options: Any) -> None:
        """Listen on 127.0.0.1; `options` go to aiosmtpd's SMTP (authentication, say)."""
        loop = asyncio.get_running_loop()
        self.server = await loop.create_server(
            lambda: SMTP(self, hostname="mail.test", loop=loop, **options), "127.0.0.1", port
        )
        self.port = self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None

    def message_ids(self) -> list[str]:
        return [str(r.message["Message-ID"]) for r in self.received]

    async def wait_for(self, count: int, seconds: float = 20.0) -> None:
        async with asyncio.timeout(seconds):
            while len(self.received) < count:
                self.arrived.clear()
                await self.arrived.wait()


def free_port() -> int:
    """A port nothing listens on (for a server that is down, to be started there later)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def header(received: Received, name: str) -> Any:
    return received.message[name]


class ThreadedMailServer:
    """A MailServer on a thread of its own (for synchronous tests: the browser tests)."""

    def __init__(self) -> None:
        self.server = MailServer()
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self.server.start())
        self._started.set()
        self._loop.run_forever()

    def start(self) -> ThreadedMailServer:
        self._thread.start()
        self._started.wait(10)
        return self

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def received(self) -> list[Received]:
        return list(self.server.received)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
