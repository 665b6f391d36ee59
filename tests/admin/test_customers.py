"""The admin's customer pages: list with search, a customer's page, create and edit (303 and a
one-time notice), contacts with exactly one primary, isolation, CSRF, statement counts."""

from __future__ import annotations

import functools
import re
from typing import Any

import httpx

from models.customers import contacts
from models.tables import Contact, Customer, PriceList
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import post_form, statement_count


async def _primaries(customer_id: int) -> list[str]:
    rows = await Contact.select(Contact.name).where(
        (Contact.customer == customer_id) & (Contact.is_primary == True)  # noqa: E712
    )
    return [row["name"] for row in rows]


async def _customer_id(answer: httpx.Response) -> int:
    assert answer.status_code == 303, answer.text
    found = re.fullmatch(r"/admin/customers/(\d+)", answer.headers["location"])
    assert found, answer.headers["location"]
    return int(found.group(1))


async def test_list_searches_and_shows_open_orders_and_lifetime_value(shop: Shop) -> None:
    acme = await factories.customer(shop.ws, "Acme Brewing")
    await factories.contact(acme, name="Ada Acme", is_primary=True)
    await factories.customer(shop.ws, "Zebra Tees")
    open_order = await factories.order(shop.ws, acme, stage="print_queue")
    done = await factories.order(shop.ws, acme, stage="dispatched")
    await factories.invoice(done, status="paid", total=12345)
    await factories.invoice(open_order, status="issued", total=999)  # not paid: not counted
    listing = await shop.client.get("/admin/customers")
    assert listing.status_code == 200
    row = re.search(rf'<tr id="customer-{acme.id}">(.*?)</tr>', listing.text, re.S).group(1)
    assert "Ada Acme" in row and "123.45 GBP" in row
    cells = re.findall(r'class="num">([^<]*)<', row)
    assert cells[:2] == ["1", "2"]  # open orders, all orders
    searched = await shop.client.get("/admin/customers", params={"q": "bREW"})
    assert "Acme Brewing" in searched.text and "Zebra Tees" not in searched.text
    odd = await shop.client.get("/admin/customers", params={"q": "%_\x00" + "x" * 600})
    assert odd.status_code == 422  # a control character in the query: the admin's 422 page


async def test_create_answers_303_with_a_notice_once_and_a_reload_adds_nothing(shop: Shop) -> None:
    form = {
        "name": "Hop & Barley", "slug": "", "price_list": "Trade", "discount": "12.5",
        "payment_terms": "net_15", "carrier": "DPD", "tax_exempt": "on",
    }  # fmt: skip
    answer = await post_form(shop.client, "/admin/customers/new", "/admin/customers/", form)
    customer_id = await _customer_id(answer)
    row = await Customer.objects().where(Customer.id == customer_id).first()
    assert (row.name, row.slug, row.payment_terms, row.default_carrier, row.tax_exempt) == (
        "Hop & Barley", "hop-barley", "net_15", "DPD", True,
    )  # fmt: skip
    assert await PriceList.count().where(PriceList.workspace == shop.ws.id) == 1
    shown = await shop.client.get(answer.headers["location"])
    assert "The customer Hop &amp; Barley was added." in shown.text
    assert "12.50 % off" in shown.text
    again = await shop.client.get(answer.headers["location"])
    assert "was added" not in again.text
    assert await Customer.count().where(Customer.workspace == shop.ws.id) == 1


async def test_refused_create_keeps_what_was_typed(shop: Shop) -> None:
    form = {"name": " ", "slug": "Bad Slug", "payment_terms": "net_99", "discount": "5"}
    answer = await post_form(shop.client, "/admin/customers/new", "/admin/customers/", form)
    assert answer.status_code == 422
    for message in (
        "The name must not be blank.", "must be lowercase letters, digits and single hyphens",
        "The payment terms must be one of the choices offered.",
        "A discount belongs to a price list",
    ):  # fmt: skip
        assert message in answer.text
    assert 'value="Bad Slug"' in answer.text
    assert await Customer.count() == 0


async def test_edit_saves_every_field_and_refuses_a_taken_slug(shop: Shop) -> None:
    c = await factories.customer(shop.ws, "Old Name", slug="old")
    await factories.customer(shop.ws, "Other", slug="taken")
    url = f"/admin/customers/{c.id}"
    form = {
        "name": "New Name", "slug": "new-name", "price_list": "", "discount": "",
        "payment_terms": "prepaid", "carrier": "Royal Mail",
    }  # fmt: skip
    answer = await post_form(shop.client, f"{url}/edit", url, form)
    assert answer.status_code == 303 and answer.headers["location"] == url
    row = await Customer.objects().where(Customer.id == c.id).first()
    assert (row.name, row.slug, row.payment_terms, row.default_carrier, row.tax_exempt) == (
        "New Name", "new-name", "prepaid", "Royal Mail", False,
    )  # fmt: skip
    refused = await post_form(shop.client, f"{url}/edit", url, {**form, "slug": "taken"})
    assert refused.status_code == 422 and "taken is already used" in refused.text
    assert (await Customer.objects().where(Customer.id == c.id).first()).slug == "new-name"


