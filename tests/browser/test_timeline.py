"""The order page's timeline in Chromium against real processes: its entries newest first, the
proofs as thumbnails (an image shown small, a PDF as its icon and name) with the approved version
marked, the customer's name leading to the customer's page; the page at 1280 px and on a phone,
checked with axe-core (no serious or critical violation)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models.tables import Order, Workspace
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import member
from tests.admin.test_order_timeline import seeded
from tests.browser.conftest import PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in

WIDE = {"width": 1280, "height": 900}


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    ws: Workspace = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    order, ids = await seeded(Shop(ws, owner, None))  # type: ignore[arg-type]
    return {"order": order, "ids": ids}


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"timeline-{name}.png"), full_page=True)


def test_the_timeline_on_the_order_page(shop: dict, stack: Stack, page: Page) -> None:
    order: Order = shop["order"]
    ids = shop["ids"]
    log_in(page, stack, "olive@inkwell.example")
    page.goto(f"{stack.base}/admin/orders/{order.number}")
    entries = page.locator("#timeline li.entry")
    expect(entries).to_have_count(11)
    keys = entries.evaluate_all("items => items.map(item => item.id)")
    assert keys[:10] == [
        f"payment-{ids['payment']}", f"issued-{ids['invoice_number']}",
        f"delivery-{ids['delivery']}", f"move-{ids['move']}", "answer-2", "proof-2", "answer-1",
        f"message-{ids['message']}", "proof-1", f"edit-{ids['edit']}",
    ]  # fmt: skip
    assert keys[10].startswith("move-")
    expect(entries.nth(3)).to_contain_text("Moved from Artwork to Print queue by Olive Owner")
    expect(entries.last).to_contain_text("Created in Artwork")

    # The image proof is shown small, the PDF as its icon and name; version 2 is approved.
    thumb = page.locator("#proof-1 a.thumb img")
    thumb.scroll_into_view_if_needed()
    expect(thumb).to_be_visible()
    page.wait_for_function(
        "document.querySelector('#proof-1 a.thumb img').naturalWidth > 0", timeout=5000
    )
    box = thumb.bounding_box()
    assert box is not None and box["width"] <= 112 and box["height"] <= 112
    expect(page.locator("#proof-2 a.thumb .file-icon")).to_have_text("PDF")
    expect(page.locator("#proof-2 a.thumb")).to_contain_text("front-v2.pdf")
    expect(page.locator("#proof-2 .badge.approved")).to_have_text("Approved")
    expect(page.locator("#proof-1 .badge.approved")).to_have_count(0)
    expect(page.locator("#answer-1 .customer-comment")).to_have_text("Make the logo 20% bigger.")

    page.set_viewport_size(WIDE)
    shot(page, "wide")
    axe(page)
    page.set_viewport_size(PHONE)
    shot(page, "phone")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    axe(page)

    page.click("#customer-link")
    expect(page).to_have_url(f"{stack.base}/admin/customers/{order.customer}")
    expect(page.locator("h1")).to_contain_text("Acme Brewing")
