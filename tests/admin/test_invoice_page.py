"""The admin's invoice page: made to print — the shop, the customer, the order's
lines, payments, balance and due date — linked from the invoice list; its form records a
payment (amount as people type it, method, date, reference) through the API's own function,
"Mark paid" records the balance, and refusals come back beside their fields."""

from __future__ import annotations

import datetime as dt
import functools
import json
from zoneinfo import ZoneInfo

from models import clock
from models.tables import Invoice, Payment, WebhookEvent
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import post_form, statement_count

TOTAL = 12_345


async def _invoice(shop: Shop, **fields) -> Invoice:
    c = await factories.customer(shop.ws, "Acme Tees", payment_terms="net_30")
    await factories.contact(c, is_primary=True, name="Ada Lovelace", email="ada@acme.example")
    order = await factories.order(
        shop.ws, c, stage="dispatched", lines=[("Front print", 10, 850), ("Setup", 1, 2000)],
        external_ref="SHOP-991",
    )  # fmt: skip
    return await factories.invoice(order, total=TOTAL, **fields)


def _page(number: str) -> str:
    return f"/admin/invoices/{number}"


async def _pay(shop: Shop, invoice: Invoice, **typed: str):
    fields = {"amount": "", "method": "bank_transfer", "date": "", "reference": ""} | typed
    return await post_form(
        shop.client, _page(invoice.number), f"{_page(invoice.number)}/payments", fields
    )


async def _names() -> list[str]:
    rows = await WebhookEvent.select(WebhookEvent.name).order_by(WebhookEvent.id)
    return [row["name"] for row in rows]


async def test_the_page_shows_what_is_printed(shop: Shop) -> None:
    await shop.ws.update_self({"email": "hello@inkwell.example"})
    invoice = await _invoice(shop)

    page = await shop.client.get(_page(invoice.number))

    assert page.status_code == 200
    text = page.text
    assert f'<span id="inv-number">{invoice.number}</span>' in text
    shop_part = text.split('id="inv-shop"')[1].split("</div>")[0]
    assert shop.ws.name in shop_part and "hello@inkwell.example" in shop_part
    bill_to = text.split('id="inv-bill-to"')[1].split("</div>")[0]
    assert "Acme Tees" in bill_to and "Ada Lovelace" in bill_to and "ada@acme.example" in bill_to
    lines = text.split('id="inv-lines"')[1].split("</table>")[0]
    assert "Front print" in lines and "8.50 GBP" in lines and "85.00 GBP" in lines
    assert "Setup" in lines and "20.00 GBP" in lines
    assert '<td class="num" id="inv-total">123.45 GBP</td>' in text
    assert '<td class="num" id="inv-balance">123.45 GBP</td>' in text
    due = invoice.due_at.astimezone(ZoneInfo(shop.ws.timezone))
    assert f'<dd id="inv-due">{due:%Y-%m-%d}</dd>' in text
    assert f"Please pay 123.45 GBP by {due:%Y-%m-%d}, quoting {invoice.number}." in text
    assert "SHOP-991" in text
    assert "No payments yet." in text
    assert 'id="record-payment"' in text and 'id="mark-paid"' in text
    assert 'href="/admin/static/invoice.css"' in text


async def test_the_list_links_each_invoice_to_its_page(shop: Shop) -> None:
    invoice = await _invoice(shop)

    listing = await shop.client.get("/admin/invoices")

    assert f'href="/admin/invoices/{invoice.number}"' in listing.text
    assert (await shop.client.get(_page(invoice.number))).status_code == 200


async def test_a_part_payment_then_mark_paid(shop: Shop) -> None:
    invoice = await _invoice(shop)

    part = await _pay(shop, invoice, amount="23,45", reference="BACS 7781")

    assert part.status_code == 303 and part.headers["location"] == _page(invoice.number)
    shown = await shop.client.get(_page(invoice.number))
    assert "Payment of 23.45 GBP recorded: 100.00 GBP to pay." in shown.text
    payments = shown.text.split('id="inv-payments"')[1].split("</table>")[0]
    assert "Bank transfer" in payments and "BACS 7781" in payments and "23.45 GBP" in payments
    assert shop.owner.name in payments
    assert '<td class="num" id="inv-balance">100.00 GBP</td>' in shown.text
    row = await Payment.select(
        Payment.amount_cents, Payment.method, Payment.reference, Payment.actor_kind, Payment.user
    ).first()
    assert row == {
        "amount_cents": 2_345,
        "method": "bank_transfer",
        "reference": "BACS 7781",
        "actor_kind": "user",
        "user": shop.owner.id,
    }
    assert await _names() == ["invoice.payment_received"]

    marked = await post_form(
        shop.client, _page(invoice.number), f"{_page(invoice.number)}/paid",
        {"next": _page(invoice.number)},
    )  # fmt: skip

    assert marked.status_code == 303 and marked.headers["location"] == _page(invoice.number)
    after = await shop.client.get(_page(invoice.number))
    assert f"Invoice {invoice.number} was marked paid." in after.text
    assert '<td class="num" id="inv-balance">0.00 GBP</td>' in after.text
    assert '<dd id="inv-status">paid</dd>' in after.text
    assert 'id="record-payment"' not in after.text
    amounts = await Payment.select(Payment.amount_cents).order_by(Payment.id)
    assert [a["amount_cents"] for a in amounts] == [2_345, 10_000]
    assert await _names() == [
        "invoice.payment_received",
        "invoice.payment_received",
        "invoice.paid",
    ]
    received = await WebhookEvent.select(WebhookEvent.body).order_by(WebhookEvent.id)
    assert json.loads(received[1]["body"])["balance_cents"] == 0


