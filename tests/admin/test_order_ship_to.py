"""An order's ship-to on the admin's order forms: the customer's addresses to choose from (the
default chosen to start with), another typed for the order only, and on the edit form the
order's own kept, replaced or removed — read as the API reads `ship_to` and
`ship_to_address_id`, refused in the form's words beside the fields; then shown on the order
page, the work order and the invoice. Without script, a button shows the chosen customer's
addresses; the running total is never held up by a half-typed address."""

from __future__ import annotations

import json
from typing import Any

import httpx

from models.customers import addresses
from models.customers.addresses import NewAddress
from models.orders import ship_to as rules
from models.tables import Customer, Order, OrderEditRecord, WebhookEvent
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import post_form

LEEDS = NewAddress(
    label="Warehouse", name="Goods In", line1="Unit 4", city="Leeds", postal_code="LS1 4AB",
    country="GB",
)  # fmt: skip
YORK = NewAddress(label="Shop", line1="2 High Street", city="York", country="GB", phone="01904")
TYPED = {
    "ship_to-name": "Jo Bloggs", "ship_to-company": "", "ship_to-line1": "5 Quay Street",
    "ship_to-line2": "", "ship_to-city": "Bristol", "ship_to-region": "",
    "ship_to-postal_code": "BS1 4DJ", "ship_to-country": "gb", "ship_to-phone": "",
}  # fmt: skip


def _order_fields(customer_id: int, **extra: str) -> dict[str, str]:
    return {
        "customer": str(customer_id), "due_by": "2030-06-30", "lines-0-description": "Setup",
        "lines-0-quantity": "1", "lines-0-unit_price": "25", "action": "save", **extra,
    }  # fmt: skip


async def _customer(shop: Shop, *new: NewAddress) -> tuple[Customer, list[int]]:
    c = await factories.customer(shop.ws, "Acme Tees")
    ids = []
    for one in new:
        row = await addresses.add_address(workspace_id=shop.ws.id, customer_id=c.id, address=one)
        ids.append(row.id)
    return c, ids


async def _create(shop: Shop, c: Customer, **extra: str) -> httpx.Response:
    page = f"/admin/orders/new?customer={c.id}"
    return await post_form(shop.client, page, "/admin/orders/new", _order_fields(c.id, **extra))


async def _ship_to(number: str | None = None) -> dict[str, str] | None:
    query = Order.select(Order.ship_to)
    if number is not None:
        query = query.where(Order.number == number)
    row = await query.first()
    assert row is not None
    return rules.decode(row["ship_to"])


def _copy(address: NewAddress) -> dict[str, str]:
    return {field: getattr(address, field) for field in rules.FIELDS}


async def test_the_new_form_offers_the_customers_addresses_the_default_chosen(shop: Shop) -> None:
    c, (leeds, york) = await _customer(shop, LEEDS, YORK)

    form = await shop.client.get(f"/admin/orders/new?customer={c.id}")

    assert form.status_code == 200
    fieldset = form.text.split('id="ship-to"')[1].split("</fieldset>")[0]
    assert f'value="{leeds}" checked' in fieldset and f'value="{york}">' in fieldset
    assert "Warehouse (default)" in fieldset and "Goods In, Unit 4, Leeds LS1 4AB, GB" in fieldset
    assert "Shop" in fieldset and "2 High Street, York, GB" in fieldset
    assert 'value="typed"' in fieldset and 'id="ship_to-line1"' in fieldset
    assert 'value="ship_to"' in fieldset  # "Show this customer's addresses", without script

    created = await _create(shop, c, ship_to=str(leeds))

    assert created.status_code == 303, created.text
    assert await _ship_to() == _copy(LEEDS)


async def test_another_address_or_one_typed(shop: Shop) -> None:
    c, (_, york) = await _customer(shop, LEEDS, YORK)

    chosen = await _create(shop, c, ship_to=str(york))
    typed = await _create(shop, c, ship_to="typed", **TYPED)

    assert chosen.status_code == typed.status_code == 303
    first = chosen.headers["location"].rsplit("/", 1)[1]
    second = typed.headers["location"].rsplit("/", 1)[1]
    assert await _ship_to(first) == _copy(YORK)
    assert await _ship_to(second) == {
        "name": "Jo Bloggs", "company": "", "line1": "5 Quay Street", "line2": "",
        "city": "Bristol", "region": "", "postal_code": "BS1 4DJ", "country": "GB", "phone": "",
    }  # fmt: skip
    page = await shop.client.get(f"/admin/orders/{second}")
    facts = page.text.split('id="order-facts"')[1].split("</section>")[0]
    assert "<dt>Ship to</dt>" in facts and "5 Quay Street" in facts and "BS1 4DJ" in facts
    work_order = await shop.client.get(f"/admin/orders/{second}/work-order")
    assert "5 Quay Street" in work_order.text.split('id="wo-ship-to"')[1].split("</dd>")[0]


