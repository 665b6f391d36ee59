"""Every money field of the admin reads amounts one way (models/money.py): `1250`,
`1250.5`, `1,250.00` and `12,50` (a comma before one or two final digits is the decimal point),
with the workspace currency's sign or code if typed (`£12.50`, `GBP 12.50`), are stored as the
cents they say; anything else, `1,250` and another currency's sign included, is refused with
an example of what to type and nothing is stored. Checked through HTTP on the new-order form
(a plain line's unit price, a garment's price each) and on an invoice's payment form."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from markupsafe import escape

from models.tables import Order, OrderItem, OrderLine, Payment
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import post_form

ACCEPTED = [
    ("1250", 125_000),
    ("1250.5", 125_050),
    ("1,250.00", 125_000),
    ("12,50", 1_250),
    ("12,5", 1_250),
    ("1,250.5", 125_050),
    (" 12.50 ", 1_250),
    ("£12.50", 1_250),  # the workspace's currency (GBP), before or after, sign or code
    ("12.50 £", 1_250),
    ("GBP 12.50", 1_250),
    ("12,50 gbp", 1_250),
    ("£1 250.50", 125_050),  # spaces between thousands
]
EXAMPLE = "Type an amount with at most two decimals, e.g. 1250, 1250.50, 1,250.50 or 12,50"
# What is refused, and the words that say what to type instead.
REFUSED = [
    ("1,250", "Type the amount as 1250 (or 1,250.00) or as 1.25"),
    ("12,500", "Type the amount as 12500 (or 12,500.00) or as 12.5"),
    ("1,250,000", "Type the amount as 1250000 or 1,250,000.00"),
    ("-5", "Type the amount without a minus sign, e.g. 12.50"),
    ("-12,50", "Type the amount without a minus sign, e.g. 12.50"),
    ("12.345", EXAMPLE),
    ("1.250,50", EXAMPLE),
    ("12,", EXAMPLE),
    (
        "12 USD",
        "USD is not this workspace's currency (GBP): type the amount without it, e.g. 12.50",
    ),
    ("€12,50", "€ is not this workspace's currency (GBP): type the amount without it, e.g. 12.50"),
    ("12 pounds", EXAMPLE),
    ("££12", EXAMPLE),
    ("twelve", EXAMPLE),
]


async def _line_order(shop: Shop, price: str) -> httpx.Response:
    customer = await factories.customer(shop.ws)
    data = {
        "customer": str(customer.id), "lines-0-description": "Design fee",
        "lines-0-quantity": "1", "lines-0-unit_price": price,
    }  # fmt: skip
    return await post_form(shop.client, "/admin/orders/new", "/admin/orders/new", data)


async def _garment_order(shop: Shop, price: str) -> httpx.Response:
    customer = await factories.customer(shop.ws)
    data = {
        "customer": str(customer.id), "items-0-style": "Snapback", "items-0-colour": "Red",
        "items-0-unit_price": price, "items-0-size-M": "3",
    }  # fmt: skip
    return await post_form(shop.client, "/admin/orders/new", "/admin/orders/new", data)


async def _payment(shop: Shop, amount: str) -> tuple[httpx.Response, Any]:
    customer = await factories.customer(shop.ws)
    order = await factories.order(shop.ws, customer)
    invoice = await factories.invoice(order, total=500_000)
    page = f"/admin/invoices/{invoice.number}"
    data = {"amount": amount, "method": "card", "date": "", "reference": "R1"}
    answer = await post_form(shop.client, page, f"{page}/payments", data)
    return answer, invoice


@pytest.mark.parametrize(("typed", "cents"), ACCEPTED)
async def test_a_line_price_is_stored_as_the_cents_typed(shop: Shop, typed: str, cents: int):
    answer = await _line_order(shop, typed)
    assert answer.status_code == 303, answer.text[-2000:]
    assert await OrderLine.select(OrderLine.unit_price_cents).output(as_list=True) == [cents]


@pytest.mark.parametrize(("typed", "cents"), ACCEPTED)
async def test_a_garment_price_is_stored_as_the_cents_typed(shop: Shop, typed: str, cents: int):
    answer = await _garment_order(shop, typed)
    assert answer.status_code == 303, answer.text[-2000:]
    assert await OrderItem.select(OrderItem.unit_price_cents).output(as_list=True) == [cents]


@pytest.mark.parametrize(("typed", "cents"), ACCEPTED)
async def test_a_payment_is_stored_as_the_cents_typed(shop: Shop, typed: str, cents: int):
    answer, invoice = await _payment(shop, typed)
    assert answer.status_code == 303, answer.text[-2000:]
    rows = await Payment.select(Payment.amount_cents).where(Payment.invoice == invoice.id)
    assert [row["amount_cents"] for row in rows] == [cents]


@pytest.mark.parametrize(("typed", "words"), REFUSED)
async def test_a_refused_line_price_says_what_to_type(shop: Shop, typed: str, words: str):
    answer = await _line_order(shop, typed)
    assert answer.status_code == 422
    said = f'<p class="error" id="lines-0-unit_price-error">Line 1, the unit price: {escape(words)}'
    assert said in answer.text
    assert await Order.count() == 0


@pytest.mark.parametrize(("typed", "words"), REFUSED)
async def test_a_refused_garment_price_says_what_to_type(shop: Shop, typed: str, words: str):
    answer = await _garment_order(shop, typed)
    assert answer.status_code == 422
    said = f'<p class="error" id="items-0-unit_price-error">Garment 1, price each: {escape(words)}'
    assert said in answer.text
    assert await Order.count() == 0


@pytest.mark.parametrize(("typed", "words"), REFUSED)
async def test_a_refused_payment_says_what_to_type(shop: Shop, typed: str, words: str):
    answer, _ = await _payment(shop, typed)
    assert answer.status_code == 422
    assert f'<p class="error" id="amount-error">{escape(words)}' in answer.text
    assert f'value="{typed}"' in answer.text  # kept as typed, to correct
    assert await Payment.count() == 0


async def test_a_zero_payment_is_refused_and_a_zero_price_is_not(shop: Shop):
    """A payment of nothing makes no sense; a free line (a sample, a courtesy fee) does."""
    answer, _ = await _payment(shop, "0,00")
    assert answer.status_code == 422
    assert "The amount must be at least 0.01." in answer.text
    free = await _line_order(shop, "0")
    assert free.status_code == 303
    fee = OrderLine.select(OrderLine.unit_price_cents).where(OrderLine.description == "Design fee")
    assert await fee.output(as_list=True) == [0]