async def test_a_payment_of_the_balance_makes_it_paid(shop: Shop) -> None:
    invoice = await _invoice(shop)

    paid = await _pay(shop, invoice, amount="123.45", method="card")

    assert paid.status_code == 303
    shown = await shop.client.get(_page(invoice.number))
    assert f"Payment of 123.45 GBP recorded: invoice {invoice.number} is paid." in shown.text
    row = (
        await Invoice.select(Invoice.status, Invoice.paid_cents)
        .where(Invoice.id == invoice.id)
        .first()
    )
    assert row == {"status": "paid", "paid_cents": TOTAL}
    assert (await _names()).count("invoice.paid") == 1


async def test_refusals_come_back_beside_their_fields_and_change_nothing(shop: Shop) -> None:
    invoice = await _invoice(shop)
    tomorrow = (clock.now() + dt.timedelta(days=2)).date().isoformat()
    cases = [
        ({"amount": ""}, "amount", "Type the amount received."),
        ({"amount": "1,250"}, "amount", "Type the amount as 1250 (or 1,250.00) or as 1.25"),
        ({"amount": "12.345"}, "amount", "Type an amount with at most two decimals"),
        ({"amount": "0"}, "amount", "The amount must be at least 0.01."),
        ({"amount": "123.46"}, "amount", "The amount is more than the balance, 123.45 GBP."),
        ({"amount": "9" * 40}, "amount", "Type an amount with at most two decimals"),
        ({"amount": "1", "method": "bitcoin"}, "method", "Choose the method: how it was paid."),
        ({"amount": "1", "date": "27/11/2026"}, "date", "Type the date as YYYY-MM-DD"),
        ({"amount": "1", "date": tomorrow}, "date", "The date must not be in the future."),
        ({"amount": "1", "date": "1969-12-31"}, "date", "The date must not be before 1970-01-01."),
        ({"amount": "1", "date": "0001-01-01"}, "date", "The date must not be before 1970-01-01."),
        (
            {"amount": "1", "reference": "x" * 101},
            "reference",
            "The reference must be at most 100 characters.",
        ),
        (
            {"amount": "1", "reference": "a\x00b"},
            "reference",
            "The reference must be one line of text, without control",
        ),
    ]
    for typed, field, words in cases:
        answer = await _pay(shop, invoice, **typed)
        assert answer.status_code == 422, (typed, answer.status_code)
        assert f'id="{field}-error">{words}' in answer.text, (typed, answer.text[-3000:])
        assert 'aria-invalid="true"' in answer.text
        if typed.get("amount"):
            assert f'value="{typed["amount"]}"' in answer.text  # kept as typed
    assert (await Payment.count(), await WebhookEvent.count()) == (0, 0)


async def test_a_date_in_the_past_is_kept(shop: Shop) -> None:
    invoice = await _invoice(shop)

    answer = await _pay(shop, invoice, amount="5", method="cash", date="2026-01-15")

    assert answer.status_code == 303
    row = await Payment.select(Payment.paid_at).first()
    # 00:00 of that day in the workspace's zone (Europe/London: UTC in January).
    assert row["paid_at"] == dt.datetime(2026, 1, 15, tzinfo=dt.UTC)


async def test_another_workspaces_invoice_is_404(shop: Shop) -> None:
    other = await factories.workspace()
    c = await factories.customer(other)
    theirs = await factories.invoice(await factories.order(other, c, stage="dispatched"))
    mine = await _invoice(shop)

    assert (await shop.client.get(_page(theirs.number))).status_code == 404
    answer = await post_form(
        shop.client, _page(mine.number), f"{_page(theirs.number)}/payments",
        {"amount": "1", "method": "cash"},
    )  # fmt: skip
    assert answer.status_code == 404
    assert (await shop.client.get(_page("INV-9999-0001"))).status_code == 404
    assert await Payment.count() == 0


async def test_a_paid_invoice_offers_no_payment_form(shop: Shop) -> None:
    invoice = await _invoice(shop, status="paid")

    page = await shop.client.get(_page(invoice.number))

    assert 'id="record-payment"' not in page.text and 'id="mark-paid"' not in page.text
    assert '<td class="num" id="inv-balance">0.00 GBP</td>' in page.text


async def test_the_page_costs_the_same_statements_for_one_payment_or_twenty(
    shop: Shop, statements: list[str]
) -> None:
    invoice = await _invoice(shop)
    await _pay(shop, invoice, amount="1")
    cost = functools.partial(statement_count, shop.client, statements, _page(invoice.number))
    one = await cost()
    for _ in range(19):
        await _pay(shop, invoice, amount="1")
    assert await cost() == one
