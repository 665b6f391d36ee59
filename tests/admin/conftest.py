"""Admin fixtures: a workspace with a logged-in owner, and a second, foreign workspace."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from litestar import Litestar

from models.tables import User, Workspace
from tests import factories
from tests.admin.support import log_in, member


class Shop:
    def __init__(self, ws: Workspace, owner: User, client: httpx.AsyncClient) -> None:
        self.ws, self.owner, self.client = ws, owner, client


@pytest.fixture
async def browser(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    """A client keeping cookies, like a browser (not logged in)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


@pytest.fixture
async def shop(browser: httpx.AsyncClient) -> Shop:
    """A workspace whose owner is logged in on `browser`."""
    ws = await factories.workspace()
    owner = await member(ws, role="owner")
    answer = await log_in(browser, owner.email)
    assert answer.status_code == 303, answer.text
    return Shop(ws, owner, browser)
