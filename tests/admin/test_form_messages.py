"""Admin refusals in people's words: each admin form, sent bad input, answers 422
with sentences naming the field as the form labels it — never an API key (`lines.0.quantity`,
`unit_price_cents`, `customer_id`) nor the validation's machine wording — beside the field.
And a due date in the past is saved on a second click only, "today" being the workspace's."""

from __future__ import annotations

import datetime as dt
import html
import re
from zoneinfo import ZoneInfo

import httpx
import pytest

from models import clock
from models.tables import Order, Workspace
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import member, post_form

_SHOWN = re.compile(r'<p class="(?:error|alert)[^"]*"[^>]*>(.*?)</p>', re.S)
# What people must never read: an API key with a dot path or a _cents name, "The x field",
# machine wording, a list of internal codes.
_KEYS = re.compile(
    r"[a-z_]+\.[0-9]+\.|_cents|_id\b|_by\b|\bfield\b|must be an integer|must be a string|"
    r"must not be greater than|one of [a-z_]+, [a-z_]+"
)


def shown(answer: httpx.Response) -> list[str]:
    """The refusals on the page: the alert at the top and each field's."""
    return [html.unescape(re.sub(r"<[^>]+>", "", m)).strip() for m in _SHOWN.findall(answer.text)]


def said(answer: httpx.Response, field: str, sentence: str) -> None:
    """A 422 whose `field` has `sentence` beside it, and nothing on the page in keys."""
    assert answer.status_code == 422, answer.status_code
    messages = shown(answer)
    beside = re.search(rf'<p class="error" id="{re.escape(field)}-error">(.*?)</p>', answer.text)
    assert beside, (field, messages)
    assert html.unescape(beside.group(1)) == sentence, (field, messages)
    for message in messages:
        assert not _KEYS.search(message), message


async def test_the_order_forms_name_the_line_and_its_field(shop: Shop) -> None:
    customer = await factories.customer(shop.ws)
    base = {"customer": str(customer.id), "lines-0-description": "Design fee"}
    cases = [
        ({"lines-0-quantity": "2"}, "lines-0-unit_price", "Line 1: the unit price is required."),
        ({"lines-0-quantity": "-5", "lines-0-unit_price": "4"}, "lines-0-quantity",
         "Line 1: the quantity must be at least 1."),
        ({"lines-0-quantity": "0", "lines-0-unit_price": "4"}, "lines-0-quantity",
         "Line 1: the quantity must be at least 1."),
        ({"lines-0-quantity": "two", "lines-0-unit_price": "4"}, "lines-0-quantity",
         "Line 1: the quantity must be a whole number, e.g. 2."),
        ({"lines-0-description": " ", "lines-0-quantity": "1", "lines-0-unit_price": "4"},
         "lines-0-description", "Line 1: the description must not be blank."),
        ({"lines-0-quantity": "1", "lines-0-unit_price": "4", "lines-0-sku": "NOPE"},
         "lines-0-sku", "Line 1: the SKU is not one this workspace has."),
        ({"lines-0-quantity": "1", "lines-0-unit_price": "4", "due_by": "31/12/2030"}, "due_by",
         "The due date must be a date, e.g. 2026-12-24."),
        ({"lines-0-quantity": "1", "lines-0-unit_price": "4", "customer": ""}, "customer",
         "The customer is required."),
        ({"lines-0-quantity": "1", "lines-0-unit_price": "4", "external_ref": "x" * 101},
         "external_ref", "Your reference must be at most 100 characters."),
        ({"lines-0-description": ""}, "lines",
         "Add a garment or a line: an order needs at least one."),
        ({"items-0-style": "Cap", "items-0-colour": "Red", "items-0-size-M": "2",
          "lines-0-description": ""}, "items-0-unit_price",
         "Garment 1: Price each is required: the workspace has no price list yet."),
    ]  # fmt: skip
    for typed, field, sentence in cases:
        answer = await post_form(
            shop.client, "/admin/orders/new", "/admin/orders/new", {**base, **typed}
        )
        said(answer, field, sentence)
        assert sentence in shown(answer)[0]  # the summary at the top says it too
    # the second line's refusal names the second line, whatever the fields' numbers
    two = {**base, "lines-0-quantity": "1", "lines-0-unit_price": "4",
           "lines-7-description": "Rush", "lines-7-quantity": "1"}  # fmt: skip
    answer = await post_form(shop.client, "/admin/orders/new", "/admin/orders/new", two)
    said(answer, "lines-7-unit_price", "Line 2: the unit price is required.")
    assert await Order.count() == 0

    order = await factories.order(shop.ws, customer)
    page = f"/admin/orders/{order.number}/edit"
    edit = {"revision": "1", "lines-0-description": "Front print", "lines-0-quantity": "-5",
            "lines-0-unit_price": "12.50"}  # fmt: skip
    said(await post_form(shop.client, page, page, edit), "lines-0-quantity",
         "Line 1: the quantity must be at least 1.")  # fmt: skip


