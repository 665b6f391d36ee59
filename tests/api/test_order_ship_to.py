"""Ship-to on orders: copied at create from `ship_to`, `ship_to_address_id` or
the customer's default address, changed by PATCH, refused with the field named when it is not
one of the customer's addresses (the admin's pages: tests/admin/test_work_order.py)."""

from __future__ import annotations

from typing import Any

from models import clock
from models.tables import Address, Customer, CustomerMessage, Order
from tests import factories
from tests.api.order_helpers import Shop, advance, create, order_body, shop

WAREHOUSE = {
    "name": "Goods In",
    "company": "Acme Tees Ltd",
    "line1": "Unit 4, Riverside Estate",
    "line2": "",
    "city": "Leeds",
    "region": "West Yorkshire",
    "postal_code": "LS11 5QT",
    "country": "GB",
    "phone": "+44 113 496 0000",
}


async def address(customer: Customer, *, default: bool = False, **fields: Any) -> Address:
    values = {**WAREHOUSE, **fields}
    row = Address(
        workspace=customer.workspace,
        customer=customer.id,
        label="Warehouse",
        is_default=default,
        created_at=clock.now(),
        **values,
    )
    await row.save()
    return row


async def stored(order_id: int) -> Any:
    row = await Order.select(Order.ship_to).where(Order.id == order_id).first()
    assert row is not None
    return row["ship_to"]


async def test_the_given_address_is_copied_onto_the_order(client):
    s = await shop()
    given = {"line1": "1 High Street", "city": "York", "country": "GB", "name": "Sam"}

    response = await create(client, s.auth, order_body(s.customer.id, ship_to=given))

    assert response.status_code == 201, response.text
    body = response.json()
    expected = {key: "" for key in WAREHOUSE} | given
    assert body["ship_to"] == expected
    assert list(body["ship_to"]) == list(WAREHOUSE)  # the documented order of keys
    read = await client.get(f"/api/v1/orders/{body['id']}", headers=s.auth)
    assert read.json()["ship_to"] == expected
    assert await stored(body["id"]) is not None


async def test_the_default_address_is_copied_when_none_is_named(client):
    s = await shop()
    await address(s.customer, default=False, line1="Old depot")
    await address(s.customer, default=True)

    response = await create(client, s.auth, order_body(s.customer.id))

    assert response.status_code == 201, response.text
    assert response.json()["ship_to"] == WAREHOUSE


async def test_no_address_leaves_the_order_without_ship_to(client):
    s = await shop()

    response = await create(client, s.auth, order_body(s.customer.id))

    assert response.json()["ship_to"] is None
    assert await stored(response.json()["id"]) is None


async def test_a_named_address_is_copied_and_later_changes_do_not_move_the_order(client):
    s = await shop()
    await address(s.customer, default=True, line1="Default depot")
    named = await address(s.customer, city="Bradford")

    response = await create(client, s.auth, order_body(s.customer.id, ship_to_address_id=named.id))

    assert response.status_code == 201, response.text
    order_id = response.json()["id"]
    assert response.json()["ship_to"]["city"] == "Bradford"
    await Address.update({Address.city: "Halifax"}).where(Address.id == named.id)
    read = await client.get(f"/api/v1/orders/{order_id}", headers=s.auth)
    assert read.json()["ship_to"]["city"] == "Bradford"


async def test_another_customers_or_workspaces_address_is_refused(client):
    s = await shop()
    other_customer = await factories.customer(s.ws, "Other Co")
    theirs = await address(other_customer)
    elsewhere = await shop()
    foreign = await address(elsewhere.customer)

    for address_id in (theirs.id, foreign.id, 2**31, 2**63):
        response = await create(
            client, s.auth, order_body(s.customer.id, ship_to_address_id=address_id)
        )
        assert response.status_code == 422, response.text
        assert response.json()["errors"] == {
            "ship_to_address_id": ["The selected ship_to_address_id is invalid."]
        }
    assert await Order.count().where(Order.workspace == s.ws.id) == 0


