"""A customer's addresses in the admin: listed on the customer's page (the default first), added
(the first is the default whatever was ticked), edited, made default, removed after a
confirmation (the oldest remaining becoming the default) — through the API's own functions, so
each records `customer.updated`. Refusals come back beside their fields; another workspace's
customer or address, and another customer's address, are 404 on every route."""

from __future__ import annotations

from typing import Any

import httpx

from models.customers import addresses
from models.tables import Address, Customer, WebhookEvent
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of, post_form

WAREHOUSE = {
    "label": "Warehouse", "name": "Goods In", "company": "Acme Tees Ltd", "line1": "Unit 4",
    "line2": "Mill Lane", "city": "Leeds", "region": "West Yorkshire", "postal_code": "LS1 4AB",
    "country": "gb", "phone": "0113 496 0000",
}  # fmt: skip


def _base(c: Customer) -> str:
    return f"/admin/customers/{c.id}/addresses"


async def _add(shop: Shop, c: Customer, **fields: str) -> httpx.Response:
    return await post_form(shop.client, f"{_base(c)}/new", _base(c), fields)


async def _stored(c: Customer) -> list[dict[str, Any]]:
    return await (
        Address.select(Address.label, Address.line1, Address.city, Address.is_default)
        .where(Address.customer == c.id)
        .order_by(Address.id)
    )


async def _updates(c: Customer) -> int:
    return await WebhookEvent.count().where(
        (WebhookEvent.name == "customer.updated") & (WebhookEvent.customer == c.id)
    )


async def test_add_addresses_the_first_is_the_default(shop: Shop) -> None:
    c = await factories.customer(shop.ws, "Acme Tees")
    empty = await shop.client.get(f"/admin/customers/{c.id}")
    assert "No addresses yet: the first one added becomes the default." in empty.text
    assert f'href="{_base(c)}/new"' in empty.text

    first = await _add(shop, c, **WAREHOUSE)

    assert first.status_code == 303
    assert first.headers["location"] == f"/admin/customers/{c.id}#addresses"
    page = await shop.client.get(f"/admin/customers/{c.id}")
    assert "Warehouse was added as the default address." in page.text
    [stored] = await Address.objects().where(Address.customer == c.id)
    assert (stored.country, stored.postal_code, stored.is_default) == ("GB", "LS1 4AB", True)
    assert stored.workspace == shop.ws.id
    row = page.text.split(f'id="address-{stored.id}"')[1].split("</tr>")[0]
    for shown in ("Warehouse", "Goods In", "Acme Tees Ltd", "Unit 4", "Leeds LS1 4AB", "GB"):
        assert shown in row, shown
    assert '<span class="state default">default</span>' in row
    assert "Make default" not in row

    second = await _add(shop, c, line1="2 Dock Road", city="Hull", country="GB", default="")

    assert second.status_code == 303
    page = await shop.client.get(f"/admin/customers/{c.id}")
    assert "2 Dock Road was added as an address." in page.text
    assert await _stored(c) == [
        {"label": "Warehouse", "line1": "Unit 4", "city": "Leeds", "is_default": True},
        {"label": "", "line1": "2 Dock Road", "city": "Hull", "is_default": False},
    ]
    listed = page.text.split('id="addresses"')[1]
    assert listed.index("Unit 4") < listed.index("2 Dock Road")  # the default first
    assert await _updates(c) == 2


async def test_a_refused_address_comes_back_beside_its_fields(shop: Shop) -> None:
    c = await factories.customer(shop.ws)

    refused = await _add(
        shop, c, label="x" * 101, line1=" ", city="", country="GBR", phone="01\x0023",
        postal_code="LS1",
    )  # fmt: skip

    assert refused.status_code == 422
    text = refused.text
    assert "The address was not added: please correct the fields marked below." in text
    assert "Address line 1 must not be blank." in text
    assert "The town or city must not be blank." in text
    assert "The label must be at most 100 characters." in text
    assert "The phone number must be one line of text, without control characters." in text
    assert 'id="country-error"' in text and 'id="line1-error"' in text
    assert 'value="LS1"' in text and 'value="GBR"' in text  # kept as typed
    assert await Address.count() == 0 and await _updates(c) == 0