async def test_customer_and_contact_forms_name_their_fields(shop: Shop) -> None:
    new = {"name": " ", "slug": "Bad Slug", "payment_terms": "net_99", "discount": "lots",
           "price_list": "Trade"}  # fmt: skip
    answer = await post_form(shop.client, "/admin/customers/new", "/admin/customers/", new)
    said(answer, "name", "The name must not be blank.")
    said(answer, "slug", "The slug must be lowercase letters, digits and single hyphens.")
    said(answer, "payment_terms", "The payment terms must be one of the choices offered.")
    said(answer, "discount", "The discount must be a number.")
    customer = await factories.customer(shop.ws)
    edit = {"name": "x" * 201, "slug": customer.slug, "payment_terms": "net_30"}
    page = f"/admin/customers/{customer.id}/edit"
    said(await post_form(shop.client, page, f"/admin/customers/{customer.id}", edit), "name",
         "The name must be at most 200 characters.")  # fmt: skip
    contact = {"name": "", "email": "not an email", "phone": "x" * 51}
    page = f"/admin/customers/{customer.id}"
    answer = await post_form(shop.client, page, f"{page}/contacts", contact)
    said(answer, "name", "The name must not be blank.")
    said(answer, "phone", "The phone number must be at most 50 characters.")
    assert shown(answer)[2].startswith("The email must be an email address such as")
    ada = await factories.contact(customer, name="Ada")
    page = f"/admin/customers/{customer.id}/contacts/{ada.id}"
    said(await post_form(shop.client, page, page, {"name": "Ada", "email": ""}), "email",
         "The email must not be blank.")  # fmt: skip


async def test_stock_payment_staff_token_account_and_webhook_forms(shop: Shop) -> None:
    sku = await factories.sku(shop.ws, "TEE-M")
    page = "/admin/inventory/TEE-M"
    answer = await post_form(shop.client, page, f"{page}/adjust", {"delta": "lots", "reason": ""})
    said(answer, "delta", "The change must be a whole number, e.g. 12 or -3.")
    said(answer, "reason", "The reason is required: say why (received, damaged, count…).")
    assert sku.id

    order = await factories.order(shop.ws, await factories.customer(shop.ws))
    invoice = await factories.invoice(order, total=10_000)
    page = f"/admin/invoices/{invoice.number}"
    bad = {"amount": "-5", "method": "", "date": "27/11/2026", "reference": "a\x01b"}
    answer = await post_form(shop.client, page, f"{page}/payments", bad)
    said(answer, "amount", "Type the amount without a minus sign, e.g. 12.50: it cannot be "
         "negative here.")  # fmt: skip
    said(answer, "method", "Choose the method: how it was paid.")
    said(answer, "date", "Type the date as YYYY-MM-DD, e.g. 2026-11-27.")
    said(answer, "reference", "The reference must be one line of text, without control characters.")

    staff = {"name": "", "email": "x", "role": "boss", "password": "short"}
    answer = await post_form(shop.client, "/admin/staff", "/admin/staff/", staff)
    said(answer, "name", "The name must not be blank.")
    said(answer, "role", "The role must be one of the choices offered.")
    said(answer, "password", "The initial password must be at least 12 characters.")
    someone = await member(shop.ws, role="staff")
    page = f"/admin/staff/{someone.id}/password"
    answer = await post_form(
        shop.client, page, page, {"password": "a" * 12, "confirm_password": "b"}
    )
    said(answer, "confirm_password", "The password typed again does not match the new password.")

    token = {"name": "x" * 101, "days": "0"}
    answer = await post_form(shop.client, "/admin/tokens", "/admin/tokens/", token)
    said(answer, "days", "The lifetime in days must be between 1 and 3650.")
    said(answer, "name", "The name must be at most 100 characters.")

    mine = {"current_password": "wrong", "new_password": "short", "confirm_password": "other"}
    answer = await post_form(shop.client, "/admin/account", "/admin/account/password", mine)
    said(answer, "current_password", "The password typed as current is not your current password.")
    said(answer, "new_password", "The new password must be at least 12 characters.")

    hook = {"url": "ftp://example.com", "events": "order.nope"}
    answer = await post_form(shop.client, "/admin/webhooks", "/admin/webhooks/", hook)
    said(answer, "url", "The URL must be absolute, with http or https and a host.")
    assert shown(answer)[1].startswith("The events: Unknown event order.nope")


