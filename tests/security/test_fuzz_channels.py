"""Every route, every input channel: hostile values in path segments, query strings and headers
(CSRF tokens, `Last-Event-ID`, `If-Match`, `Idempotency-Key`, `Authorization`, `Cookie` and
others) as well as bodies, sent to every method of every route of the app's route table (the
API, the admin, the customer's proof page, health, metrics and the OpenAPI document), on both
databases.

Never a 5xx; never a response header uvicorn refuses to send; and a request that is refused
(4xx) leaves every row of every table as it was, bookkeeping named in fuzz_site.py aside. The
routes are the app's own table, so a new route is fuzzed without edits, and fails here until
its path parameters name a seeded record. The admin's live stream, whose answer never ends, is
read until its first bytes and then left, as a browser leaves it.

One shop (two workspaces with a record of every kind, tests/security/fuzz_site.py) serves
every route of a database: its rows are kept between this module's tests (what earlier routes
changed is part of the state later ones meet) and emptied at the module's end.

Examples per route: the `ci` profile's, derandomized (8 by default); PRESSLINE_FUZZ_PROFILE=long
draws 100 per route at random (PRESSLINE_FUZZ_EXAMPLES sets either count; tests/fuzzing.py).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from litestar import Litestar

from api.app import create_app
from api.ratelimit import reset_local_counters
from models.tables import WebhookEvent
from tests import fuzzing
from tests.api.route_table import WriteRoute, write_routes
from tests.conftest import empty_tables
from tests.security.fuzz_channels import STREAM, Extras, channel_shots, every_route
from tests.security.fuzz_requests import Shot
from tests.security.fuzz_site import (
    BAD_HEADER_NAME,
    BAD_HEADER_VALUE,
    Site,
    changes,
    open_site,
    read_forms,
    snapshot,
)

APP = create_app()  # the route table only; requests go to the `app` fixture
ROUTES = every_route(APP)
WRITES = write_routes(APP, ("/admin", "/proofs", "/api/v1"))
EXAMPLES = int(os.environ.get("PRESSLINE_FUZZ_EXAMPLES", "100" if fuzzing.NAME == "long" else "8"))
CHANNELS = settings(fuzzing.FUZZ, max_examples=EXAMPLES)
STREAM_WAIT = 5.0


@dataclass
class Answer:
    status_code: int
    raw_headers: list[tuple[bytes, bytes]]
    text: str


@dataclass
class Shop:
    site: Site
    extras: Extras
    rows: dict[str, list[str]] | None = None  # every row after the last request
    strategies: dict[str, st.SearchStrategy[Shot]] = field(default_factory=dict)

    def shots(self, route: WriteRoute) -> st.SearchStrategy[Shot]:
        """The route's requests (one strategy object per route: fuzz_channels.py)."""
        key = str(route)
        if key not in self.strategies:
            self.strategies[key] = channel_shots(self.site, self.extras, route)
        return self.strategies[key]


@pytest.fixture(autouse=True)
def _clean_tables() -> None:
    """In place of tests/conftest.py's: the shop's rows stay from one route's test to the
    next (`shop` empties every table at the module's end)."""


async def _event_ids(site: Site) -> dict[str, str]:
    rows = await WebhookEvent.select(WebhookEvent.workspace, WebhookEvent.event_id)
    own = next(row for row in rows if row["workspace"] == site.owner.workspace)
    other = next(row for row in rows if row["workspace"] != site.owner.workspace)
    return {"own": own["event_id"], "other": other["event_id"]}


@pytest.fixture(scope="module")
async def shop(app: Litestar, backend: str) -> AsyncIterator[Shop]:
    transport = httpx.ASGITransport(app=app, client=("203.0.113.9", 50000))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            site = await open_site(app, client, WRITES, WRITES[0])
            for route in WRITES:  # every write route's form, read from its pages
                if str(route) not in site.forms:
                    await read_forms(site, WRITES, route)
            for token in (site.ids["proof_token"], site.other_ids["proof_token"]):
                await site.proof_token_for(token)
            yield Shop(site, Extras(event_ids=await _event_ids(site)))
    finally:
        await empty_tables()


async def _streamed(app: Litestar, shot: Shot, headers: dict[str, Any]) -> Answer:
    """The stream's status, headers and first bytes, called as a server calls the app; then
    the client goes (httpx's ASGI transport waits for a body that never ends)."""
    path, _, query = shot.path.partition("?")
    raw = [(b"host", b"testserver")]
    raw += [
        (k.lower().encode(), v if isinstance(v, bytes) else v.encode()) for k, v in headers.items()
    ]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": shot.method,
        "scheme": "http", "path": unquote(path), "raw_path": path.encode(),
        "query_string": query.encode(), "root_path": "", "headers": raw,
        "client": ("203.0.113.9", 50000), "server": ("testserver", 80),
    }  # fmt: skip
    answer = Answer(0, [], "")
    first = asyncio.Event()
    gone = asyncio.Event()
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": shot.body.content, "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer.status_code = message["status"]
            answer.raw_headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            answer.text += message.get("body", b"").decode("utf-8", "replace")
            first.set()

    task = asyncio.create_task(app(scope, receive, send))  # type: ignore[arg-type]
    waiting = asyncio.create_task(first.wait())
    await asyncio.wait({task, waiting}, timeout=STREAM_WAIT, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    gone.set()
    await asyncio.wait_for(task, STREAM_WAIT)
    return answer


async def send(app: Litestar, site: Site, shot: Shot) -> Answer:
    headers = {**shot.body.headers, **shot.headers}
    if shot.path.partition("?")[0] == STREAM:
        return await _streamed(app, shot, headers)
    site.client.cookies.clear()
    response = await site.client.request(
        shot.method, shot.path, headers=headers, content=shot.body.content
    )
    return Answer(response.status_code, response.headers.raw, response.text[:300])


def test_every_route_is_fuzzed() -> None:
    """The walk finds every area (a sanity floor, not a list)."""
    names = {str(route) for route in ROUTES}
    for expected in ("GET /admin/orders/{ref}", "GET /admin/stream", "GET /proofs/{token}",
                     "GET /api/v1/events", "PATCH /api/v1/orders/{order_id}", "GET /health",
                     "GET /metrics", "POST /admin/login"):  # fmt: skip
        assert expected in names, sorted(names)


@pytest.mark.parametrize("route", ROUTES, ids=str)
@CHANNELS
@given(data=st.data())
async def test_every_channel_of_every_route_refuses_cleanly(
    app: Litestar, shop: Shop, route: WriteRoute, data: st.DataObject
) -> None:
    site = shop.site
    session = site.session
    await site.keep_session()
    if site.session != session:  # a fuzzed logout ended it: the new one is a row of its own
        shop.rows = None
    reset_local_counters()  # rate limits are tested elsewhere; here they would hide the rest
    shot = data.draw(shop.shots(route), label="request")
    before = shop.rows if shop.rows is not None else await snapshot()
    answer = await send(app, site, shot)
    shop.rows = after = await snapshot()
    event(f"status {answer.status_code}")
    assert answer.status_code < 500, f"{answer.status_code}: {answer.text[:300]!r}"
    problems = [
        (name, value) for name, value in answer.raw_headers
        if BAD_HEADER_NAME.search(name) or BAD_HEADER_VALUE.search(value)
    ]  # fmt: skip
    assert not problems, f"headers uvicorn refuses to send: {problems}"
    if 400 <= answer.status_code < 500:
        assert not changes(before, after), (answer.status_code, answer.text[:300])
