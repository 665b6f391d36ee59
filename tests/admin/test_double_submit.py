"""A create form sent twice makes one record: the second submit of the same form (a double
click, a reload of the POST, Back and Save again) opens what the first made, "Already
created: …", also when both arrive at once; a submit refused for its fields frees the form's
token, so the corrected form saves."""

from __future__ import annotations

import asyncio
import re

import httpx

from models.tables import Customer, Order, Payment, Workspace
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of

ONCE = re.compile(r'name="once" value="([^"]+)"')


async def _form(client: httpx.AsyncClient, page: str) -> dict[str, str]:
    opened = await client.get(page)
    assert opened.status_code == 200, opened.status_code
    token = ONCE.search(opened.text)
    assert token, "the form carries its one-time token"
    return {"_csrf_token": csrf_of(opened), "once": token.group(1)}


def _order(customer_id: int) -> dict[str, str]:
    return {
        "customer": str(customer_id),
        "lines-0-description": "Front print",
        "lines-0-quantity": "10",
        "lines-0-unit_price": "4.50",
    }


async def test_a_new_order_form_sent_twice_makes_one_order(shop: Shop) -> None:
    customer = await factories.customer(shop.ws)
    sent = {**await _form(shop.client, "/admin/orders/new"), **_order(customer.id)}
    first = await shop.client.post("/admin/orders/new", data=sent)
    assert first.status_code == 303, first.text
    again = await shop.client.post("/admin/orders/new", data=sent)
    assert again.status_code == 303
    assert again.headers["location"] == first.headers["location"]
    assert await Order.count() == 1
    number = (await Order.select(Order.number).first() or {})["number"]
    shown = await shop.client.get(again.headers["location"])
    assert f"Already created: {number}." in shown.text
    # A new form is a new order.
    other = {**await _form(shop.client, "/admin/orders/new"), **_order(customer.id)}
    assert (await shop.client.post("/admin/orders/new", data=other)).status_code == 303
    assert await Order.count() == 2


async def test_two_submits_at_once_make_one_order(shop: Shop) -> None:
    customer = await factories.customer(shop.ws)
    sent = {**await _form(shop.client, "/admin/orders/new"), **_order(customer.id)}
    answers = await asyncio.gather(
        *(shop.client.post("/admin/orders/new", data=sent) for _ in range(4))
    )
    assert [a.status_code for a in answers] == [303] * 4
    assert len({a.headers["location"] for a in answers}) == 1
    assert await Order.count() == 1


async def test_a_refused_submit_frees_the_token_for_the_corrected_form(shop: Shop) -> None:
    customer = await factories.customer(shop.ws)
    sent = {**await _form(shop.client, "/admin/orders/new"), **_order(customer.id)}
    refused = await shop.client.post("/admin/orders/new", data={**sent, "lines-0-quantity": "-1"})
    assert refused.status_code == 422
    assert f'name="once" value="{sent["once"]}"' in refused.text  # the same form, shown again
    saved = await shop.client.post("/admin/orders/new", data=sent)
    assert saved.status_code == 303
    assert await Order.count() == 1


async def test_a_new_customer_form_sent_twice_makes_one_customer(shop: Shop) -> None:
    sent = {
        **await _form(shop.client, "/admin/customers/new"),
        "name": "Hop & Barley",
        "payment_terms": "net_30",
    }
    first = await shop.client.post("/admin/customers/", data=sent)
    again = await shop.client.post("/admin/customers/", data=sent)
    assert first.status_code == again.status_code == 303, first.text
    assert again.headers["location"] == first.headers["location"]
    assert await Customer.count().where(Customer.workspace == shop.ws.id) == 1
    shown = await shop.client.get(again.headers["location"])
    assert "Already created: Hop &amp; Barley." in shown.text


async def test_another_staff_members_token_is_not_theirs(shop: Shop, app) -> None:
    """Tokens belong to the staff member who opened the form: another's submit with it
    creates its own record (it cannot open the first one's)."""
    customer = await factories.customer(shop.ws)
    sent = {**await _form(shop.client, "/admin/orders/new"), **_order(customer.id)}
    assert (await shop.client.post("/admin/orders/new", data=sent)).status_code == 303
    from tests.admin.support import log_in, member

    colleague = await member(shop.ws, role="staff")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
        assert (await log_in(other, colleague.email)).status_code == 303
        theirs = {**await _form(other, "/admin/orders/new"), "once": sent["once"]}
        answer = await other.post("/admin/orders/new", data={**theirs, **_order(customer.id)})
    assert answer.status_code == 303
    assert await Order.count() == 2


