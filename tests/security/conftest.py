"""Abuse-suite fixtures: browsers (cookie-keeping clients) at chosen client addresses."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from litestar import Litestar

from tests.daemon.conftest import _postgres_only

Browser = Callable[..., httpx.AsyncClient]


@pytest.fixture
async def browsers(app: Litestar) -> AsyncIterator[Browser]:
    """Make browsers on the real app: `browsers("203.0.113.7")`, closed after the test."""
    opened: list[httpx.AsyncClient] = []

    def make(address: str = "127.0.0.1", base_url: str = "http://testserver") -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=app, client=(address, 50000))
        client = httpx.AsyncClient(transport=transport, base_url=base_url)
        opened.append(client)
        return client

    yield make
    for client in opened:
        await client.aclose()


__all__ = ["_postgres_only", "browsers"]