# --- a due date in the past: a second click -------------------------------------------------------


def _local_today(zone: str) -> dt.date:
    return clock.now().astimezone(ZoneInfo(zone)).date()


async def _new_order(shop: Shop, **fields: str) -> httpx.Response:
    customer = await factories.customer(shop.ws)
    data = {"customer": str(customer.id), "lines-0-description": "Design fee",
            "lines-0-quantity": "1", "lines-0-unit_price": "40", **fields}  # fmt: skip
    return await post_form(shop.client, "/admin/orders/new", "/admin/orders/new", data)


def _hidden(answer: httpx.Response, name: str) -> str | None:
    found = re.search(rf'<input type="hidden" name="{name}" value="([^"]*)">', answer.text)
    return found.group(1) if found else None


async def test_a_past_due_date_is_saved_on_the_second_click(shop: Shop) -> None:
    past = _local_today("Europe/London") - dt.timedelta(days=24)
    first = await _new_order(shop, due_by=past.isoformat())
    assert first.status_code == 422 and await Order.count() == 0
    warning = f"The due date {past.day} {past:%b %Y} is in the past. Save anyway?"
    assert warning in shown(first)[0]
    assert 'id="save-order" name="action" value="save">Create order anyway</button>' in first.text
    assert _hidden(first, "confirm_due_by") == past.isoformat()
    assert 'value="Design fee"' in first.text  # all typed kept

    other = past - dt.timedelta(days=1)  # another past date typed: asked again
    again = await _new_order(shop, due_by=other.isoformat(), confirm_due_by=past.isoformat())
    assert again.status_code == 422 and _hidden(again, "confirm_due_by") == other.isoformat()
    assert await Order.count() == 0

    second = await _new_order(shop, due_by=past.isoformat(), confirm_due_by=past.isoformat())
    assert second.status_code == 303, shown(second)
    assert await Order.count() == 1
    today = await _new_order(shop, due_by=_local_today("Europe/London").isoformat())
    assert today.status_code == 303  # today is not in the past
    assert await Order.count() == 2


@pytest.mark.parametrize(("zone", "asked"), [("Pacific/Kiritimati", True),
                                             ("Pacific/Pago_Pago", False)])  # fmt: skip
async def test_the_workspaces_time_zone_says_what_today_is(shop: Shop, zone: str, asked: bool):
    """UTC+14 and UTC-11 are 25 hours apart: their dates always differ, so Pago Pago's today
    is always in the past at Kiritimati."""
    await Workspace.update({Workspace.timezone: zone}).where(Workspace.id == shop.ws.id)
    day = _local_today("Pacific/Pago_Pago")
    answer = await _new_order(shop, due_by=day.isoformat())
    assert answer.status_code == (422 if asked else 303)
    assert ("is in the past. Save anyway?" in answer.text) is asked


async def test_an_edit_asks_only_when_the_due_date_becomes_past(shop: Shop) -> None:
    past = _local_today("Europe/London") - dt.timedelta(days=3)
    created = await _new_order(shop, due_by=past.isoformat(), confirm_due_by=past.isoformat())
    number = created.headers["location"].rsplit("/", 1)[1]
    page = f"/admin/orders/{number}/edit"
    typed = {"revision": "1", "due_by": past.isoformat(), "lines-0-description": "Design fee",
             "lines-0-quantity": "1", "lines-0-unit_price": "40.00"}  # fmt: skip
    notes = await post_form(shop.client, page, page, {**typed, "notes": "Side door"})
    assert notes.status_code == 303  # its due date unchanged: nothing to confirm
    earlier = (past - dt.timedelta(days=1)).isoformat()
    moved = await post_form(shop.client, page, page, {**typed, "revision": "2", "due_by": earlier})
    assert moved.status_code == 422
    assert "Save anyway</button>" in moved.text and _hidden(moved, "confirm_due_by") == earlier
    row = await Order.select(Order.revision).where(Order.number == number).first()
    assert row["revision"] == 2
    confirmed = {**typed, "revision": "2", "due_by": earlier, "confirm_due_by": earlier}
    assert (await post_form(shop.client, page, page, confirmed)).status_code == 303
    row = await Order.select(Order.revision).where(Order.number == number).first()
    assert row["revision"] == 3