async def test_exactly_one_primary_contact_through_the_admin(shop: Shop) -> None:
    c = await factories.customer(shop.ws)
    url = f"/admin/customers/{c.id}"

    async def add(name: str, primary: bool = False) -> int:
        data = {"name": name, "email": f"{name.lower()}@example.com", "phone": ""}
        answer = await post_form(
            shop.client, url, f"{url}/contacts", {**data, **({"primary": "on"} if primary else {})}
        )
        assert answer.status_code == 303 and answer.headers["location"] == url
        row = await Contact.select(Contact.id).where(Contact.name == name).first()
        return int(row["id"])

    first = await add("Ann")  # the first contact is primary, unasked
    assert await _primaries(c.id) == ["Ann"]
    assert "Ann was added as the primary contact." in (await shop.client.get(url)).text
    second = await add("Bob")
    assert await _primaries(c.id) == ["Ann"]
    await add("Cy", primary=True)
    assert await _primaries(c.id) == ["Cy"]
    # Edit Bob into the primary; unticking primary on the primary contact keeps it.
    edited = await post_form(
        shop.client, f"{url}/contacts/{second}", f"{url}/contacts/{second}",
        {"name": "Bob B", "email": "bob@example.com", "phone": "0123", "primary": "on"},
    )  # fmt: skip
    assert edited.status_code == 303
    assert await _primaries(c.id) == ["Bob B"]
    await post_form(
        shop.client, f"{url}/contacts/{second}", f"{url}/contacts/{second}",
        {"name": "Bob B", "email": "bob@example.com", "phone": ""},
    )  # fmt: skip
    assert await _primaries(c.id) == ["Bob B"]
    # Removing the primary promotes the oldest remaining contact (Ann).
    confirm = await shop.client.get(f"{url}/contacts/{second}/remove")
    assert confirm.status_code == 200 and "Remove contact" in confirm.text
    removed = await post_form(
        shop.client, f"{url}/contacts/{second}/remove", f"{url}/contacts/{second}/remove"
    )
    assert removed.status_code == 303
    assert await _primaries(c.id) == ["Ann"]
    assert "Ann is now the primary contact." in (await shop.client.get(url)).text
    await post_form(shop.client, f"{url}/contacts/{first}/remove", f"{url}/contacts/{first}/remove")
    assert await _primaries(c.id) == ["Cy"]


async def test_refused_contact_shows_errors_and_keeps_the_input(shop: Shop) -> None:
    c = await factories.customer(shop.ws)
    url = f"/admin/customers/{c.id}"
    answer = await post_form(shop.client, url, f"{url}/contacts", {"name": "Al", "email": "nope"})
    assert answer.status_code == 422
    assert "must be an email address" in answer.text and 'value="nope"' in answer.text
    assert await Contact.count() == 0


async def test_the_command_line_follows_the_same_primary_rule(shop: Shop) -> None:
    c = await factories.customer(shop.ws)
    first = await contacts.add_contact(customer_id=c.id, name="A", email="a@example.com")
    assert first.is_primary
    await contacts.add_contact(customer_id=c.id, name="B", email="b@example.com", primary=True)
    assert await _primaries(c.id) == ["B"]


async def test_another_workspaces_customer_and_contact_are_404(shop: Shop) -> None:
    other = await factories.workspace()
    theirs = await factories.customer(other)
    their_contact = await factories.contact(theirs, is_primary=True)
    mine = await factories.customer(shop.ws)
    url = f"/admin/customers/{theirs.id}"
    paths = (
        url, f"{url}/edit", f"{url}/contacts/{their_contact.id}",
        f"/admin/customers/{mine.id}/contacts/{their_contact.id}",
        f"{url}/contacts/{their_contact.id}/remove", "/admin/customers/99999999999",
    )  # fmt: skip
    for path in paths:
        assert (await shop.client.get(path)).status_code == 404, path
    posts: list[tuple[str, dict[str, Any]]] = [
        (url, {"name": "Mine now", "slug": "mine", "payment_terms": "net_30"}),
        (f"{url}/contacts", {"name": "X", "email": "x@example.com"}),
        (f"{url}/contacts/{their_contact.id}", {"name": "X", "email": "x@example.com"}),
        (f"/admin/customers/{mine.id}/contacts/{their_contact.id}/remove", {}),
        (f"{url}/contacts/{their_contact.id}/remove", {}),
    ]
    for action, data in posts:
        answer = await post_form(shop.client, "/admin/customers", action, data)
        assert answer.status_code == 404, action
    assert (await Customer.objects().where(Customer.id == theirs.id).first()).name == theirs.name
    assert await Contact.count().where(Contact.customer == theirs.id) == 1


async def test_posts_without_csrf_are_refused(shop: Shop) -> None:
    c = await factories.customer(shop.ws)
    for action in ("/admin/customers/", f"/admin/customers/{c.id}/contacts"):
        answer = await shop.client.post(action, data={"name": "X", "email": "x@example.com"})
        assert answer.status_code == 403, action
    assert await Customer.count() == 1 and await Contact.count() == 0


async def test_pages_cost_the_same_statements_for_one_customer_or_fifty(
    shop: Shop, statements: list[str]
) -> None:
    cost = functools.partial(statement_count, shop.client, statements)
    first = await factories.customer(shop.ws, "Aaa")
    await factories.contact(first, is_primary=True)
    await factories.order(shop.ws, first)
    one_list = await cost("/admin/customers")
    one_page = await cost(f"/admin/customers/{first.id}")
    for n in range(49):
        c = await factories.customer(shop.ws, f"Customer {n:02d}")
        await factories.contact(c, is_primary=True)
        await factories.contact(first)
        o = await factories.order(shop.ws, c, stage="dispatched")
        await factories.invoice(o, status="paid")
        await factories.order(shop.ws, first)
    assert await cost("/admin/customers") == one_list
    assert await cost(f"/admin/customers/{first.id}") == one_page
    assert one_list <= 8, statements
