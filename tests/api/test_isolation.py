"""Workspace isolation: another workspace's records answer 404 on every route with an id
(walked from the app's route table, so a new route is covered the day it is added), and
lists, searches and filters never show them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from models.customers import addresses
from models.tables import Artwork, Order, StageChange, Workspace
from models.webhooks import events as outbox
from tests import factories
from tests.proofs.files import png

# A valid body for each write route with an id, so that only the id can make it fail.
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/api/v1/orders/{order_id}/advance"): {"to_stage": "print_queue"},
    ("PATCH", "/api/v1/orders/{order_id}"): {"notes": "Changed by another workspace"},
    ("PATCH", "/api/v1/customers/{customer_id}"): {"name": "Renamed by another workspace"},
    ("POST", "/api/v1/customers/{customer_id}/contacts"): {"name": "X", "email": "x@example.com"},
    ("PATCH", "/api/v1/customers/{customer_id}/contacts/{contact_id}"): {"phone": "0"},
    ("DELETE", "/api/v1/customers/{customer_id}/contacts/{contact_id}"): {},
    ("POST", "/api/v1/customers/{customer_id}/addresses"): {
        "line1": "1 Road",
        "city": "Leeds",
        "country": "GB",
    },
    ("PATCH", "/api/v1/customers/{customer_id}/addresses/{address_id}"): {"city": "York"},
    ("DELETE", "/api/v1/customers/{customer_id}/addresses/{address_id}"): {},
    ("POST", "/api/v1/invoices/{invoice_id}/payments"): {"amount_cents": 1, "method": "cash"},
    ("POST", "/api/v1/payments/{payment_id}/void"): {"reason": "Voided by another workspace"},
    ("POST", "/api/v1/orders/{order_id}/artwork/approve"): {"approved_by": "Another workspace"},
}
# The same for the routes that take multipart/form-data: the files to send.
UPLOADS: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/api/v1/orders/{order_id}/proofs"): {"file": ("front.png", png(), "image/png")},
}


@dataclass
class Tenant:
    ws: Workspace
    auth: dict[str, str]
    ids: dict[str, int | str]  # path parameter name → an id of this workspace
    customer_name: str
    slug: str
    sku_code: str


async def _tenant(label: str) -> Tenant:
    ws, _, auth = await factories.account()
    pl = await factories.price_list(ws, f"{label} list")
    c = await factories.customer(ws, "Shared Name Ltd", slug="shared", price_list=pl.id)
    contact = await factories.contact(c, is_primary=True, email=f"{label}@example.com")
    address = await addresses.add_address(
        workspace_id=ws.id,
        customer_id=c.id,
        address=addresses.NewAddress(line1="1 Road", city="Leeds", country="GB"),
    )
    sku = await factories.sku(ws, f"{label}-TEE-M")
    await factories.sku(ws, "COMMON-CODE")
    o = await factories.order(ws, c, line_skus=[sku.id], external_ref="same-ref")
    invoice = await factories.invoice(o)  # before the paid one: ids disjoint across tenants
    payment = await factories.payment(invoice)
    await factories.invoice(o, status="paid")
    event_id = await outbox.record_event(
        workspace_id=ws.id,
        name="invoice.paid",
        fields={"order_id": o.id, "order_number": o.number},
        order_id=o.id,
        customer_id=c.id,
    )
    return Tenant(
        ws=ws,
        auth=auth,
        ids={
            "customer_id": c.id,
            "order_id": o.id,
            "event_id": event_id,
            "invoice_id": invoice.id,
            "contact_id": contact.id,
            "address_id": address.id,
            "payment_id": payment.id,
        },
        customer_name=c.name,
        slug=c.slug,
        sku_code=sku.code,
    )


@pytest.fixture
async def tenants(client) -> tuple[Tenant, Tenant]:
    mine = await _tenant("MINE")
    theirs = await _tenant("THEIRS")
    assert all(mine.ids[name] != theirs.ids[name] for name in mine.ids)
    return mine, theirs


def _routes_with_ids(app) -> list[tuple[str, str, list[str]]]:
    found = []
    for route in app.routes:
        if not route.path.startswith("/api/") or not route.path_parameters:
            continue
        for method in sorted(set(route.methods) - {"OPTIONS", "HEAD"}):
            found.append((method, route.path_format, list(route.path_parameters)))
    return found


def _fill(path_format: str, ids: dict[str, int | str]) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        assert name in ids, f"no record id known for path parameter {name!r}: extend Tenant.ids"
        return str(ids[name])

    return re.sub(r"\{(\w+)\}", value, path_format)


async def _call(
    client: Any, method: str, path_format: str, ids: dict[str, int | str], auth: dict[str, str]
) -> Any:
    """The route called for the records `ids`, with its valid JSON body or upload."""
    url = _fill(path_format, ids)
    files = UPLOADS.get((method, path_format))
    if files is not None:
        return await client.request(method, url, files=files, headers=auth)
    return await client.request(method, url, json=BODIES.get((method, path_format)), headers=auth)


async def _snapshot(order_id: int) -> tuple[Any, ...]:
    row = await Order.select(Order.stage, Order.updated_at).where(Order.id == order_id).first()
    history = await StageChange.count().where(StageChange.order == order_id)
    artwork = await Artwork.select(Artwork.status, Artwork.version, Artwork.updated_at).where(
        Artwork.order == order_id
    )
    return row["stage"], row["updated_at"], history, artwork


async def test_route_table_has_routes_with_ids(app):
    routes = {(method, path) for method, path, _ in _routes_with_ids(app)}

    assert {
        ("GET", "/api/v1/customers/{customer_id}"),
        ("GET", "/api/v1/orders/{order_id}"),
    } <= routes


async def test_every_route_with_an_id_answers_404_for_another_workspace(client, app, tenants):
    mine, theirs = tenants
    routes = _routes_with_ids(app)
    before = await _snapshot(theirs.ids["order_id"])

    for method, path_format, _ in routes:
        assert method == "GET" or (method, path_format) in BODIES.keys() | UPLOADS.keys(), (
            f"add a valid body for {method} {path_format}"
        )
        auth = await factories.caller(mine.ws)  # a fresh user per call: no rate limit in play
        response = await _call(client, method, path_format, theirs.ids, auth)
        assert response.status_code == 404, (method, path_format, response.text)
        body = response.json()
        assert set(body) == {"message", "code", "details"}, (method, path_format)
        assert (body["code"], body["details"]) == ("not_found", {}), (method, path_format)
        assert theirs.customer_name not in response.text

    assert await _snapshot(theirs.ids["order_id"]) == before

    # The same routes work with the caller's own ids, so the 404s above are isolation (the
    # deletes last, so that the record is still there for the other methods).
    for method, path_format, _ in sorted(routes, key=lambda route: route[0] == "DELETE"):
        auth = await factories.caller(mine.ws)
        response = await _call(client, method, path_format, mine.ids, auth)
        assert response.status_code in (200, 201, 204), (method, path_format, response.text)


async def test_lists_show_only_the_callers_workspace(client, tenants):
    mine, _ = tenants

    customers = (await client.get("/api/v1/customers", headers=mine.auth)).json()
    orders = (await client.get("/api/v1/orders", headers=mine.auth)).json()
    inventory = (await client.get("/api/v1/inventory", headers=mine.auth)).json()

    assert [row["id"] for row in customers["data"]] == [mine.ids["customer_id"]]
    assert customers["total"] == 1
    assert [row["id"] for row in orders["data"]] == [mine.ids["order_id"]]
    assert orders["total"] == 1
    assert [row["customer"]["id"] for row in orders["data"]] == [mine.ids["customer_id"]]
    assert sorted(row["code"] for row in inventory["data"]) == ["COMMON-CODE", mine.sku_code]
    assert inventory["total"] == 2


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/api/v1/customers", {"search": "shared"}),
        ("/api/v1/customers", {"updated_since": "2000-01-01T00:00:00Z"}),
        ("/api/v1/orders", {"stage": "artwork"}),
        ("/api/v1/orders", {"customer": "shared"}),
        ("/api/v1/orders", {"updated_since": "2000-01-01T00:00:00Z"}),
        ("/api/v1/inventory", {"search": "tee"}),
        ("/api/v1/inventory", {"search": "common"}),
        ("/api/v1/inventory", {"low": "false", "updated_since": "2000-01-01"}),
        ("/api/v1/events", {"type": "invoice.paid", "since": "2000-01-01"}),
    ],
)
async def test_filters_never_reach_another_workspace(client, tenants, path, params):
    mine, theirs = tenants

    response = await client.get(path, params=params, headers=mine.auth)

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["total"] == len(body["data"]) >= 1
    text = response.text
    assert theirs.sku_code not in text
    assert f'"id":{theirs.ids["customer_id"]},' not in text
    assert f'"id":{theirs.ids["order_id"]},' not in text
    assert "THEIRS" not in text


async def test_customer_filter_with_another_workspaces_slug_is_empty(client, tenants):
    mine, theirs = tenants
    lonely = await factories.customer(theirs.ws, slug="only-theirs")
    await factories.order(theirs.ws, lonely)

    body = (
        await client.get("/api/v1/orders", params={"customer": "only-theirs"}, headers=mine.auth)
    ).json()

    assert (body["data"], body["total"]) == ([], 0)


async def test_me_is_the_callers_user(client, tenants):
    mine, theirs = tenants

    mine_me = (await client.get("/api/v1/me", headers=mine.auth)).json()
    theirs_me = (await client.get("/api/v1/me", headers=theirs.auth)).json()

    assert mine_me["id"] != theirs_me["id"]


async def test_creating_an_order_for_another_workspaces_customer_is_refused(client, tenants):
    mine, theirs = tenants
    body = {
        "customer_id": theirs.ids["customer_id"],
        "lines": [{"description": "x", "quantity": 1, "unit_price_cents": 1}],
    }

    response = await client.post("/api/v1/orders", json=body, headers=mine.auth)

    assert response.status_code == 422, response.text
    assert list(response.json()["errors"]) == ["customer_id"]
    assert await Order.count().where(Order.workspace == mine.ws.id) == 1
