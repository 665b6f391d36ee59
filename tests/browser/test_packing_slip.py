"""The packing slip in Chromium against real processes: opened from the order page, an order
of three garments and two other lines with its ship-to prints on ONE page of A4 and of Letter,
without its Print button and with no price; on a phone it reads as one column. Screenshots
of the screen, the print layout and the phone; axe-core finds no serious or critical issue."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models.actors import Actor
from models.customers.addresses import NewAddress
from models.garments import NewImprint, NewItem
from models.orders import creating
from models.orders.lines import NewLine
from tests import factories
from tests.admin.support import member
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in

# Chromium's PDF writes each page as an object of type /Page (the tree above is /Pages).
PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![A-Za-z])")


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints", email="hello@inkwell.example")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Hop & Barley Brewing Co.")
    await factories.contact(
        customer, name="Tom Fletcher", email="tom@hopandbarley.example", is_primary=True
    )
    items = [
        NewItem(style="G5000", colour="Black", description="Gildan Heavy Cotton tee, black",
                sizes=(("S", 12), ("M", 30), ("L", 30), ("XL", 14), ("2XL", 6), ("3XL", 0)),
                unit_price_cents=450,
                imprints=(NewImprint(location="front", method="screen", colours=2),)),
        NewItem(style="JH001", colour="Navy", description="AWDis college hoodie, navy",
                sizes=(("S", 2), ("M", 6), ("L", 6), ("XL", 4)), unit_price_cents=1800),
        NewItem(style="BX001", colour="Stone", description="Beechfield cap, stone",
                sizes=(("One size", 50),), unit_price_cents=600),
    ]  # fmt: skip
    created = await creating.create(
        workspace_id=ws.id, customer_id=customer.id, items=items,
        lines=[
            NewLine(description="Individual bagging and size stickers", quantity=160,
                    unit_price_cents=20),
            NewLine(description="Brewery tap-room banner, 2 m", quantity=1,
                    unit_price_cents=8500),
        ],
        ship_to=NewAddress(name="Goods In", company="Hop & Barley Brewing Co.",
                           line1="Unit 4, Mill Lane", city="Leeds", postal_code="LS1 4AB",
                           country="GB", phone="0113 496 0000"),
        due_by=dt.date(2030, 6, 28), external_ref="SHOP-1042", actor=Actor.user(owner.id),
    )  # fmt: skip
    return {"number": created.order.number}


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"packing-slip-{name}.png"), full_page=True)


def test_the_packing_slip_prints_on_one_page_without_prices(
    shop: dict[str, Any], stack: Stack, page: Page
) -> None:
    number = shop["number"]
    log_in(page, stack, "olive@inkwell.example")
    expect(page.locator("h1")).to_be_visible()
    page.goto(f"{stack.base}/admin/orders/{number}")
    page.click("#packing-slip")

    expect(page).to_have_url(f"{stack.base}/admin/orders/{number}/packing-slip")
    expect(page.locator("#print-button")).to_be_visible()  # print.js ran under the CSP
    expect(page.locator("#ps-number")).to_have_text(number)
    expect(page.locator("#ps-ship-to")).to_contain_text("Unit 4, Mill Lane")
    expect(page.locator("#ps-customer")).to_contain_text("Tom Fletcher")
    expect(page.locator(".garment")).to_have_count(3)
    expect(page.locator("#ps-garment-1 thead th.num:not(.total)")).to_have_text(
        ["S", "M", "L", "XL", "2XL"]  # 3XL ordered 0: not in the parcel
    )
    expect(page.locator("#ps-pieces")).to_have_text("321 items in all.")
    body = page.locator("body").inner_text()
    assert "GBP" not in body and "4.50" not in body and "85.00" not in body
    assert page.locator("nav").count() == 0
    axe(page)
    shot(page, "screen")

    for paper in ("A4", "Letter"):
        pdf = page.pdf(format=paper)
        (SCREENSHOTS / f"packing-slip-{paper}.pdf").write_bytes(pdf)
        pages = len(PAGE_OBJECT.findall(pdf))
        assert pages == 1, f"the packing slip takes {pages} pages of {paper}"
    page.emulate_media(media="print")
    expect(page.locator("#print-button")).to_be_hidden()
    expect(page.locator(".toolbar")).to_be_hidden()
    shot(page, "print")
    page.emulate_media(media="screen")

    page.set_viewport_size(PHONE)
    axe(page)
    shot(page, "phone")
    page.set_viewport_size(DESKTOP)