async def test_edit_make_default_and_remove(shop: Shop) -> None:
    c = await factories.customer(shop.ws)
    first = await addresses.add_address(
        workspace_id=shop.ws.id, customer_id=c.id,
        address=addresses.NewAddress(line1="1 Old Street", city="York", country="GB"),
    )  # fmt: skip
    second = await addresses.add_address(
        workspace_id=shop.ws.id, customer_id=c.id,
        address=addresses.NewAddress(line1="2 New Road", city="Hull", country="GB", label="Shop"),
    )  # fmt: skip
    edit_url = f"{_base(c)}/{second.id}"
    form = await shop.client.get(edit_url)
    assert form.status_code == 200 and 'value="2 New Road"' in form.text
    assert "Make this the default address" in form.text

    blank = await post_form(shop.client, edit_url, edit_url, {**WAREHOUSE, "city": ""})
    assert blank.status_code == 422 and "The town or city must not be blank." in blank.text
    saved = await post_form(
        shop.client, edit_url, edit_url, {**WAREHOUSE, "label": "Shop", "city": "Wakefield"}
    )
    assert saved.status_code == 303
    assert "Shop was saved." in (await shop.client.get(f"/admin/customers/{c.id}")).text
    assert [r["city"] for r in await _stored(c)] == ["York", "Wakefield"]

    made = await post_form(shop.client, f"/admin/customers/{c.id}", f"{edit_url}/default", {})
    assert made.status_code == 303
    page = await shop.client.get(f"/admin/customers/{c.id}")
    assert "Shop is now the default address." in page.text
    assert [r["is_default"] for r in await _stored(c)] == [False, True]
    default_form = await shop.client.get(edit_url)
    assert "This is the default address" in default_form.text
    assert 'name="default"' not in default_form.text

    confirm = await shop.client.get(f"{edit_url}/remove")
    assert confirm.status_code == 200
    assert "the oldest remaining address becomes the default" in confirm.text
    removed = await post_form(shop.client, f"{edit_url}/remove", f"{edit_url}/remove")
    assert removed.status_code == 303
    page = await shop.client.get(f"/admin/customers/{c.id}")
    assert "Shop was removed. 1 Old Street is now the default address." in page.text
    assert await _stored(c) == [
        {"label": "", "line1": "1 Old Street", "city": "York", "is_default": True}
    ]
    assert first.id != second.id
    assert await _updates(c) == 5  # two adds, the edit, the default, the removal


async def test_other_workspaces_and_other_customers_addresses_are_404(shop: Shop) -> None:
    mine = await factories.customer(shop.ws)
    neighbour = await factories.customer(shop.ws, "Neighbour")
    theirs_ws = await factories.workspace()
    theirs = await factories.customer(theirs_ws)
    new = addresses.NewAddress(line1="1 Road", city="Leeds", country="GB")
    their_address = await addresses.add_address(
        workspace_id=theirs_ws.id, customer_id=theirs.id, address=new
    )
    neighbours = await addresses.add_address(
        workspace_id=shop.ws.id, customer_id=neighbour.id, address=new
    )
    token = csrf_of(await shop.client.get(f"/admin/customers/{mine.id}"))
    before = await Address.select().order_by(Address.id)
    urls = [
        f"/admin/customers/{theirs.id}/addresses/new",
        f"/admin/customers/{theirs.id}/addresses",
        f"/admin/customers/{theirs.id}/addresses/{their_address.id}",
        f"/admin/customers/{mine.id}/addresses/{their_address.id}",
        f"/admin/customers/{mine.id}/addresses/{neighbours.id}",
        f"/admin/customers/{mine.id}/addresses/{neighbours.id}/default",
        f"/admin/customers/{mine.id}/addresses/{neighbours.id}/remove",
        f"/admin/customers/{mine.id}/addresses/2147483648",
        f"/admin/customers/{mine.id}/addresses/99999999999999999999/remove",
        f"/admin/customers/{mine.id}/addresses/0/default",
        "/admin/customers/2147483648/addresses/new",
    ]
    for url in urls:
        if not url.endswith(("/default", "/addresses")):
            assert (await shop.client.get(url)).status_code == 404, url
        if url.endswith("/new"):
            continue  # a form's address, posted to /addresses
        data = {**WAREHOUSE, "_csrf_token": token}
        assert (await shop.client.post(url, data=data)).status_code == 404, url
    assert await Address.select().order_by(Address.id) == before
    no_csrf = await shop.client.post(f"/admin/customers/{mine.id}/addresses", data=WAREHOUSE)
    assert no_csrf.status_code == 403
    assert await Address.count().where(Address.customer == mine.id) == 0