async def test_a_refused_ship_to_is_shown_beside_its_fields(shop: Shop) -> None:
    c, _ = await _customer(shop, LEEDS)
    other, (theirs,) = await _customer(shop, YORK)

    blank = await _create(
        shop, c, ship_to="typed", **{**TYPED, "ship_to-line1": " ", "ship_to-country": "GBR"}
    )
    forged = await _create(shop, c, ship_to=str(theirs))
    nonsense = await _create(shop, c, ship_to="somewhere")
    odd = [
        await _create(shop, c, ship_to=value)
        for value in ("-5", "0", "2147483648", "999999999999", "9" * 40, "1\x00")
    ]

    assert blank.status_code == 422
    assert "Address line 1 must not be blank." in blank.text
    assert 'id="ship_to-line1-error"' in blank.text and 'id="ship_to-country-error"' in blank.text
    assert 'value="typed" checked' in blank.text and 'value="5 Quay Street"' not in blank.text
    assert 'value="Bristol"' in blank.text  # kept as typed
    for refused in (forged, nonsense, *odd):
        assert refused.status_code == 422
        assert "Choose one of this customer&#39;s addresses, or type one." in refused.text
        assert 'id="ship_to-error"' in refused.text
    assert await Order.count() == 0
    assert other.id != c.id


async def test_a_customer_without_addresses_and_the_button_without_script(shop: Shop) -> None:
    bare = await factories.customer(shop.ws, "No Address Ltd")
    c, (leeds,) = await _customer(shop, LEEDS)
    form = await shop.client.get("/admin/orders/new")
    assert "choose a customer to see their addresses" in form.text

    shown = await post_form(
        shop.client, "/admin/orders/new", "/admin/orders/new",
        {**_order_fields(c.id), "action": "ship_to"},
    )  # fmt: skip

    assert shown.status_code == 200 and await Order.count() == 0
    assert f'value="{leeds}" checked' in shown.text
    none = await shop.client.get(f"/admin/orders/new?customer={bare.id}")
    assert "this customer has no address yet" in none.text
    created = await _create(shop, bare, ship_to="")
    assert created.status_code == 303
    assert await _ship_to() is None


async def test_edit_keeps_replaces_or_removes_the_ship_to(shop: Shop) -> None:
    c, (leeds, york) = await _customer(shop, LEEDS, YORK)
    created = await _create(shop, c, ship_to=str(leeds))
    number = created.headers["location"].rsplit("/", 1)[1]
    url = f"/admin/orders/{number}/edit"
    form = await shop.client.get(url)
    fieldset = form.text.split('id="ship-to"')[1].split("</fieldset>")[0]
    assert 'value="keep" checked' in fieldset and "Unit 4, Leeds LS1 4AB" in fieldset
    assert 'value="none"' in fieldset and 'value="Unit 4"' in fieldset  # typed: the copy

    async def save(**extra: str) -> httpx.Response:
        fields = {**_order_fields(c.id), "revision": await _revision(number), **extra}
        fields.pop("customer")
        return await post_form(shop.client, url, url, fields)

    unchanged = await save(ship_to="keep")
    assert unchanged.status_code == 303
    assert "Nothing was changed." in (await shop.client.get(f"/admin/orders/{number}")).text
    same_typed = await save(ship_to="typed", **{f"ship_to-{k}": v for k, v in _copy(LEEDS).items()})
    assert same_typed.status_code == 303 and await _revision(number) == "1"

    assert (await save(ship_to=str(york))).status_code == 303
    assert await _ship_to(number) == _copy(YORK)
    assert (await save(ship_to="typed", **TYPED)).status_code == 303
    assert (await _ship_to(number) or {})["line1"] == "5 Quay Street"
    refused = await save(ship_to="typed", **{**TYPED, "ship_to-city": ""})
    assert refused.status_code == 422 and "The town or city must not be blank." in refused.text
    assert (await save(ship_to="none")).status_code == 303
    assert await _ship_to(number) is None
    assert await _revision(number) == "4"
    edits = await OrderEditRecord.select(OrderEditRecord.changed).order_by(OrderEditRecord.id)
    assert [json.loads(e["changed"]) for e in edits] == [["ship_to"]] * 3
    events = await WebhookEvent.select(WebhookEvent.body).where(
        WebhookEvent.name == "order.updated"
    )
    assert all(json.loads(e["body"])["changed"] == ["ship_to"] for e in events)


async def _revision(number: str) -> str:
    row = await Order.select(Order.revision).where(Order.number == number).first()
    assert row is not None
    return str(row["revision"])


async def test_the_running_total_is_not_held_up_by_a_half_typed_address(shop: Shop) -> None:
    c, _ = await _customer(shop, LEEDS)
    page = await shop.client.get("/admin/orders/new")
    fields: dict[str, Any] = {
        **_order_fields(c.id), "ship_to": "typed", **{**TYPED, "ship_to-line1": ""}
    }  # fmt: skip
    token = page.text.split('name="_csrf_token" value="')[1].split('"')[0]

    preview = await shop.client.post("/admin/prices/preview", data={**fields, "_csrf_token": token})

    assert preview.status_code == 200
    assert "25.00 GBP" in preview.text and "Address line 1" not in preview.text
