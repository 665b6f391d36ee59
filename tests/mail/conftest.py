"""Fixtures for email: a live SMTP server and a mail job on a fake clock pointed at it."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from litestar import Litestar

from daemon.mail import MailConfig, MailSender
from models.smtp_url import parse_smtp_url
from tests.daemon.support import FakeClock
from tests.e2e.test_worker_processes import spawn  # noqa: F401  (the worker processes)
from tests.mail.smtp_server import MailServer


@pytest.fixture
async def smtp() -> AsyncIterator[MailServer]:
    server = MailServer()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_sender(backend: str, fake_clock: FakeClock) -> Callable[..., MailSender]:
    """`make_sender(url, **config)`: the worker's mail job sending through `url`."""

    def make(url: str | None, worker: str = "test-worker", **overrides: Any) -> MailSender:
        values: dict[str, Any] = {
            "smtp": parse_smtp_url(url) if url else None,
            "timeout": 2.0,
            "lease": 30.0,
            "concurrency": 4,
            "backoff": (60, 300, 900, 3600, 14400),
            "max_attempts": 5,
        }
        values.update(overrides)
        config = dataclasses.replace(MailConfig.from_settings(), **values)
        return MailSender(config, worker=worker, now=fake_clock)

    return make


@pytest.fixture
async def browser(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    """A client keeping cookies, like a browser (not logged in)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c
