"""Numbers as people type them in the admin (models/numbers.py, models/money.py), through
HTTP on every kind of form: whole numbers grouped in thousands by commas or spaces
(`6,000`, `6 000`, a no-break or thin space) but not `6,00`; a tax rate or discount with a
decimal comma (`17,5`); an amount with the workspace currency's sign or code (`£12.50`,
`12.50 £`, `GBP 12.50`, `€12,50` in a EUR workspace), another currency's refused saying so.
The API stays strict: its JSON numbers are numbers."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import httpx
import pytest
from markupsafe import escape

from models import accounts
from models.pricing import store
from models.tables import ApiToken, Order, OrderLine, Payment, PriceList, Sku, Workspace
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of, log_in, member, post_form
from tests.admin.test_pricing_page import errors_of, form_of, send

SEPARATED = ["6,000", "6 000", "6\u00a0000", "6\u2009000", "6\u202f000", " 6,000 "]
NOT_WHOLE = ["6,00", "6,0000", "60,00", "6,000 000", "6.000", "6 00"]
FOREIGN = (
    "{sign} is not this workspace's currency ({currency}): type the amount without it, e.g. 12.50"
)


async def _order(shop: Shop, **fields: str) -> httpx.Response:
    customer = await factories.customer(shop.ws)
    data: dict[str, Any] = {
        "customer": str(customer.id), "lines-0-description": "Front print",
        "lines-0-quantity": "2", "lines-0-unit_price": "4.50", **fields,
    }  # fmt: skip
    return await post_form(shop.client, "/admin/orders/new", "/admin/orders/", data)


async def _line() -> tuple[int, int]:
    row = await OrderLine.select(OrderLine.quantity, OrderLine.unit_price_cents).first()
    return row["quantity"], row["unit_price_cents"]


@pytest.fixture
async def euro_shop(browser: httpx.AsyncClient) -> Shop:
    """A workspace keeping its books in euros, its owner logged in."""
    ws = await factories.workspace(currency="EUR")
    owner = await member(ws, role="owner")
    assert (await log_in(browser, owner.email)).status_code == 303
    return Shop(ws, owner, browser)


# --- whole numbers -------------------------------------------------------------------------


@pytest.mark.parametrize("typed", SEPARATED)
async def test_a_quantity_takes_thousands_separators(shop: Shop, typed: str):
    answer = await _order(shop, **{"lines-0-quantity": typed})
    assert answer.status_code == 303, answer.text[-2000:]
    assert await _line() == (6000, 450)


@pytest.mark.parametrize("typed", NOT_WHOLE)
async def test_a_quantity_not_grouped_in_thousands_is_refused(shop: Shop, typed: str):
    answer = await _order(shop, **{"lines-0-quantity": typed})
    assert answer.status_code == 422
    assert "Line 1: the quantity must be a whole number, e.g. 2." in answer.text
    assert f'value="{typed}"' in answer.text  # kept as typed, to correct
    assert await Order.count() == 0


async def test_a_garment_size_takes_thousands_separators(shop: Shop):
    customer = await factories.customer(shop.ws)
    data = {
        "customer": str(customer.id), "items-0-style": "Crew tee", "items-0-colour": "Navy",
        "items-0-unit_price": "3.00", "items-0-size-M": "1,200", "items-0-size-L": "1 000",
    }  # fmt: skip
    answer = await post_form(shop.client, "/admin/orders/new", "/admin/orders/", data)
    assert answer.status_code == 303, answer.text[-2000:]
    rows = await OrderLine.select(OrderLine.description, OrderLine.quantity).order_by(
        OrderLine.position
    )
    assert [(r["description"], r["quantity"]) for r in rows] == [
        ("Crew tee Navy — M", 1200), ("Crew tee Navy — L", 1000),
    ]  # fmt: skip


async def test_a_stock_adjustment_takes_thousands_separators(shop: Shop):
    await factories.sku(shop.ws, "TEE-BLK-M", on_hand=100)
    page = "/admin/inventory/TEE-BLK-M"
    done = await post_form(shop.client, page, f"{page}/adjust", {"delta": "+1,200", "reason": "in"})
    assert done.status_code == 303, done.text[-2000:]
    refused = await post_form(
        shop.client, page, f"{page}/adjust", {"delta": "-1,00", "reason": "x"}
    )
    assert refused.status_code == 422
    assert (await Sku.select(Sku.on_hand).first())["on_hand"] == 1300


async def test_a_token_lifetime_takes_thousands_separators(shop: Shop):
    answer = await post_form(
        shop.client, "/admin/tokens", "/admin/tokens/", {"name": "Shop", "days": "1,000"}
    )
    assert answer.status_code == 303, answer.text[-2000:]
    row = await ApiToken.select(ApiToken.created_at, ApiToken.expires_at).first()
    lifetime = row["expires_at"] - row["created_at"]
    assert abs(lifetime - dt.timedelta(days=1000)) < dt.timedelta(minutes=1)


async def test_a_csv_file_takes_thousands_and_the_currency_sign(shop: Shop):
    csv = (
        "code,style,brand,colour,colour_hex,size,on_hand,reorder_point,cost\n"
        'TEE-BLK-M,Classic Tee,Gildan,Black,#000000,M,"1,200",50,£2.51\n'
        "TEE-BLK-L,Classic Tee,Gildan,Black,#000000,L,1 000,1 000,2.51 GBP\n"
    )
    token = csrf_of(await shop.client.get("/admin/inventory"))
    answer = await shop.client.post(
        "/admin/inventory/import", data={"_csrf_token": token},
        files={"file": ("skus.csv", csv.encode(), "text/csv")},
    )  # fmt: skip
    assert answer.status_code == 303, answer.text[-2000:]
    rows = await Sku.select(Sku.code, Sku.on_hand, Sku.reorder_point, Sku.cost_cents).order_by(
        Sku.code
    )
    assert [tuple(r.values()) for r in rows] == [
        ("TEE-BLK-L", 1000, 1000, 251), ("TEE-BLK-M", 1200, 50, 251),
    ]  # fmt: skip


# --- percentages ---------------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "stored"), [("17,5", "17.50"), ("17,5 %", "17.50"),
                                                ("12,25", "12.25"), ("20 %", "20.00")])  # fmt: skip
async def test_the_tax_rate_takes_a_decimal_comma(shop: Shop, typed: str, stored: str):
    saved = await post_form(
        shop.client, "/admin/settings", "/admin/settings/orders",
        {"tax_rate": typed, "timezone": "Europe/London"},
    )  # fmt: skip
    assert saved.status_code == 303, saved.text[-2000:]
    row = await Workspace.select(Workspace.tax_rate).where(Workspace.id == shop.ws.id).first()
    assert Decimal(str(row["tax_rate"])) == Decimal(stored)


@pytest.mark.parametrize(
    ("typed", "words"),
    [("1,000", "must be a number"), ("17,555", "must be a number"),
     ("17.555", "must have at most 2 decimal places"), ("101", "must be between 0 and 100")],
)  # fmt: skip
async def test_a_tax_rate_that_is_not_a_rate_is_refused(shop: Shop, typed: str, words: str):
    refused = await post_form(
        shop.client, "/admin/settings", "/admin/settings/orders",
        {"tax_rate": typed, "timezone": "Europe/London"},
    )  # fmt: skip
    assert refused.status_code == 422
    assert f"Tax rate {words}." in refused.text
    assert f'value="{typed}"' in refused.text
    row = await Workspace.select(Workspace.tax_rate).where(Workspace.id == shop.ws.id).first()
    assert Decimal(str(row["tax_rate"])) == Decimal("20.00")


async def test_a_customer_discount_takes_a_decimal_comma(shop: Shop):
    saved = await post_form(
        shop.client, "/admin/customers/new", "/admin/customers/",
        {"name": "Acme", "price_list": "Trade", "discount": "12,5 %", "payment_terms": "net_30"},
    )  # fmt: skip
    assert saved.status_code == 303, saved.text[-2000:]
    row = await PriceList.select(PriceList.discount_percent).first()
    assert Decimal(str(row["discount_percent"])) == Decimal("12.50")


# --- amounts -------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["€12,50", "12,50 €", "EUR 12.50", "12.50eur", "€ 12.50"])
async def test_a_euro_workspace_takes_the_euro_sign(euro_shop: Shop, typed: str):
    answer = await _order(euro_shop, **{"lines-0-unit_price": typed})
    assert answer.status_code == 303, answer.text[-2000:]
    assert await _line() == (2, 1250)


@pytest.mark.parametrize(
    ("typed", "sign"), [("£12.50", "£"), ("12.50 £", "£"), ("GBP 12.50", "GBP"), ("$12.50", "$")]
)
async def test_another_currency_is_refused_saying_so(euro_shop: Shop, typed: str, sign: str):
    answer = await _order(euro_shop, **{"lines-0-unit_price": typed})
    assert answer.status_code == 422
    said = escape(FOREIGN.format(sign=sign, currency="EUR"))
    assert f"Line 1, the unit price: {said}" in answer.text
    assert await Order.count() == 0


async def test_a_payment_in_another_currency_is_refused_saying_so(shop: Shop):
    customer = await factories.customer(shop.ws)
    invoice = await factories.invoice(await factories.order(shop.ws, customer), total=500_000)
    page = f"/admin/invoices/{invoice.number}"
    data = {"amount": "€12,50", "method": "card", "date": "", "reference": "R1"}
    refused = await post_form(shop.client, page, f"{page}/payments", data)
    assert refused.status_code == 422
    assert str(escape(FOREIGN.format(sign="€", currency="GBP"))) in refused.text
    paid = await post_form(shop.client, page, f"{page}/payments", {**data, "amount": "£1,250.00"})
    assert paid.status_code == 303, paid.text[-2000:]
    assert await Payment.select(Payment.amount_cents).output(as_list=True) == [125_000]


async def test_a_sku_cost_takes_the_currency_sign(shop: Shop):
    await factories.sku(shop.ws, "TEE-BLK-M")
    page = "/admin/inventory/TEE-BLK-M"
    saved = await post_form(shop.client, page, f"{page}/cost", {"cost": "£2.51"})
    assert saved.status_code == 303, saved.text[-2000:]
    refused = await post_form(shop.client, page, f"{page}/cost", {"cost": "2.51 USD"})
    assert refused.status_code == 422
    assert str(escape(FOREIGN.format(sign="USD", currency="GBP"))) in refused.text
    assert (await Sku.select(Sku.cost_cents).first())["cost_cents"] == 251


async def test_the_price_list_takes_the_currency_sign_and_thousands(browser: httpx.AsyncClient):
    ws = await accounts.create_workspace(name="Inkwell Prints", plan="premium", currency="EUR")
    owner = await member(ws, role="owner")
    assert (await log_in(browser, owner.email)).status_code == 303
    page = await browser.get("/admin/settings/pricing")
    fields = form_of(page)
    fields.update({"m-0-row-0-cell-0": "€4,99", "setup-screen-waive": "1,000"})
    saved = await send(browser, page, fields)
    assert saved.status_code == 303, saved.text[-2000:]
    stored = await store.read(ws.id)
    assert stored is not None
    assert stored.matrices[0].rows[0].cells[0] == 499
    assert stored.setups.screen is not None and stored.setups.screen.waive_from_quantity == 1000
    page = await browser.get("/admin/settings/pricing")
    refused = await send(browser, page, {**form_of(page), "m-0-row-0-cell-0": "£4.99"})
    assert refused.status_code == 422
    assert FOREIGN.format(sign="£", currency="EUR") in " ".join(errors_of(refused).values())


# --- the API stays strict ------------------------------------------------------------------


async def test_the_api_takes_json_numbers_only(client: httpx.AsyncClient):
    ws, _, auth = await factories.account()
    customer = await factories.customer(ws)
    body: dict[str, Any] = {
        "customer_id": customer.id,
        "lines": [{"description": "Tees", "quantity": "6,000", "unit_price_cents": 450}],
    }
    refused = await client.post("/api/v1/orders", json=body, headers=auth)
    assert refused.status_code == 422, refused.text
    assert "lines.0.quantity" in refused.json()["errors"]
    body["lines"][0].update(quantity=6000, unit_price_cents="£4.50")
    refused = await client.post("/api/v1/orders", json=body, headers=auth)
    assert refused.status_code == 422, refused.text
    assert "lines.0.unit_price_cents" in refused.json()["errors"]
    assert await Order.count() == 0