async def test_bad_addresses_are_422_naming_the_field(client):
    s = await shop()
    cases = [
        ({"line1": "1 High Street", "city": "York", "country": "gb"}, "ship_to.country"),
        ({"line1": "1 High Street", "city": "York", "country": "GBR"}, "ship_to.country"),
        ({"city": "York", "country": "GB"}, "ship_to.line1"),
        ({"line1": "   ", "city": "York", "country": "GB"}, "ship_to.line1"),
        ({"line1": "a\x00b", "city": "York", "country": "GB"}, "ship_to.line1"),
        ({"line1": "x" * 201, "city": "York", "country": "GB"}, "ship_to.line1"),
        ({"line1": "1 High Street", "country": "GB"}, "ship_to.city"),
        ("1 High Street, York", "ship_to"),
    ]
    for given, field in cases:
        response = await create(client, s.auth, order_body(s.customer.id, ship_to=given))
        assert response.status_code == 422, (given, response.text)
        assert field in response.json()["errors"], (given, response.json())
    both = await create(
        client,
        s.auth,
        order_body(s.customer.id, ship_to=WAREHOUSE, ship_to_address_id=1),
    )
    assert both.status_code == 422
    assert both.json()["errors"] == {
        "ship_to_address_id": ["Give ship_to or ship_to_address_id, not both."]
    }


async def patch(client: Any, s: Shop, order_id: int, body: dict[str, Any]) -> Any:
    return await client.patch(f"/api/v1/orders/{order_id}", json=body, headers=s.auth)


async def test_patch_sets_changes_and_removes_the_ship_to(client):
    s = await shop()
    named = await address(s.customer)
    order_id = (await create(client, s.auth, order_body(s.customer.id))).json()["id"]

    by_id = await patch(client, s, order_id, {"ship_to_address_id": named.id})
    assert by_id.status_code == 200, by_id.text
    assert by_id.json()["ship_to"] == WAREHOUSE
    assert by_id.json()["revision"] == 2

    given = await patch(client, s, order_id, {"ship_to": {**WAREHOUSE, "city": "Wakefield"}})
    assert given.json()["ship_to"]["city"] == "Wakefield"
    assert given.json()["revision"] == 3

    notes_only = await patch(client, s, order_id, {"notes": "Ring first"})
    assert notes_only.json()["ship_to"]["city"] == "Wakefield"  # kept

    removed = await patch(client, s, order_id, {"ship_to": None})
    assert removed.status_code == 200
    assert removed.json()["ship_to"] is None
    assert await stored(order_id) is None

    refused = await patch(client, s, order_id, {"ship_to_address_id": 2**40})
    assert refused.status_code == 422
    assert refused.json()["errors"] == {
        "ship_to_address_id": ["The selected ship_to_address_id is invalid."]
    }


async def test_the_dispatch_email_names_the_ship_to(client):
    s = await shop()
    created = await create(client, s.auth, order_body(s.customer.id, ship_to=WAREHOUSE))
    order_id = created.json()["id"]
    for stage in ("print_queue", "in_production", "qc_pack", "dispatched"):
        moved = await advance(client, s.auth, order_id, stage)
        assert moved.status_code == 200, moved.text

    messages = await CustomerMessage.select(
        CustomerMessage.kind, CustomerMessage.body, CustomerMessage.body_html
    ).where(CustomerMessage.order == order_id)
    by_kind = {message["kind"]: message for message in messages}
    dispatched = by_kind["order.dispatched"]
    assert (
        "Shipped to: Goods In, Acme Tees Ltd, Unit 4, Riverside Estate, Leeds LS11 5QT, "
        "West Yorkshire, GB" in dispatched["body"]
    )
    assert "Unit 4, Riverside Estate<br>Leeds LS11 5QT" in dispatched["body_html"]
    assert "Shipped to" not in by_kind["order.in_production"]["body"]
