"""The new and edit order forms with garments in Chromium against real processes: a
3-garment order with imprints typed into the size grids at 1280 px and on a phone
(sizes shown for the style and colour picked, with what is free; rows added with the buttons,
nothing typed lost), then edited; the same order made with script turned off, every button a
plain submit. What the API then shows is checked; the pages are saved as screenshots and
checked with axe-core (no serious or critical violation)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from models.tables import Workspace
from tests import factories
from tests.admin.support import member
from tests.browser.conftest import CHROMIUM, DESKTOP, LAUNCH_ARGS, PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in

TEE_RUN = ("S", "M", "L", "XL", "2XL")
STANDARD = ("XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL", "5XL")


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    """A shop with an owner (password and token), a customer, and G5000 Black in five sizes."""
    ws: Workspace = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    await factories.customer(ws, "Hop & Barley Brewing Co.")
    for size in TEE_RUN:
        await factories.sku(
            ws, f"G5000-BLK-{size}", style="G5000", colour="Black", size=size, brand="Gildan",
            on_hand=3 if size == "2XL" else 40,
        )  # fmt: skip
    return {"token": await factories.token(owner)}


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"order-forms-{name}.png"), full_page=True)


def size_labels(page: Page, item: int) -> list[str]:
    names = page.locator(f"#items-{item}-sizes .size-cell:not(.other) .size-name")
    return [" ".join(name.split()).removesuffix(" quantity") for name in names.all_text_contents()]


def fill_imprint(page: Page, item: int, number: int, **fields: str) -> None:
    prefix = f"#items-{item}-imprints-{number}-"
    for name, value in fields.items():
        if name in ("location", "method"):
            page.select_option(prefix + name, value)
        else:
            page.fill(prefix + name, value)


def type_three_garments(page: Page, *, script: bool) -> None:
    """Tees in the stocked run with a front print and a back print, hoodies in the standard
    run embroidered, caps in a size of their own; the rows added with the buttons."""
    page.select_option("#customer", label="Hop & Barley Brewing Co.")
    page.fill("#due_by", "2030-06-28")
    assert size_labels(page, 0) == list(STANDARD)
    page.fill("#items-0-style", "G5000")
    page.fill("#items-0-colour", "Black")
    if script:  # leaving the field shows the SKUs' sizes without a reload
        page.locator("#items-0-unit_price").focus()
    else:
        page.click("#items-0 button:has-text('Show sizes')")
    expect(page.locator("#items-0-sizes .size-cell:not(.other)")).to_have_count(len(TEE_RUN))
    assert size_labels(page, 0) == list(TEE_RUN)
    expect(page.locator("#items-0-sizes .avail").last).to_have_text("3 free")
    page.fill("#items-0-unit_price", "4.50")
    for index, quantity in enumerate(("6", "12", "12", "6", "2")):
        page.fill(f"#items-0-q{index}", quantity)
    page.fill("#items-0-u4", "1.50")  # 2XL upcharge
    fill_imprint(page, 0, 0, location="front", method="screen", colours="2",
                 colour_names="White, Hop Gold", width_mm="280", unit_price="1.20",
                 setup="25")  # fmt: skip
    page.click("#add-imprint-0")
    expect(page.locator("#items-0-imprints-1-location")).to_be_focused()
    fill_imprint(page, 0, 1, location="back", method="dtg", unit_price="3")

    page.click("#add-item")
    expect(page.locator("#items-1-style")).to_be_focused()
    page.fill("#items-1-style", "Heavy Hoodie")
    page.fill("#items-1-colour", "Navy")
    page.fill("#items-1-unit_price", "22")
    page.fill("#items-1-q2", "5")  # M of the standard run
    page.fill("#items-1-q3", "4")  # L
    fill_imprint(page, 1, 0, location="left_chest", method="embroidery", stitches="8000")

    page.click("#add-item")
    page.fill("#items-2-style", "Trucker Cap")
    page.fill("#items-2-colour", "Black/White")
    page.fill("#items-2-unit_price", "9")
    page.fill("#items-2-other_size", "One size")
    page.fill("#items-2-other_quantity", "24")
    fill_imprint(page, 2, 0, location="front", method="transfer", width_mm="60")

    # everything typed before the last buttons is still there
    expect(page.locator("#items-0-q1")).to_have_value("12")
    expect(page.locator("#items-0-imprints-0-colour_names")).to_have_value("White, Hop Gold")
    expect(page.locator("#items-1-imprints-0-method")).to_have_value("embroidery")
    expect(page.locator("#due_by")).to_have_value("2030-06-28")


def check_created(stack: Stack, token: str, number: str) -> dict[str, Any]:
    orders = stack.api("GET", "/api/v1/orders", token).json()["data"]
    mine = next(o for o in orders if o["number"] == number)
    detail: dict[str, Any] = stack.api("GET", f"/api/v1/orders/{mine['id']}", token).json()
    items = detail["items"]
    assert [(i["style"], i["colour"], i["quantity"]) for i in items] == [
        ("G5000", "Black", 38), ("Heavy Hoodie", "Navy", 9), ("Trucker Cap", "Black/White", 24),
    ]  # fmt: skip
    assert items[0]["sizes"] == {"S": 6, "M": 12, "L": 12, "XL": 6, "2XL": 2}
    assert items[0]["size_upcharges_cents"] == {"2XL": 150}
    assert items[0]["stock"]["2XL"]["available"] == 1
    assert [(p["location"], p["method"]) for i in items for p in i["imprints"]] == [
        ("front", "screen"), ("back", "dtg"), ("left_chest", "embroidery"), ("front", "transfer"),
    ]  # fmt: skip
    assert items[0]["imprints"][0]["colour_names"] == ["White", "Hop Gold"]
    assert items[2]["sizes"] == {"One size": 24}
    return detail


def create_and_edit(page: Page, stack: Stack, token: str, name: str, *, script: bool) -> None:
    page.goto(f"{stack.base}/admin/orders/new")
    type_three_garments(page, script=script)
    if script:
        axe(page)
    shot(page, f"new-{name}")
    page.click("#save-order")
    expect(page.locator(".notice")).to_contain_text("created.")
    number = page.locator("h1").inner_text().split()[1]
    detail = check_created(stack, token, number)
    assert detail["revision"] == 1

    page.click("#edit-order")  # the order page's Edit link
    expect(page).to_have_url(f"{stack.base}/admin/orders/{number}/edit")
    expect(page.locator("#items-0-q1")).to_have_value("12")
    assert size_labels(page, 0) == list(TEE_RUN)
    assert size_labels(page, 2) == [*STANDARD, "One size"]
    if script:
        axe(page)
    shot(page, f"edit-{name}")
    page.fill("#items-0-q1", "20")  # more M tees
    page.click("#items-0-imprints-1 button:has-text('Remove imprint')")  # no back print
    expect(page.locator("#items-0-imprints-1")).to_have_count(0)
    expect(page.locator("#items-0-q1")).to_have_value("20")
    page.click("#save-order")
    expect(page.locator(".notice")).to_contain_text(f"Order {number} saved.")
    after = stack.api("GET", f"/api/v1/orders/{detail['id']}", token).json()
    assert after["revision"] == 2
    assert after["items"][0]["sizes"]["M"] == 20
    assert [p["location"] for p in after["items"][0]["imprints"]] == ["front"]


def test_a_three_garment_order_typed_wide_then_edited(shop: dict, stack: Stack, page: Page) -> None:
    log_in(page, stack, "olive@inkwell.example")
    page.set_viewport_size(DESKTOP)
    create_and_edit(page, stack, shop["token"], "wide", script=True)


def test_a_three_garment_order_typed_on_a_phone_then_edited(
    shop: dict, stack: Stack, page: Page
) -> None:
    page.set_viewport_size(PHONE)
    log_in(page, stack, "olive@inkwell.example")
    create_and_edit(page, stack, shop["token"], "phone", script=True)
    # the page never scrolls sideways on a phone
    page.goto(f"{stack.base}/admin/orders/new")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.fixture
def page_without_script(request: pytest.FixtureRequest) -> Iterator[Page]:
    """Chromium with script turned off (htmx never runs): every button is a plain submit."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        tab = browser.new_context(viewport=DESKTOP, java_script_enabled=False).new_page()
        try:
            yield tab
        finally:
            tab.screenshot(path=str(SCREENSHOTS / "order-forms-no-script.png"), full_page=True)
            browser.close()


def test_the_forms_work_without_script(shop: dict, stack: Stack, page_without_script: Page) -> None:
    page = page_without_script
    log_in(page, stack, "olive@inkwell.example")
    create_and_edit(page, stack, shop["token"], "no-script", script=False)
