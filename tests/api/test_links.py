"""Absolute links (`links` of every list, `Location` of a create): PUBLIC_URL when set, else
the request's own address, with the proxy's X-Forwarded-Proto/Host only when well formed."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from litestar import Litestar

from tests import factories
from tests.api.order_helpers import create, order_body, shop

LISTS = ["/api/v1/customers", "/api/v1/orders", "/api/v1/inventory", "/api/v1/events"]
OWN = "http://testserver"


async def _first_links(client: httpx.AsyncClient, auth: dict[str, str], **headers: str) -> set:
    """Every list's `links.first`, and the Location of a new order, as sent back."""
    seen = set()
    for path in LISTS:
        response = await client.get(path, headers={**auth, **headers})
        assert response.status_code == 200, response.text
        seen.add(response.json()["links"]["first"].removesuffix(f"{path}?page=1"))
    return seen


async def _location(client: httpx.AsyncClient, **headers: str) -> str:
    s = await shop()
    response = await create(client, s.auth, order_body(s.customer.id), **headers)
    assert response.status_code == 201, response.text
    order_id = response.json()["id"]
    location = response.headers["location"]
    assert location.endswith(f"/api/v1/orders/{order_id}")
    return location.removesuffix(f"/api/v1/orders/{order_id}")


async def test_well_formed_proxy_headers_are_honoured_on_every_link(client):
    _, _, auth = await factories.account()
    proxy = {"X-Forwarded-Proto": "HTTPS", "X-Forwarded-Host": "shop.example.com:8443"}
    assert await _first_links(client, auth, **proxy) == {"https://shop.example.com:8443"}
    assert await _location(client, **proxy) == "https://shop.example.com:8443"
    v6 = {"X-Forwarded-Proto": "http", "X-Forwarded-Host": "[2001:db8::1]:8080"}
    assert await _location(client, **v6) == "http://[2001:db8::1]:8080"


@pytest.mark.parametrize(
    "proto", ["javascript", "", "ftp", "https:", "data", "ws", "https/../", "java script"]
)
async def test_a_hostile_forwarded_proto_falls_back_to_the_request_scheme(client, proto):
    _, _, auth = await factories.account()
    headers = {"X-Forwarded-Proto": proto, "X-Forwarded-Host": "shop.example.com"}
    assert await _first_links(client, auth, **headers) == {"http://shop.example.com"}
    assert await _location(client, **headers) == "http://shop.example.com"


@pytest.mark.parametrize(
    "host",
    [
        "evil.example/../",
        "evil.example/path",
        "a b",
        "host:99999",
        "host:0",
        "host:",
        "",
        " ",
        "user@evil.example",
        "evil.example?x=1",
        "evil.example#x",
        "javascript:alert(1)",
        "[::1",
        "[not:an:address]",
        "-evil.example",
        "evil..example",
        "x" * 300,
    ],
)
async def test_a_hostile_forwarded_host_falls_back_to_the_request_host(client, host):
    _, _, auth = await factories.account()
    headers = {"X-Forwarded-Proto": "javascript", "X-Forwarded-Host": host}
    assert await _first_links(client, auth, **headers) == {OWN}
    assert await _location(client, **headers) == OWN


@pytest.mark.parametrize(
    "host", ["host:99999", "user@evil.example", "javascript:alert(1)", "evil.example:", "a;b"]
)
async def test_a_hostile_host_header_falls_back_to_the_server_address(client, host):
    """Hosts with a path or a space are refused (400) by the framework before any handler;
    these reach the handlers, and no link is built from them."""
    _, _, auth = await factories.account()
    # ASGITransport's server is (testserver, 80): the address the connection was made to.
    assert await _first_links(client, auth, Host=host) == {OWN}
    assert await _location(client, Host=host) == OWN


@pytest.fixture
async def public_client(
    app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    """A second app built with PUBLIC_URL (with a path prefix), on the session's database."""
    monkeypatch.setenv("PUBLIC_URL", "https://x.example/pressline/")
    from api.app import create_app

    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url=OWN) as c:
        yield c


@pytest.mark.parametrize(
    "proxy",
    [
        {},
        {"X-Forwarded-Proto": "http", "X-Forwarded-Host": "shop.example.com"},
        {"X-Forwarded-Proto": "javascript", "X-Forwarded-Host": "evil.example/../"},
        {"Host": "evil.example"},
    ],
)
async def test_public_url_builds_every_link_and_the_proxy_headers_play_no_part(
    public_client, proxy
):
    public = "https://x.example/pressline"
    _, _, auth = await factories.account()
    assert await _first_links(public_client, auth, **proxy) == {public}
    assert await _location(public_client, **proxy) == public


async def test_public_url_links_keep_the_query_and_lead_to_the_next_page(public_client):
    ws, _, auth = await factories.account()
    for _ in range(3):
        await factories.customer(ws)
    body = (
        await public_client.get("/api/v1/customers", params={"search": "a b&c"}, headers=auth)
    ).json()
    assert body["links"] == {
        "first": "https://x.example/pressline/api/v1/customers?search=a+b%26c&page=1",
        "last": "https://x.example/pressline/api/v1/customers?search=a+b%26c&page=1",
        "prev": None,
        "next": None,
    }


async def test_the_openapi_document_names_public_url_as_its_server(client, public_client):
    own = (await client.get("/schema/openapi.json")).json()
    public = (await public_client.get("/schema/openapi.json")).json()
    assert own["servers"] == [{"url": "/"}]  # relative: the address the document came from
    assert public["servers"] == [{"url": "https://x.example/pressline"}]
