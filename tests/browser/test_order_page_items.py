"""The order page's garments in Chromium against real processes: three garments
sent through the API shown as size grids with their imprints and a short size in red, a wide
grid scrolling inside its box on a phone while the page does not, the outdated work-order
banner after an edit through the API. Saved at 1280 px and a phone's width; axe-core finds no
serious or critical violation."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models.tables import Workspace
from tests import factories
from tests.admin.support import member
from tests.browser.conftest import PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in

WIDE = {"width": 1280, "height": 900}
RUN = ("XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL", "5XL")
RED = "rgb(180, 35, 24)"  # --bad


def tee(medium: int) -> dict[str, Any]:
    """Stocked in the whole run; M is ordered beyond its stock."""
    return {
        "style": "G5000", "colour": "Black", "unit_price_cents": 850,
        "sizes": {"5XL": 1, "XS": 2, "S": 6, "M": medium, "L": 8, "XL": 6, "2XL": 4, "3XL": 2,
                  "4XL": 1},
        "size_upcharges_cents": {"2XL": 200, "3XL": 300, "4XL": 400, "5XL": 500},
        "imprints": [
            {"location": "front", "method": "screen", "colours": 2,
             "colour_names": ["White", "Hop Gold"], "width_mm": 280, "height_mm": 300,
             "unit_price_cents": 120, "setup_cents": 2500},
            {"location": "back", "method": "screen", "colours": 1, "colour_names": ["White"],
             "width_mm": 250, "height_mm": 80, "notes": "Dates list under the logo"},
        ],
    }  # fmt: skip


HOODIE = {
    "style": "Heavy Hoodie", "colour": "Navy", "unit_price_cents": 2200,
    "sizes": {"S": 3, "M": 5, "L": 4},
    "imprints": [
        {"location": "left_chest", "method": "embroidery", "stitches": 8000, "width_mm": 90,
         "colour_names": ["Gold"], "setup_cents": 3000},
    ],
}  # fmt: skip
CAP = {
    "style": "Trucker Cap", "colour": "Black/White", "unit_price_cents": 900,
    "sizes": {"One size": 24},
    "imprints": [{"location": "front", "method": "transfer", "width_mm": 60, "height_mm": 45}],
}  # fmt: skip


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    """A shop with an owner (password and token), a customer, and G5000 Black in the whole
    run (8 M on hand)."""
    ws: Workspace = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Hop & Barley Brewing Co.")
    for size in RUN:
        await factories.sku(
            ws, f"G5000-BLK-{size}", style="G5000", colour="Black", size=size, brand="Gildan",
            on_hand=8 if size == "M" else 40,
        )  # fmt: skip
    return {"customer": customer, "token": await factories.token(owner)}


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"order-items-{name}.png"), full_page=True)


def test_garments_as_size_grids_and_the_outdated_banner(
    shop: dict, stack: Stack, page: Page
) -> None:
    created = stack.api(
        "POST", "/api/v1/orders", shop["token"],
        json={"customer_id": shop["customer"].id, "items": [tee(12), HOODIE, CAP],
              "notes": "Deliver to the taproom"},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    order = created.json()
    number, revision = order["number"], order["revision"]
    assert revision == 1

    log_in(page, stack, "olive@inkwell.example")
    page.goto(f"{stack.base}/admin/orders/{number}")
    expect(page.locator("article.item")).to_have_count(3)
    grid = page.locator("#item-0 table.size-grid")
    expect(grid.locator("thead th")).to_have_text(["Size", *RUN, "Total"])
    expect(grid.locator("tr.quantity td")).to_have_text(
        ["2", "6", "12", "8", "6", "4", "2", "1", "1", "42"]
    )
    short = grid.locator("td.short")
    expect(short).to_have_text(["short 4"])  # 8 on hand, 12 reserved
    assert short.evaluate("cell => getComputedStyle(cell).color") == RED
    expect(page.locator("#item-0")).to_contain_text(
        "Front · Screen print — 2 colours (White, Hop Gold) · 280 \u00d7 300 mm"
    )
    expect(page.locator("#item-1")).to_contain_text(
        "Left chest · Embroidery — Gold · 8,000 stitches"
    )
    expect(page.locator("#item-1 tr.available")).to_have_count(0)  # not stocked
    expect(page.locator("#item-2 thead th")).to_have_text(["Size", "One size", "Total"])
    expect(page.locator("#edit-order")).to_have_attribute("href", f"/admin/orders/{number}/edit")
    expect(page.locator("#work-order")).to_have_attribute(
        "href", f"/admin/orders/{number}/work-order"
    )
    expect(page.locator("#outdated")).to_have_count(0)
    shot(page, "wide")
    axe(page)

    # on a phone the page keeps its width; the tee's nine sizes scroll inside their box, and
    # the box takes the keyboard's focus so it can be scrolled without a pointer
    page.set_viewport_size(PHONE)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the order page is {width}px wide on a phone"
    box = page.locator("#item-0 .size-grid-wrap")
    assert box.evaluate("box => box.scrollWidth > box.clientWidth"), "the grid does not scroll"
    box.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(  # keyboard scrolling may be animated
        "() => document.querySelector('#item-0 .size-grid-wrap').scrollLeft > 0", timeout=5000
    )
    page.reload()  # the page as it opens
    shot(page, "phone")
    axe(page)

    # the order is edited (M down to 8): a work order printed at revision 1 is now out of date
    edited = stack.api(
        "PATCH", f"/api/v1/orders/{order['id']}", shop["token"],
        json={"items": [tee(8), HOODIE, CAP]},
    )  # fmt: skip
    assert edited.status_code == 200, edited.text
    assert edited.json()["revision"] == 2
    page.goto(f"{stack.base}/admin/orders/{number}?rev=1")
    banner = page.locator("#outdated")
    expect(banner).to_contain_text(
        "This work order is out of date: revision 1 was printed; the order is now at "
        "revision 2. Reprint it."
    )
    expect(banner.get_by_role("link")).to_have_attribute(
        "href", f"/admin/orders/{number}/work-order"
    )
    expect(grid.locator("td.short")).to_have_count(0)
    expect(grid.locator("tr.available td").nth(2)).to_have_text("0")
    shot(page, "outdated-phone")
    axe(page)
    page.set_viewport_size(WIDE)
    shot(page, "outdated")
    axe(page)
    for current in ("?rev=2", "?rev=nine", ""):
        page.goto(f"{stack.base}/admin/orders/{number}{current}")
        expect(page.locator("article.item")).to_have_count(3)
        expect(page.locator("#outdated")).to_have_count(0)
