"""The order forms' running total in Chromium against real processes: a shop manager types
48 tees (a 2-colour front and a 1-colour back), 12 embroidered hoodies and 50 caps on the
new-order grid at 1280 px, prices left to the workspace's starting price list (the tees are
stocked with costs; the hoodies and caps are not, so their garment prices are typed), and
watches the total change as sizes are typed, then on a phone; saves, and sees the lines
marked "price list" on the order page; edits a price by hand and sees it marked "typed".
Without script, "Update prices" shows the same total. Screenshots of each step; axe-core
finds no serious or critical issue."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models import accounts
from tests import factories
from tests.admin.support import member
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in

TEE_RUN = ("S", "M", "L", "XL")
TOTAL = "#preview-total"
SUMMARY = "#preview-summary"


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    """A workspace made with the starting price list (20 % tax), a shop manager (staff, with
    a password and a token), a customer, and G5000 Black in S-XL costing 2.50 each."""
    ws = await accounts.create_workspace(
        name="Inkwell Prints", plan="premium", timezone="Europe/London", tax_rate="20"
    )
    manager = await member(ws, role="staff", name="Sam Manager", email="sam@inkwell.example")
    await factories.customer(ws, "Hop & Barley Brewing Co.")
    for size in TEE_RUN:
        await factories.sku(
            ws, f"G5000-BLK-{size}", style="G5000", colour="Black", size=size, brand="Gildan",
            on_hand=100, cost_cents=250,
        )  # fmt: skip
    return {"token": await factories.token(manager)}


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"running-total-{name}.png"), full_page=True)


def changed_total(page: Page, before: str) -> str:
    """The total once it differs from `before` (the running total is asked for 300 ms after
    the last keystroke)."""
    expect(page.locator(TOTAL)).not_to_have_text(before)
    expect(page.locator(TOTAL)).to_have_text(re.compile(r"^[0-9,]+\.[0-9]{2} GBP$"))
    return page.locator(TOTAL).inner_text()


def imprint(page: Page, item: int, number: int, **fields: str) -> None:
    prefix = f"#items-{item}-imprints-{number}-"
    for name, value in fields.items():
        if name in ("location", "method"):
            page.select_option(prefix + name, value)
        else:
            page.fill(prefix + name, value)


def type_the_tees(page: Page) -> str:
    """The tees, their sizes typed one by one while the total follows; returns the total."""
    page.select_option("#customer", label="Hop & Barley Brewing Co.")
    page.fill("#items-0-style", "G5000")
    page.fill("#items-0-colour", "Black")
    page.locator("#items-0-unit_price").focus()  # leaving the colour shows the SKUs' sizes
    expect(page.locator("#items-0-sizes .size-cell:not(.other)")).to_have_count(len(TEE_RUN))
    expect(page.locator("#items-0-unit_price")).to_have_attribute("placeholder", "price list")
    imprint(page, 0, 0, location="front", method="screen", colours="2")
    page.click("#add-imprint-0")
    expect(page.locator("#items-0-imprints-1-location")).to_be_focused()
    imprint(page, 0, 1, location="back", method="screen", colours="1")
    expect(page.locator("#preview-waiting")).to_have_text("Type sizes to see prices.")
    expect(page.locator(SUMMARY)).to_have_text("Type sizes to see prices.")
    page.fill("#items-0-q0", "8")  # S
    total = changed_total(page, "")
    for index, quantity in ((1, "16"), (2, "16"), (3, "8")):  # M, L, XL: 48 tees
        page.fill(f"#items-0-q{index}", quantity)
        total = changed_total(page, total)
        expect(page.locator(SUMMARY)).to_contain_text(total)
    # every tee line and both screens' setups come from the price list
    marks = page.locator("#price-preview-body tbody .source")
    expect(marks).to_have_count(len(TEE_RUN) + 2)
    expect(page.locator("#price-preview-body tbody .source.typed")).to_have_count(0)
    return total


def type_hoodies_and_caps(page: Page, total: str) -> str:
    page.click("#add-item")
    expect(page.locator("#items-1-style")).to_be_focused()
    page.fill("#items-1-style", "Heavy Hoodie")
    page.fill("#items-1-colour", "Navy")
    page.fill("#items-1-unit_price", "18.50")  # not stocked: no cost to mark up
    imprint(page, 1, 0, location="left_chest", method="embroidery", stitches="8000",
            design="crest-2026")  # fmt: skip
    page.fill("#items-1-q2", "6")  # M of the standard run
    total = changed_total(page, total)
    page.fill("#items-1-q3", "6")  # L: 12 hoodies
    total = changed_total(page, total)

    page.click("#add-item")
    expect(page.locator("#items-2-style")).to_be_focused()
    page.fill("#items-2-style", "Trucker Cap")
    page.fill("#items-2-colour", "Black")
    page.fill("#items-2-unit_price", "4.00")
    imprint(page, 2, 0, location="front", method="embroidery", stitches="5000")
    page.fill("#items-2-other_size", "One size")
    page.fill("#items-2-other_quantity", "50")
    return changed_total(page, total)


def test_the_running_total_follows_the_sizes_typed_then_marks_the_saved_order(
    shop: dict, stack: Stack, page: Page
) -> None:
    log_in(page, stack, "sam@inkwell.example")
    page.set_viewport_size(DESKTOP)
    page.goto(f"{stack.base}/admin/orders/new")
    expect(page.locator("#prices_include_tax")).not_to_be_checked()  # the workspace's default
    total = type_the_tees(page)
    axe(page)
    shot(page, "tees-wide")
    total = type_hoodies_and_caps(page, total)
    expect(page.locator(SUMMARY)).to_contain_text(total)
    axe(page)
    shot(page, "wide")

    # on a phone: the same form, the total follows, nothing scrolls sideways
    page.set_viewport_size(PHONE)
    page.fill("#items-2-other_quantity", "60")
    total = changed_total(page, total)
    page.fill("#items-2-other_quantity", "50")
    total = changed_total(page, total)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    axe(page)
    shot(page, "phone")
    # gross prices: the same lines, the tax taken out of them
    page.check("#prices_include_tax")
    gross = changed_total(page, total)
    page.uncheck("#prices_include_tax")
    expect(page.locator(TOTAL)).to_have_text(total)
    assert gross != total

    page.click("#save-order")
    expect(page.locator(".notice")).to_contain_text("created.")
    number = page.locator("h1").inner_text().split()[1]
    expect(page.locator("#order-total")).to_have_text(total)
    lines = page.locator("section[aria-labelledby=lines-heading] tbody tr")
    expect(lines.locator(".source.price-list")).to_have_count(lines.count())
    expect(page.locator("#item-0 .item-price")).to_have_text("Garment price price list")
    expect(page.locator("#item-1 .item-price")).to_contain_text("18.50 GBP each typed")
    axe(page)
    shot(page, "order-phone")
    page.set_viewport_size(DESKTOP)
    shot(page, "order-wide")

    # a price typed by hand: the tees' front screens at 30.00
    page.click("#edit-order")
    expect(page).to_have_url(f"{stack.base}/admin/orders/{number}/edit")
    expect(page.locator(TOTAL)).to_have_text(total)  # the edit's total, as saved
    expect(page.locator("#items-0-imprints-0-setup")).to_have_value("")
    expect(page.locator("#items-0-imprints-1-design")).to_have_value("")
    expect(page.locator("#items-1-imprints-0-design")).to_have_value("crest-2026")
    page.fill("#items-0-imprints-0-setup", "30")
    edited = changed_total(page, total)
    setup = page.locator("#price-preview-body tbody tr", has_text="Setup: front, screen print")
    expect(setup.locator(".source")).to_have_text("typed")
    axe(page)
    shot(page, "edit")
    page.click("#save-order")
    expect(page.locator(".notice")).to_contain_text(f"Order {number} saved.")
    expect(page.locator("#order-total")).to_have_text(edited)
    setup_line = page.locator("section[aria-labelledby=lines-heading] tbody tr",
                              has_text="Setup: front, screen print")  # fmt: skip
    expect(setup_line.locator(".source")).to_have_text("typed")
    expect(page.locator("#item-0")).to_contain_text("setup 30.00 GBP typed")
    shot(page, "edited-order")

    # without script, "Update prices" sends the form back with the same total
    chromium = page.context.browser
    assert chromium is not None
    context = chromium.new_context(viewport=DESKTOP, java_script_enabled=False)
    plain = context.new_page()
    try:
        log_in(plain, stack, "sam@inkwell.example")
        plain.goto(f"{stack.base}/admin/orders/{number}/edit")
        expect(plain.locator("#preview-waiting")).to_be_visible()
        plain.click("#update-prices")
        expect(plain.locator(TOTAL)).to_have_text(edited)
        expect(plain.locator(SUMMARY)).to_contain_text(edited)
        shot(plain, "no-script")
    finally:
        context.close()
