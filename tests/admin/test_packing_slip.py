"""The packing slip over HTTP: linked from the order page; the shop, the order's number and
reference, the ship-to, the customer, each garment's sizes and quantities and each other
line's quantity — and no price, no navigation; another workspace's order is 404; a fixed
number of statements whatever the order's size."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import httpx

from models.actors import Actor
from models.customers.addresses import NewAddress
from models.garments import NewItem
from models.orders import creating
from models.orders.lines import NewLine
from models.orders.queries import OrderDetailRow
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import log_in, member, statement_count

SHIP_TO = NewAddress(
    name="Goods In", company="Hop & Barley Brewing Co.", line1="Unit 4, Mill Lane",
    city="Leeds", postal_code="LS1 4AB", country="GB", phone="0113 496 0000",
)  # fmt: skip


async def an_order(shop: Shop, *, garments: int = 2, **fields: object) -> OrderDetailRow:
    customer = await factories.customer(shop.ws, "Hop & Barley Brewing Co.")
    await factories.contact(
        customer, name="Tom Fletcher", email="tom@hopandbarley.example", is_primary=True
    )
    items = [
        NewItem(style="G5000", colour="Black", description="Crew tees",
                sizes=(("S", 6), ("M", 10), ("L", 0), ("XL", 2)), unit_price_cents=451),
        NewItem(style="JH001", colour="Navy", description="Staff hoodies",
                sizes=(("M", 4), ("L", 6)), unit_price_cents=1799),
    ]  # fmt: skip
    items += [
        NewItem(style=f"ST{n:03d}", colour="White", description=f"Garment {n}",
                sizes=(("M", 1),), unit_price_cents=333)
        for n in range(garments - 2)
    ]  # fmt: skip
    created = await creating.create(
        workspace_id=shop.ws.id, customer_id=customer.id, actor=Actor.user(shop.owner.id),
        items=items, due_by=dt.date(2030, 6, 28),
        lines=[NewLine(description="Individual bagging", quantity=74, unit_price_cents=21)],
        notes="Internal: do not print", **{"external_ref": "SHOP-1042", **fields},
    )  # fmt: skip
    return created.order


def _slip(number: str) -> str:
    return f"/admin/orders/{number}/packing-slip"


async def test_the_slip_shows_what_goes_in_the_parcel_and_no_price(shop: Shop) -> None:
    await shop.ws.update_self({"name": "Inkwell Prints", "email": "hello@inkwell.example"})
    order = await an_order(shop, ship_to=SHIP_TO)
    page = await shop.client.get(f"/admin/orders/{order.number}")
    assert f'href="{_slip(order.number)}"' in page.text

    slip = await shop.client.get(_slip(order.number))

    assert slip.status_code == 200
    text = slip.text
    shop_part = text.split('id="ps-shop"')[1].split("</div>")[0]
    assert "Inkwell Prints" in shop_part and "hello@inkwell.example" in shop_part
    assert f'<dd id="ps-number">{order.number}</dd>' in text
    assert '<dd id="ps-reference">SHOP-1042</dd>' in text
    ship_to = text.split('id="ps-ship-to"')[1].split("</div>")[0]
    for shown in ("Goods In", "Hop &amp; Barley Brewing Co.", "Unit 4, Mill Lane",
                  "Leeds LS1 4AB", "GB", "0113 496 0000"):  # fmt: skip
        assert shown in ship_to, shown
    customer = text.split('id="ps-customer"')[1].split("</div>")[0]
    assert "Tom Fletcher" in customer and "tom@hopandbarley.example" in customer
    tees = text.split('id="ps-garment-1"')[1].split("</div>")[0]
    assert "Crew tees" in tees and "G5000, Black" in tees
    sizes = re.findall(r'<th scope="col" class="num">([^<]+)</th>', tees)
    assert sizes == ["S", "M", "XL"]  # a size of 0 is not in the parcel
    assert re.findall(r'<td class="num">(\d+)</td>', tees) == ["6", "10", "2"]
    assert '<td class="num total">18</td>' in tees
    hoodies = text.split('id="ps-garment-2"')[1].split("</div>")[0]
    assert "Staff hoodies" in hoodies and '<td class="num total">10</td>' in hoodies
    lines = text.split('id="ps-lines"')[1].split("</table>")[0]
    assert "Individual bagging" in lines and '<td class="num">74</td>' in lines
    assert "102 items in all." in text
    for price in ("GBP", "4.51", "17.99", "0.21", "Total</th><td"):
        assert price not in text, price
    assert "Internal: do not print" not in text  # the notes are the shop's
    assert "<nav" not in text and 'class="top"' not in text
    assert 'src="/admin/static/print.js"' in text and 'id="print-button"' in text
    assert 'href="/admin/static/packing-slip.css"' in text
    by_id = await shop.client.get(_slip(str(order.id)))
    assert by_id.status_code == 200 and order.number in by_id.text


async def test_without_a_ship_to_or_garments(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, "Plain Lines Ltd")
    order = await factories.order(shop.ws, customer, lines=[("Banner", 2, 5000)])

    slip = await shop.client.get(_slip(order.number))

    assert slip.status_code == 200
    assert "No ship-to address on this order." in slip.text
    assert "In the parcel" in slip.text and "Garments" not in slip.text
    assert "2 items in all." in slip.text and "50.00" not in slip.text


async def test_staff_print_it_and_another_workspaces_order_is_404(shop: Shop, app: Any) -> None:
    order = await an_order(shop)
    other = await factories.workspace()
    theirs = await factories.order(other, await factories.customer(other))
    for ref in (theirs.number, str(theirs.id), "ORD-0000-0000", "0", "2147483648", "x" * 500):
        assert (await shop.client.get(_slip(ref))).status_code == 404, ref
    staff = await member(shop.ws, role="staff")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as browser:
        await log_in(browser, staff.email)
        assert (await browser.get(_slip(order.number))).status_code == 200


async def test_a_fixed_number_of_statements(shop: Shop, statements: list[str]) -> None:
    small = await an_order(shop, garments=2)
    large = await an_order(shop, garments=30, external_ref="SHOP-1043")

    assert await statement_count(shop.client, statements, _slip(small.number)) == (
        await statement_count(shop.client, statements, _slip(large.number))
    )
