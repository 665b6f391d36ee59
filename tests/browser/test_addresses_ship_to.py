"""A customer's addresses and an order's ship-to in Chromium against real processes: an
address added on the customer's page (the first becomes the default), picked on a new order
(choosing the customer swaps in its addresses; "Another address" shows its fields), then
shown on the order page, the work order and the packing slip; at 1280 px and on a phone; the
addresses shown without script by the form's own button. Screenshots; axe-core finds no
serious or critical issue."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests import factories
from tests.admin.support import member
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints", email="hello@inkwell.example")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Hop & Barley Brewing Co.")
    await factories.contact(
        customer, name="Tom Fletcher", email="tom@hopandbarley.example", is_primary=True
    )
    await factories.customer(ws, "Northside Roller Derby")
    return {"customer": customer.id, "token": await factories.token(owner)}


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"ship-to-{name}.png"), full_page=True)


def test_add_an_address_pick_it_on_a_new_order_and_see_it_on_the_order(
    shop: dict[str, Any], stack: Stack, page: Page
) -> None:
    customer = f"{stack.base}/admin/customers/{shop['customer']}"
    log_in(page, stack, "olive@inkwell.example")
    expect(page.locator("h1")).to_be_visible()

    # Wide: the customer's page, an address added (refused once: line 1 missing).
    page.goto(customer)
    expect(page.locator("table.addresses")).to_contain_text("No addresses yet")
    page.click("#add-address")
    page.fill("#label", "Brewery")
    page.fill("#name", "Goods In")
    page.fill("#city", "Leeds")
    page.fill("#country", "gb")
    page.click("button:has-text('Add address')")
    expect(page.locator("#line1-error")).to_have_text("Address line 1 must not be blank.")
    expect(page.locator("#city")).to_have_value("Leeds")  # kept as typed
    axe(page)
    shot(page, "address-refused-wide")
    page.fill("#line1", "Unit 4, Mill Lane")
    page.fill("#postal_code", "LS1 4AB")
    page.fill("#phone", "0113 496 0000")
    page.click("button:has-text('Add address')")
    expect(page.locator(".notice")).to_have_text("Brewery was added as the default address.")
    row = page.locator("table.addresses tbody tr").first
    expect(row).to_contain_text("Unit 4, Mill Lane")
    expect(row).to_contain_text("Leeds LS1 4AB")
    expect(row).to_contain_text("GB")
    expect(row.locator(".state")).to_have_text("default")
    axe(page)
    shot(page, "customer-wide")

    # A new order: choosing the customer swaps in its addresses, the default chosen.
    page.goto(f"{stack.base}/admin/orders/new")
    expect(page.locator("#ship-to")).to_contain_text("choose a customer to see their addresses")
    page.select_option("#customer", label="Hop & Barley Brewing Co.")
    brewery = page.locator("#ship-to .ship-to-option", has_text="Brewery (default)")
    expect(brewery).to_be_visible()
    expect(brewery.locator("input")).to_be_checked()
    expect(page.locator("#ship_to-line1")).to_be_hidden()  # "Another address" not chosen
    page.check("#ship-to-choice-typed")
    expect(page.locator("#ship_to-line1")).to_be_visible()
    shot(page, "new-order-typed-wide")
    brewery.locator("input").check()
    page.fill("#lines-0-description", "Tees, front print in 2 colours")
    page.fill("#lines-0-quantity", "24")
    page.fill("#lines-0-unit_price", "7.50")
    axe(page)
    shot(page, "new-order-wide")
    page.click("#save-order")
    expect(page.locator(".notice")).to_contain_text("created")
    facts = page.locator("#order-facts")
    expect(facts).to_contain_text("Ship to")
    expect(facts.locator("address.ship-to")).to_contain_text("Goods In")
    expect(facts.locator("address.ship-to")).to_contain_text("Unit 4, Mill Lane")
    axe(page)
    shot(page, "order-wide")
    number = page.url.rsplit("/", 1)[1]
    page.click("#work-order")
    expect(page.locator("#wo-ship-to")).to_contain_text("Leeds LS1 4AB")
    page.goto(f"{stack.base}/admin/orders/{number}")
    page.click("#packing-slip")
    expect(page.locator("#ps-ship-to")).to_contain_text("Unit 4, Mill Lane")

    # A phone: the customer's addresses, the order form's ship-to and the order.
    page.set_viewport_size(PHONE)
    page.goto(customer)
    expect(page.locator("table.addresses")).to_contain_text("Brewery")
    axe(page)
    shot(page, "customer-phone")
    page.goto(f"{stack.base}/admin/orders/new?customer={shop['customer']}")
    expect(page.locator("#ship-to .ship-to-option input:checked")).to_have_count(1)
    page.check("#ship-to-choice-typed")
    axe(page)
    shot(page, "new-order-phone")
    page.goto(f"{stack.base}/admin/orders/{number}")
    expect(page.locator("#order-facts")).to_contain_text("Unit 4, Mill Lane")
    axe(page)
    shot(page, "order-phone")

    detail = stack.api("GET", "/api/v1/orders", shop["token"]).json()["data"][0]
    order = stack.api("GET", f"/api/v1/orders/{detail['id']}", shop["token"]).json()
    assert order["ship_to"] == {
        "name": "Goods In", "company": "", "line1": "Unit 4, Mill Lane", "line2": "",
        "city": "Leeds", "region": "", "postal_code": "LS1 4AB", "country": "GB",
        "phone": "0113 496 0000",
    }  # fmt: skip

    # Without script: the form's button shows the chosen customer's addresses.
    context = page.context.browser.new_context(viewport=DESKTOP, java_script_enabled=False)  # type: ignore[union-attr]
    plain = context.new_page()
    log_in(plain, stack, "olive@inkwell.example")
    expect(plain.locator("h1")).to_be_visible()
    plain.goto(f"{stack.base}/admin/orders/new")
    plain.select_option("#customer", label="Hop & Barley Brewing Co.")
    plain.click("#show-addresses")
    expect(plain.locator("#ship-to")).to_contain_text("Brewery (default)")
    expect(plain.locator("#customer")).to_have_value(str(shop["customer"]))
    shot(plain, "new-order-no-script")
    context.close()
    page.set_viewport_size(DESKTOP)
