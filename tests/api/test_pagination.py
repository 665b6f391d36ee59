"""The list envelope on every list endpoint: fixed page sizes, boundaries, links, page errors."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from models.tables import Customer, Sku, Workspace
from tests import factories

T0 = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.UTC)


async def _customers(ws: Workspace, n: int) -> list[Any]:
    rows = [Customer(workspace=ws.id, name=f"Customer {i:03d}", slug=f"c-{i}") for i in range(n)]
    await Customer.insert(*rows)
    return [f"Customer {i:03d}" for i in range(n)]


async def _orders(ws: Workspace, n: int) -> list[Any]:
    c = await factories.customer(ws)
    made = [await factories.order(ws, c, created_at=T0 + dt.timedelta(minutes=i)) for i in range(n)]
    return [o.id for o in reversed(made)]  # newest first


async def _skus(ws: Workspace, n: int) -> list[Any]:
    rows = [
        Sku(
            workspace=ws.id,
            code=f"SKU-{i:04d}",
            style="Tee",
            brand="B",
            colour="Black",
            colour_hex="#000000",
            size="M",
        )
        for i in range(n)
    ]
    await Sku.insert(*rows)
    return [f"SKU-{i:04d}" for i in range(n)]


Maker = Callable[[Workspace, int], Awaitable[list[Any]]]
LISTS: list[tuple[str, int, Maker, str]] = [
    ("/api/v1/customers", 50, _customers, "name"),
    ("/api/v1/orders", 50, _orders, "id"),
    ("/api/v1/inventory", 100, _skus, "code"),
]
LIST_IDS = [path.rsplit("/", 1)[1] for path, *_ in LISTS]


def _link(path: str, page: int, host: str = "http://testserver", **params: str) -> str:
    query = "&".join([*(f"{k}={v}" for k, v in params.items()), f"page={page}"])
    return f"{host}{path}?{query}"


async def _get(client, path, auth, **params):
    response = await client.get(path, params=params, headers=auth)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(("path", "per_page", "make", "key"), LISTS, ids=LIST_IDS)
async def test_exactly_one_full_page(client, path, per_page, make, key):
    ws, _, auth = await factories.account()
    expected = await make(ws, per_page)

    body = await _get(client, path, auth)

    assert [row[key] for row in body["data"]] == expected
    assert {k: v for k, v in body.items() if k != "data"} == {
        "current_page": 1,
        "last_page": 1,
        "per_page": per_page,
        "total": per_page,
        "links": {"first": _link(path, 1), "last": _link(path, 1), "prev": None, "next": None},
    }


@pytest.mark.parametrize(("path", "per_page", "make", "key"), LISTS, ids=LIST_IDS)
async def test_one_row_over_a_page_makes_a_second_page(client, path, per_page, make, key):
    ws, _, auth = await factories.account()
    expected = await make(ws, per_page + 1)

    first = await _get(client, path, auth)
    second = await _get(client, path, auth, page="2")

    assert [row[key] for row in first["data"]] == expected[:per_page]
    assert [row[key] for row in second["data"]] == expected[per_page:]
    assert (first["last_page"], first["total"], second["current_page"]) == (2, per_page + 1, 2)
    assert first["links"] == {
        "first": _link(path, 1),
        "last": _link(path, 2),
        "prev": None,
        "next": _link(path, 2),
    }
    assert second["links"] == {
        "first": _link(path, 1),
        "last": _link(path, 2),
        "prev": _link(path, 1),
        "next": None,
    }


@pytest.mark.parametrize(("path", "per_page", "make", "key"), LISTS, ids=LIST_IDS)
async def test_page_past_the_last_is_empty_with_true_totals(client, path, per_page, make, key):
    ws, _, auth = await factories.account()
    await make(ws, 3)

    body = await _get(client, path, auth, page="7")

    assert body["data"] == []
    assert (body["current_page"], body["last_page"], body["total"]) == (7, 1, 3)
    assert body["links"]["prev"] == _link(path, 1)  # back into range: the last page
    assert body["links"]["next"] is None


@pytest.mark.parametrize(("path", "per_page", "make", "key"), LISTS, ids=LIST_IDS)
async def test_empty_list_has_one_empty_page(client, path, per_page, make, key):
    _, _, auth = await factories.account()

    body = await _get(client, path, auth)

    assert body == {
        "data": [],
        "current_page": 1,
        "last_page": 1,
        "per_page": per_page,
        "total": 0,
        "links": {"first": _link(path, 1), "last": _link(path, 1), "prev": None, "next": None},
    }


@pytest.mark.parametrize(("path", "per_page", "make", "key"), LISTS, ids=LIST_IDS)
async def test_page_size_cannot_be_changed(client, path, per_page, make, key):
    ws, _, auth = await factories.account()
    await make(ws, per_page + 1)

    for params in ({"per_page": "5"}, {"per_page": "1000"}, {"limit": "5"}, {"page_size": "5"}):
        body = await _get(client, path, auth, **params)
        assert (len(body["data"]), body["per_page"], body["last_page"]) == (per_page, per_page, 2)


@pytest.mark.parametrize("path", [path for path, *_ in LISTS], ids=LIST_IDS)
async def test_invalid_page_is_422(client, path):
    _, _, auth = await factories.account()

    for page in ("0", "-1", "abc", "1.5", "", " 1", "0x1", "99999999999999999999", "2147483648"):
        response = await client.get(path, params={"page": page}, headers=auth)
        assert response.status_code == 422, (page, response.text)
        body = response.json()
        assert list(body["errors"]) == ["page"]
        assert body["message"] == body["errors"]["page"][0]


@pytest.mark.parametrize("path", [path for path, *_ in LISTS], ids=LIST_IDS)
async def test_largest_page_number_is_accepted(client, path):
    _, _, auth = await factories.account()

    body = await _get(client, path, auth, page=str(2**31 - 1))

    assert (body["data"], body["current_page"]) == ([], 2**31 - 1)


async def test_links_keep_the_other_query_parameters(client):
    ws, _, auth = await factories.account()
    rows = [Customer(workspace=ws.id, name=f"Ink & Co {i:03d}", slug=f"c-{i}") for i in range(120)]
    await Customer.insert(*rows)
    params = {"search": "ink & co", "updated_since": "2026-01-01T00:00:00+00:00"}

    body = await _get(client, "/api/v1/customers", auth, page="2", **params)

    for name in ("first", "last", "prev", "next"):
        parts = urlsplit(body["links"][name])
        assert (parts.scheme, parts.netloc, parts.path) == (
            "http",
            "testserver",
            "/api/v1/customers",
        )
        assert dict(parse_qsl(parts.query, keep_blank_values=True)) == {
            **params,
            "page": {"first": "1", "last": "3", "prev": "1", "next": "3"}[name],
        }
    # the `+` of the offset survives the round trip through the link
    follow = await client.get(body["links"]["next"], headers=auth)
    assert follow.status_code == 200
    assert follow.json()["current_page"] == 3


async def test_links_honour_the_proxy_headers(client):
    ws, _, auth = await factories.account()
    await _skus(ws, 101)
    proxy = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "api.example.com"}

    body = (await client.get("/api/v1/inventory", headers={**auth, **proxy})).json()
    chained = (
        await client.get(
            "/api/v1/inventory",
            headers={
                **auth,
                "X-Forwarded-Proto": "https, http",
                "X-Forwarded-Host": "shop.example.com, internal:8000",
            },
        )
    ).json()

    host = "https://api.example.com"
    assert body["links"] == {
        "first": _link("/api/v1/inventory", 1, host),
        "last": _link("/api/v1/inventory", 2, host),
        "prev": None,
        "next": _link("/api/v1/inventory", 2, host),
    }
    assert chained["links"]["next"] == _link("/api/v1/inventory", 2, "https://shop.example.com")


async def test_without_proxy_headers_links_use_the_request_host(client):
    ws, _, auth = await factories.account()
    await _skus(ws, 101)

    body = (
        await client.get("/api/v1/inventory", headers={**auth, "Host": "pressline.test:8443"})
    ).json()

    assert body["links"]["next"] == _link("/api/v1/inventory", 2, "http://pressline.test:8443")


# --- updated_since on every list ---------------------------------------------------------------


async def _three_changed_rows(ws: Workspace, path: str) -> None:
    """Rows changed at 09:30, 10:30 and 11:30 UTC on 2026-03-01."""
    times = [T0 + dt.timedelta(hours=h) for h in range(3)]
    if path.endswith("customers"):
        for at in times:
            await factories.customer(ws, updated_at=at)
    elif path.endswith("orders"):
        c = await factories.customer(ws)
        for at in times:
            await factories.order(ws, c, created_at=T0, updated_at=at)
    else:
        for at in times:
            await factories.sku(ws, updated_at=at)


UPDATED_SINCE_FORMS = [
    ("updated_since=2026-03-01T10:30:00%2B00:00", 2),
    ("updated_since=2026-03-01T10:30:00Z", 2),
    ("updated_since=2026-03-01T10:30:00+00:00", 2),  # unencoded `+` arrives as a space
    ("updated_since=2026-03-01T10:30:00", 2),  # no offset: UTC
    ("updated_since=2026-03-01T11:30:00%2B01:00", 2),
    ("updated_since=2026-03-01T05:30:00-05:00", 2),
    ("updated_since=2026-03-01T10:30:00.000001Z", 1),
    ("updated_since=2026-03-01T11:30:00Z", 1),
    ("updated_since=2026-03-01T11:30:01Z", 0),
    ("updated_since=2026-03-01", 3),  # a date: its midnight, UTC
    ("updated_since=2000-01-01T00:00:00Z", 3),
]


@pytest.mark.parametrize("path", [path for path, *_ in LISTS], ids=LIST_IDS)
async def test_updated_since_forms(client, path):
    ws, _, auth = await factories.account()
    await _three_changed_rows(ws, path)

    for raw_query, expected in UPDATED_SINCE_FORMS:
        response = await client.get(f"{path}?{raw_query}", headers=auth)
        assert response.status_code == 200, (raw_query, response.text)
        body = response.json()
        assert (body["total"], len(body["data"])) == (expected, expected), raw_query


@pytest.mark.parametrize("path", [path for path, *_ in LISTS], ids=LIST_IDS)
async def test_unreadable_updated_since_is_422(client, path):
    _, _, auth = await factories.account()
    message = "The updated_since parameter must be an ISO 8601 date-time."

    for value in (
        "yesterday",
        "",
        "10:30",
        "2026-02-30T00:00:00Z",
        "2026-03-01T25:00:00",
        "1700000000",
        "9999-12-31T23:59:59-23:59",
    ):
        response = await client.get(path, params={"updated_since": value}, headers=auth)
        assert response.status_code == 422, (value, response.text)
        assert response.json() == {
            "message": message,
            "code": "validation_failed",
            "errors": {"updated_since": [message]},
            "details": {},
        }
