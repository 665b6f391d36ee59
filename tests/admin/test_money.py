"""Numbers typed in the admin: amounts read one way everywhere (models/money.py),
`12,50` as twelve and a half and `1,250` refused as ambiguous; whole numbers in ASCII digits
only; and every line of the new-order form kept, whatever its number, or refused — never
dropped."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from models.tables import ApiToken, Customer, Order, OrderLine
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import post_form

EXAMPLE = "e.g. 1250, 1250.50, 1,250.50 or 12,50"


async def create_order(shop: Shop, **fields: str) -> httpx.Response:
    customer = await factories.customer(shop.ws)
    data: dict[str, Any] = {
        "customer": str(customer.id),
        "lines-0-description": "Front print",
        "lines-0-quantity": "2",
        "lines-0-unit_price": "4.50",
        **fields,
    }
    return await post_form(shop.client, "/admin/orders/new", "/admin/orders/", data)


async def prices() -> list[int]:
    rows = OrderLine.select(OrderLine.unit_price_cents).order_by(OrderLine.position)
    return await rows.output(as_list=True)


@pytest.mark.parametrize(
    ("typed", "cents"),
    [
        ("1250", 125_000),
        ("1250.5", 125_050),
        ("1250.50", 125_050),
        ("1,250.00", 125_000),
        ("123,456.78", 12_345_678),
        ("12,50", 1_250),
        ("12,5", 1_250),
        (" 4.50 ", 450),
        ("0", 0),
        ("1000000.00", 100_000_000),
    ],
)
async def test_amounts_as_people_type_them(shop: Shop, typed: str, cents: int):
    answer = await create_order(shop, **{"lines-0-unit_price": typed})
    assert answer.status_code == 303, answer.text[-2000:]
    assert await prices() == [cents]


@pytest.mark.parametrize(
    "typed",
    [
        "1.250,50",
        "4.567",
        "12.",
        ".5",
        "1e3",
        "5 pounds",
        "\u0661\u0662",  # Arabic-Indic 12
        "\uff11\uff12",  # full-width 12
        "1_000",
    ],
)
async def test_anything_else_is_refused_with_an_example(shop: Shop, typed: str):
    answer = await create_order(shop, **{"lines-0-unit_price": typed})
    assert answer.status_code == 422
    assert EXAMPLE in answer.text
    assert 'id="lines-0-unit_price-error"' in answer.text
    assert await Order.count() == 0


async def test_a_price_past_the_limit_says_the_limit_in_major_units(shop: Shop):
    answer = await create_order(shop, **{"lines-0-unit_price": "1,000,000.01"})
    assert answer.status_code == 422
    assert "Line 1: the unit price must be at most 1,000,000.00." in answer.text
    assert "100000000" not in answer.text
    assert await Order.count() == 0


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("0", "Line 1: the quantity must be at least 1."),
        ("-2", "Line 1: the quantity must be at least 1."),
        ("\u0663", "Line 1: the quantity must be a whole number, e.g. 2."),  # Arabic-Indic 3
        ("\uff13", "Line 1: the quantity must be a whole number, e.g. 2."),  # full-width 3
    ],
)
async def test_quantities_are_whole_ascii_numbers_of_at_least_one(
    shop: Shop, typed: str, message: str
):
    answer = await create_order(shop, **{"lines-0-quantity": typed})
    assert answer.status_code == 422
    assert message in answer.text
    assert await Order.count() == 0


async def test_other_scripts_digits_are_not_numbers_in_other_forms(shop: Shop):
    token = await post_form(
        shop.client, "/admin/tokens/", "/admin/tokens/", {"name": "Shop", "days": "\u0663\u0660"}
    )
    assert token.status_code == 422
    assert "must be a whole number of days" in token.text
    assert await ApiToken.count() == 0
    customer = await post_form(
        shop.client, "/admin/customers/new", "/admin/customers/",
        {"name": "Acme", "price_list": "Trade", "discount": "\u0661\u0660",
         "payment_terms": "net_30"},
    )  # fmt: skip
    assert customer.status_code == 422
    assert "must be a number" in customer.text
    assert await Customer.count() == 0


async def test_a_line_numbered_past_three_digits_is_kept(shop: Shop):
    answer = await create_order(
        shop,
        **{
            "lines-10000-description": "Back print",
            "lines-10000-quantity": "3",
            "lines-10000-unit_price": "2.00",
            "lines-999999-description": "Setup",
            "lines-999999-quantity": "1",
            "lines-999999-unit_price": "25",
        },
    )
    assert answer.status_code == 303, answer.text[-2000:]
    assert await prices() == [450, 200, 2500]


@pytest.mark.parametrize("number", ["1000000", "007", "\u0661", "x", ""])
async def test_a_line_the_form_cannot_number_is_refused_not_dropped(shop: Shop, number: str):
    answer = await create_order(
        shop,
        **{f"lines-{number}-description": "Back print", f"lines-{number}-quantity": "3"},
    )
    assert answer.status_code == 422, answer.text[-2000:]
    assert "A line could not be read" in answer.text
    assert await Order.count() == 0
