"""The invoice page as a tax document: the bill-to is the customer's default address, or the
order's ship-to when the customer has none; the tax line gives the label and the order's own
rate ("VAT 20 %", "VAT 17.5 % included in the prices" for gross prices, the label alone for an
order priced before its rate was kept); "Email invoice" says why it cannot send without a
primary contact."""

from __future__ import annotations

from decimal import Decimal

import msgspec

from models.tables import Address, InvoiceSettings
from tests import factories
from tests.admin.conftest import Shop


def _part(page: str, marker: str, end: str = "</div>") -> str:
    return page.split(marker)[1].split(end)[0]


def _bill_to(page: str) -> list[str]:
    """The bill-to's lines after the customer's name."""
    address = _part(page, 'id="inv-bill-to"').split("</strong>")[1].split("</address>")[0]
    return [line.strip() for line in address.split("<br>") if line.strip()]


async def _page(shop: Shop, *, contact: bool = True, address: bool = True, **order) -> str:
    customer = await factories.customer(shop.ws, "Acme Tees")
    if contact:
        await factories.contact(
            customer, is_primary=True, name="Ada Lovelace", email="ada@acme.example"
        )
    if address:
        await Address(
            workspace=shop.ws.id, customer=customer.id, line1="1 Loom Street", city="Bradford",
            postal_code="BD1 1AA", country="GB", is_default=True,
        ).save()  # fmt: skip
    ship_to = {"name": "Goods In", "line1": "9 Dock Road", "city": "Hull", "postal_code": "HU1 2BB",
               "country": "GB"}  # fmt: skip
    order.setdefault("ship_to", msgspec.json.encode(ship_to).decode())
    made = await factories.order(shop.ws, customer, stage="dispatched", **order)
    invoice = await factories.invoice(made)
    answer = await shop.client.get(f"/admin/invoices/{invoice.number}")
    assert answer.status_code == 200
    return answer.text


async def test_the_bill_to_is_the_customers_default_address(shop: Shop) -> None:
    page = await _page(shop)

    assert _bill_to(page) == [
        "Ada Lovelace", "ada@acme.example", "1 Loom Street", "Bradford BD1 1AA", "GB"
    ]  # fmt: skip


async def test_an_address_of_the_customers_own_company_does_not_name_it_twice(
    shop: Shop,
) -> None:
    ship_to = {"company": "Acme Tees", "line1": "9 Dock Road", "city": "Hull", "country": "GB"}

    page = await _page(shop, address=False, ship_to=msgspec.json.encode(ship_to).decode())

    assert _bill_to(page) == ["Ada Lovelace", "ada@acme.example", "9 Dock Road", "Hull", "GB"]


async def test_without_an_address_the_bill_to_is_the_orders_ship_to(shop: Shop) -> None:
    page = await _page(shop, address=False)

    assert _bill_to(page) == [
        "Ada Lovelace",
        "ada@acme.example",
        "9 Dock Road",
        "Hull HU1 2BB",
        "GB",
    ]


async def test_the_tax_line_gives_the_label_and_the_orders_rate(shop: Shop) -> None:
    await InvoiceSettings(workspace=shop.ws.id, tax_label="VAT").save()

    page = await _page(shop, tax_rate=Decimal("17.50"))

    assert '<th scope="row" colspan="3" id="inv-tax-words">VAT 17.5 %</th>' in page
    assert '<th scope="row" colspan="3">Subtotal</th>' in page


async def test_gross_prices_say_the_tax_is_included(shop: Shop) -> None:
    page = await _page(shop, prices_include_tax=True)

    assert 'id="inv-tax-words">Tax 20 % included in the prices</th>' in page
    assert '<th scope="row" colspan="3">Subtotal excluding Tax</th>' in page


async def test_an_order_priced_before_its_rate_was_kept_shows_the_label_alone(
    shop: Shop,
) -> None:
    page = await _page(shop, tax_rate=None)

    assert 'id="inv-tax-words">Tax</th>' in page


async def test_email_invoice_names_the_contact_or_says_why_it_cannot(shop: Shop) -> None:
    with_contact = await _page(shop)

    email = _part(with_contact, 'id="email-invoice"', "</section>")
    assert "Ada Lovelace &lt;ada@acme.example&gt;" in email
    assert '<button type="submit">Email invoice</button>' in email

    without = await _page(shop, contact=False)

    email = _part(without, 'id="email-invoice"', "</section>")
    assert "Acme Tees has no primary contact, so there is nobody to email the invoice to." in email
    assert '<button type="button" disabled aria-describedby="email-invoice-why">' in email
