"""Voiding payments in the admin: owners see Void beside each payment on the invoice page and
the order page; it opens a confirmation that asks for the reason (no script needed), then the
void the API makes (balance back, a paid invoice issued again, `payment.voided`), and the
payment stays, struck through with why. Staff see no Void and are refused; another
workspace's or another invoice's payment is 404. "Mark paid" asks first too."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from litestar import Litestar

from models.tables import Invoice, Order, Payment, WebhookEvent
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of, log_in, member, post_form

TOTAL = 12_000


@pytest.fixture
async def other_browser(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


async def _invoice(shop: Shop, *amounts: int, status: str = "issued") -> tuple[Invoice, list]:
    c = await factories.customer(shop.ws, "Acme Tees")
    order = await factories.order(shop.ws, c, stage="dispatched")
    invoice = await factories.invoice(order, total=TOTAL, status=status)
    paid = [await factories.payment(invoice, n, reference=f"CHQ {n}") for n in amounts]
    return invoice, paid


def _page(invoice: Invoice) -> str:
    return f"/admin/invoices/{invoice.number}"


def _void_url(invoice: Invoice, payment: Any, back: str = "") -> str:
    return f"{_page(invoice)}/payments/{payment.id}/void" + (f"?back={back}" if back else "")


async def _void(shop: Shop, invoice: Invoice, payment: Any, **fields: str) -> httpx.Response:
    url = _void_url(invoice, payment)
    return await post_form(shop.client, url, url, fields)


async def _state(invoice_id: int) -> tuple[Any, ...]:
    row = await Invoice.select(Invoice.status, Invoice.paid_cents, Invoice.paid_at).where(
        Invoice.id == invoice_id
    )
    voids = await Payment.select(Payment.voided_at, Payment.void_reason).where(
        Payment.invoice == invoice_id
    )
    return row[0], voids, await WebhookEvent.count()


async def test_void_from_the_invoice_page_with_a_reason(shop: Shop) -> None:
    invoice, (first, second) = await _invoice(shop, 2_000, 3_000)
    page = await shop.client.get(_page(invoice))
    assert f'href="{_void_url(invoice, first)}"' in page.text
    assert f'href="{_void_url(invoice, second)}"' in page.text

    confirm = await shop.client.get(_void_url(invoice, first))
    assert confirm.status_code == 200
    assert f"Void the payment of 20.00 GBP on {invoice.number}?" in confirm.text
    assert "the balance goes from 70.00 GBP to <strong>90.00 GBP</strong>" in confirm.text
    assert '<label for="reason">Reason</label>' in confirm.text
    before = await _state(invoice.id)
    blank = await _void(shop, invoice, first, reason="   ")
    assert blank.status_code == 422
    assert "The reason must not be blank." in blank.text and 'aria-invalid="true"' in blank.text
    long = await _void(shop, invoice, first, reason="r" * 501)
    assert long.status_code == 422 and "The reason must be at most 500 characters." in long.text
    assert 'value="' + "r" * 501 + '"' in long.text  # shown again as typed
    assert await _state(invoice.id) == before

    voided = await _void(shop, invoice, first, reason="Cheque returned unpaid")

    assert voided.status_code == 303 and voided.headers["location"] == _page(invoice)
    after = await shop.client.get(_page(invoice))
    assert "The payment of 20.00 GBP was voided: 90.00 GBP to pay on" in after.text
    row = after.text.split(f'id="payment-{first.id}"')[1].split("</tr>")[0]
    assert row.startswith(' class="voided"')
    assert "Voided " in row and "Cheque returned unpaid" in row
    assert f"voided by {shop.owner.name}" in row and "Void…" not in row
    assert '<td class="num" id="inv-balance">90.00 GBP</td>' in after.text
    stored = await Payment.objects().where(Payment.id == first.id).first()
    assert (stored.voided_by, stored.void_reason) == (shop.owner.id, "Cheque returned unpaid")
    assert stored.voided_at is not None
    [event] = await WebhookEvent.select(WebhookEvent.body).where(
        WebhookEvent.name == "payment.voided"
    )
    body = json.loads(event["body"])
    assert (body["payment_id"], body["balance_cents"], body["reason"]) == (
        first.id, 9_000, "Cheque returned unpaid",
    )  # fmt: skip


async def test_void_from_the_order_page_reopens_a_paid_invoice(shop: Shop) -> None:
    invoice, _ = await _invoice(shop, status="paid")
    payment = await factories.payment(invoice, 0)  # the invoice's whole payment, below
    await Payment.update({Payment.amount_cents: TOTAL}).where(Payment.id == payment.id)
    order = f"/admin/orders/{invoice.order}"
    page = await shop.client.get(order)
    assert f'href="{_void_url(invoice, payment, "order")}"' in page.text

    url = _void_url(invoice, payment, "order")
    confirm = await shop.client.get(url)
    assert "and the invoice is no longer paid" in confirm.text
    assert 'name="back" value="order"' in confirm.text
    voided = await post_form(
        shop.client, url, url, {"reason": "Card charge refunded", "back": "order"}
    )

    assert voided.status_code == 303
    number = (await Order.select(Order.number).where(Order.id == invoice.order))[0]["number"]
    assert voided.headers["location"] == f"/admin/orders/{number}"
    shown = await shop.client.get(voided.headers["location"])
    assert "The invoice is no longer paid." in shown.text
    item = shown.text.split(f'id="order-payment-{payment.id}"')[1].split("</li>")[0]
    assert item.startswith(' class="voided"') and "Card charge refunded" in item
    assert "Void…" not in item
    assert f"{invoice.number}</a></strong> · issued" in shown.text
    assert 'data-kind="payment_void"' in shown.text  # the timeline tells it too
    row = await Invoice.objects().where(Invoice.id == invoice.id).first()
    assert (row.status, row.paid_at, row.paid_cents) == ("issued", None, 0)


async def test_staff_see_no_void_and_are_refused(
    shop: Shop, other_browser: httpx.AsyncClient
) -> None:
    invoice, (payment,) = await _invoice(shop, 2_000)
    staff = await member(shop.ws, role="staff")
    await log_in(other_browser, staff.email)
    before = await _state(invoice.id)

    page = await other_browser.get(_page(invoice))
    order = await other_browser.get(f"/admin/orders/{invoice.order}")

    assert page.status_code == order.status_code == 200
    assert "/void" not in page.text and "/void" not in order.text
    assert (await other_browser.get(_void_url(invoice, payment))).status_code == 403
    refused = await other_browser.post(
        _void_url(invoice, payment), data={"reason": "Mine now", "_csrf_token": csrf_of(page)}
    )
    assert refused.status_code == 403
    assert await _state(invoice.id) == before


async def test_a_voided_payment_says_so_and_a_second_void_is_refused(shop: Shop) -> None:
    invoice, (payment,) = await _invoice(shop, 2_000)
    url = _void_url(invoice, payment)
    form_page = await shop.client.get(url)  # opened before the first void
    assert (await _void(shop, invoice, payment, reason="Bounced")).status_code == 303
    before = await _state(invoice.id)

    again = await shop.client.post(url, data={"reason": "Again", "_csrf_token": csrf_of(form_page)})

    assert again.status_code == 422
    assert f"Payment {payment.id} was already voided on " in again.text
    assert 'id="already-voided"' in again.text and "Bounced" in again.text
    assert await _state(invoice.id) == before
    shown = await shop.client.get(url)
    assert shown.status_code == 200 and 'name="reason"' not in shown.text


async def test_other_workspaces_and_other_invoices_payments_are_404(shop: Shop) -> None:
    mine, (my_payment,) = await _invoice(shop, 1_000)
    _, (other_payment,) = await _invoice(shop, 1_000)
    ws = await factories.workspace()
    c = await factories.customer(ws)
    theirs = await factories.invoice(await factories.order(ws, c, stage="dispatched"))
    their_payment = await factories.payment(theirs, 500)
    page = await shop.client.get(_page(mine))
    token = csrf_of(page)
    cases = [
        (f"/admin/invoices/{theirs.number}/payments/{their_payment.id}/void"),
        (f"{_page(mine)}/payments/{their_payment.id}/void"),
        (f"{_page(mine)}/payments/{other_payment.id}/void"),
        (f"{_page(mine)}/payments/2147483648/void"),
        (f"{_page(mine)}/payments/99999999999999999999/void"),
        (f"{_page(mine)}/payments/0/void"),
        ("/admin/invoices/INV-0000-0000/payments/1/void"),
    ]
    for url in cases:
        assert (await shop.client.get(url)).status_code == 404, url
        posted = await shop.client.post(url, data={"reason": "x", "_csrf_token": token})
        assert posted.status_code == 404, url
    assert await Payment.count().where(Payment.voided_at.is_not_null()) == 0
    no_csrf = await shop.client.post(_void_url(mine, my_payment), data={"reason": "x"})
    assert no_csrf.status_code == 403
    assert await Payment.count().where(Payment.voided_at.is_not_null()) == 0


async def test_mark_paid_asks_first(shop: Shop) -> None:
    invoice, _ = await _invoice(shop, 2_000)
    page = await shop.client.get(_page(invoice))
    assert f'action="{_page(invoice)}/paid"' not in page.text  # no button that pays at once
    assert f'href="{_page(invoice)}/paid"' in page.text
    listing = await shop.client.get("/admin/invoices")
    assert f'href="{_page(invoice)}/paid?back=list"' in listing.text
    assert f'action="{_page(invoice)}/paid"' not in listing.text

    confirm = await shop.client.get(f"{_page(invoice)}/paid?back=list")

    assert confirm.status_code == 200
    assert "This records a payment of the whole balance, <strong>100.00 GBP</strong>" in (
        confirm.text
    )
    assert f'action="{_page(invoice)}/paid"' in confirm.text
    assert 'name="next" value="/admin/invoices"' in confirm.text
    assert await Payment.count() == 1  # nothing paid by asking
    paid = await post_form(
        shop.client, f"{_page(invoice)}/paid?back=list", f"{_page(invoice)}/paid",
        {"next": "/admin/invoices"},
    )  # fmt: skip
    assert paid.status_code == 303 and paid.headers["location"] == "/admin/invoices"
    assert (await Invoice.objects().where(Invoice.id == invoice.id).first()).status == "paid"
    again = await shop.client.get(f"{_page(invoice)}/paid")
    assert again.status_code == 200 and 'id="not-payable"' in again.text
    assert f'action="{_page(invoice)}/paid"' not in again.text
    ws = await factories.workspace()
    theirs = await factories.invoice(
        await factories.order(ws, await factories.customer(ws), stage="dispatched")
    )
    assert (await shop.client.get(f"{_page(theirs)}/paid")).status_code == 404
