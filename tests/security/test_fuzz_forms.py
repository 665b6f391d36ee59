"""Every write route, fuzzed: random and hostile values (wrong types, non-UTF-8, NUL and C0
controls, huge, unicode digits, hostile file names, missing or foreign CSRF tokens) posted to
every admin POST route, the proof page's forms and every API write route, on both databases
(§21).

Never a 5xx; never a response header uvicorn refuses to send; and a request that is refused
(4xx) leaves every row of every table as it was, bookkeeping named
in fuzz_site.py aside. The routes are the app's own route table, so a new write route is fuzzed
without edits, and fails here until its path parameters name a seeded record. A tenth of the
requests go to a real web process (uvicorn) on the same database, and after each accepted
upload every proof file is fetched from it: a header uvicorn refuses drops the connection.

Examples per route: the `ci` profile by default; PRESSLINE_FUZZ_PROFILE=long searches deeper
(tests/fuzzing.py).
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from litestar import Litestar
from litestar.routes import HTTPRoute

from api.app import create_app
from api.ratelimit import reset_local_counters
from models.tables import ArtworkProof
from tests.api.route_table import PARAM, WriteRoute, fill, write_routes
from tests.fuzzing import FUZZ
from tests.security.fuzz_requests import Shot, shots
from tests.security.fuzz_site import (
    Site,
    changes,
    header_problems,
    open_site,
    proof_links,
    snapshot,
)
from tests.security.processes import Web, web_process

APP = create_app()  # the route table only; requests go to the `app` fixture
ROUTES = write_routes(APP, ("/admin", "/proofs", "/api/v1"))
FILE_ROUTES = sorted(
    PARAM.sub(r"{\1}", route.path)
    for route in APP.routes
    if isinstance(route, HTTPRoute)
    and route.path.startswith(("/admin", "/proofs"))
    and route.path.endswith("/file")
)


@pytest.fixture(scope="module")
def web(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """A real web process (uvicorn) on the test database, without rate limits."""
    log = tmp_path_factory.mktemp("fuzz") / "web.log"
    with web_process(backend, log, RATE_LIMIT_READ="1000000", RATE_LIMIT_WRITE="1000000") as w:
        yield w


@pytest.fixture
async def site(app: Litestar, web: Web, route: WriteRoute) -> AsyncIterator[Site]:
    transport = httpx.ASGITransport(app=app, client=("203.0.113.9", 50000))
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as client,
        httpx.AsyncClient(base_url=web.base, timeout=60) as over_uvicorn,
    ):
        shop = await open_site(app, client, ROUTES, route)
        fill(route.template, shop.path_ids("own"))  # a parameter no seeded record fills fails
        shop.over_uvicorn = over_uvicorn
        for token in (shop.ids["proof_token"], shop.other_ids["proof_token"]):
            await shop.proof_token_for(token)
        yield shop


async def send(site: Site, shot: Shot) -> httpx.Response:
    client = site.over_uvicorn if shot.over_uvicorn else site.client
    client.cookies.clear()
    headers = {**shot.body.headers, **shot.headers}
    try:
        return await client.request(
            shot.method, shot.path, headers=headers, content=shot.body.content
        )
    except httpx.TransportError as exc:
        pytest.fail(f"the web process dropped the connection ({exc!r}) on {shot!r}")


def refused(response: httpx.Response) -> bool:
    return 400 <= response.status_code < 500


async def file_paths(site: Site) -> set[str]:
    """Every proof file's address: each version of the order's, each emailed link's."""
    rows = await ArtworkProof.select(ArtworkProof.version).where(
        ArtworkProof.order == site.ids["order_id"]
    )
    choices = {
        **site.path_ids("own"),
        "version": [row["version"] for row in rows],
        "token": [link.split("/")[2] for link in await proof_links()],
    }
    found = set()
    for template in FILE_ROUTES:
        names = PARAM.findall(template)
        pools = [v if isinstance(v := choices[n], list) else [v] for n in names]
        for combo in itertools.product(*pools):
            found.add(fill(template, dict(zip(names, combo, strict=True))))
    return found


async def served(site: Site, paths: set[str]) -> None:
    """Each file answers 200 with headers uvicorn sends, in-process and over uvicorn."""
    for path in sorted(paths):
        for client in (site.client, site.over_uvicorn):
            client.cookies.clear()
            try:
                answer = await client.get(path, headers={"cookie": site.cookies()})
            except httpx.TransportError as exc:
                pytest.fail(f"GET {path} over uvicorn dropped the connection ({exc!r})")
            assert answer.status_code == 200, (path, answer.status_code)
            assert not header_problems(answer), (path, header_problems(answer))


def test_every_write_route_is_fuzzed() -> None:
    """The walk finds the routes this suite was written for (a sanity floor, not a list)."""
    names = {str(route) for route in ROUTES}
    for expected in ("POST /admin/login", "POST /proofs/{token}/approve", "POST /api/v1/orders"):
        assert expected in names, sorted(names)
    assert FILE_ROUTES, "no file-serving route found"


@pytest.mark.parametrize("route", ROUTES, ids=str)
@FUZZ
@given(data=st.data())
async def test_write_route_refuses_cleanly(
    route: WriteRoute, site: Site, data: st.DataObject
) -> None:
    await site.keep_session()
    reset_local_counters()  # rate limits are tested elsewhere; here they would hide the domain
    shot = data.draw(shots(site, route), label="request")
    uploads = bool(site.forms[str(route)].files)
    files_before = await file_paths(site) if uploads else set()
    before = await snapshot()
    response = await send(site, shot)
    event(f"status {response.status_code}")
    assert response.status_code < 500, f"{response.status_code}: {response.text[:300]!r}"
    assert not header_problems(response), header_problems(response)
    if refused(response):
        assert not changes(before, await snapshot()), (response.status_code, response.text[:300])
    elif uploads:  # the files this request added (the earlier ones were checked when added)
        await served(site, await file_paths(site) - files_before)