async def test_a_token_form_sent_twice_makes_one_token_and_shows_its_secret_once(
    shop: Shop,
) -> None:
    from models.tables import ApiToken

    await Workspace.update({Workspace.plan: "premium"}).where(Workspace.id == shop.ws.id)
    sent = {**await _form(shop.client, "/admin/tokens/"), "name": "Shop website", "days": "30"}
    first = await shop.client.post("/admin/tokens/", data=sent)
    assert first.headers["location"] == "/admin/tokens/created"
    shown = await shop.client.get(first.headers["location"])
    secret = re.search(r"plk_[A-Za-z0-9_-]{20,}", shown.text)
    assert secret  # the secret, once
    again = await shop.client.post("/admin/tokens/", data=sent)
    assert again.headers["location"] == "/admin/tokens"
    listed = await shop.client.get(again.headers["location"])
    assert "Already created: the token Shop website." in listed.text
    assert secret.group(0) not in listed.text
    assert await ApiToken.count().where(ApiToken.name == "Shop website") == 1


async def test_a_subscription_form_sent_twice_makes_one_subscription(shop: Shop) -> None:
    from models.tables import WebhookSubscription

    sent = {
        **await _form(shop.client, "/admin/webhooks/"),
        "url": "https://hooks.example.com/in",
        "events": "*",
    }
    first = await shop.client.post("/admin/webhooks/", data=sent)
    assert first.status_code == 303, first.text
    assert first.headers["location"].endswith("/secret")
    again = await shop.client.post("/admin/webhooks/", data=sent)
    assert again.headers["location"] == first.headers["location"].removesuffix("/secret")
    assert await WebhookSubscription.count() == 1


async def test_a_member_form_sent_twice_adds_one_member(shop: Shop) -> None:
    sent = {
        **await _form(shop.client, "/admin/staff/"),
        "name": "Priya Shah",
        "email": "priya@example.com",
        "role": "staff",
        "password": "a long enough password",
    }
    first = await shop.client.post("/admin/staff/", data=sent)
    again = await shop.client.post("/admin/staff/", data=sent)
    assert first.status_code == again.status_code == 303, first.text
    listed = await shop.client.get(again.headers["location"])
    assert "Already created: Priya Shah (staff)." in listed.text  # not "email already taken"


async def test_a_payment_form_sent_twice_records_one_payment(shop: Shop) -> None:
    """The invoice's payment form carries a token too: after Back its fields come back
    (static/keep-typed.js), so Record payment again must not pay twice; a refused amount
    frees the token for the corrected form."""
    customer = await factories.customer(shop.ws)
    order = await factories.order(shop.ws, customer, stage="dispatched")
    invoice = await factories.invoice(order)
    page = f"/admin/invoices/{invoice.number}"
    sent = {**await _form(shop.client, page), "amount": "12.50", "method": "cheque",
            "date": "", "reference": "Cheque 000417"}  # fmt: skip
    refused = await shop.client.post(f"{page}/payments", data={**sent, "amount": "99999"})
    assert refused.status_code == 422
    assert f'name="once" value="{sent["once"]}"' in refused.text  # the same form, shown again
    first = await shop.client.post(f"{page}/payments", data=sent)
    again = await shop.client.post(f"{page}/payments", data=sent)
    assert first.status_code == again.status_code == 303, first.text
    assert again.headers["location"] == first.headers["location"] == page
    assert await Payment.count().where(Payment.invoice == invoice.id) == 1
    shown = await shop.client.get(page)
    assert f"Already recorded: the payment of 12.50 GBP for {invoice.number}." in shown.text
    # A new form (the invoice's page as it is now) is a new payment.
    other = {**await _form(shop.client, page), "amount": "1", "method": "cash", "date": ""}
    assert (await shop.client.post(f"{page}/payments", data=other)).status_code == 303
    assert await Payment.count().where(Payment.invoice == invoice.id) == 2
