"""The approval rule as a new shop has it (on), in Chromium against real processes: the owner
sees and edits it on the Settings page (at desk and phone widths, checked by axe), and staff
moving an order whose proof is not approved out of Artwork are told why, the order staying."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models import accounts
from tests import factories
from tests.admin.support import member
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    """A workspace made as `pressline workspace create` makes one (approval on by default),
    its owner and a staff member, and an order in Artwork with no proof yet."""
    ws = await accounts.create_workspace(
        name="Inkwell Prints", plan="premium", tax_rate="20", timezone="Europe/London"
    )
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    await member(ws, role="staff", name="Sam Staff", email="sam@inkwell.example")
    customer = await factories.customer(ws, "Acme Tees")
    order = await factories.order(ws, customer)
    return {"ws": ws, "order": order, "token": await factories.token(owner)}


def _shoot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name), full_page=True)


def test_settings_show_the_rule_and_a_refused_move_says_why(
    shop: dict[str, Any], stack: Stack, page: Page
) -> None:
    log_in(page, stack, "olive@inkwell.example")
    page.click("nav >> text=Settings")
    expect(page.locator("h1")).to_have_text("Settings")
    expect(page.locator("#require_artwork_approval")).to_be_checked()
    expect(page.locator("#strict_sequence")).not_to_be_checked()
    expect(page.locator("#tax_rate")).to_have_value("20.00")
    expect(page.locator("#timezone")).to_have_value("Europe/London")
    expect(page.locator("#approval-hint")).to_contain_text(
        "Orders cannot leave Artwork until the customer or staff approved a proof"
    )
    axe(page)
    _shoot(page, "settings-desktop.png")

    # A typing slip is named by its label and kept to correct.
    page.fill("#tax_rate", "abc")
    page.locator("#tax_rate").press("Enter")
    expect(page.locator("#tax_rate-error")).to_have_text("Tax rate must be a number.")
    expect(page.locator("#tax_rate")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#tax_rate")).to_have_value("abc")
    axe(page)
    _shoot(page, "settings-refused.png")
    page.fill("#tax_rate", "17.5")
    page.locator("#tax_rate").press("Enter")
    expect(page.locator(".notice")).to_have_text("The settings were saved.")
    expect(page.locator("#tax_rate")).to_have_value("17.50")
    expect(page.locator("#require_artwork_approval")).to_be_checked()

    page.set_viewport_size(PHONE)
    page.reload()
    axe(page)
    _shoot(page, "settings-phone.png")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the Settings page scrolls sideways on a phone ({width}px)"
    page.set_viewport_size(DESKTOP)

    page.click("button:has-text('Log out')")
    log_in(page, stack, "sam@inkwell.example")
    number = shop["order"].number
    page.goto(f"{stack.base}/admin/orders/{number}")
    page.select_option("#to_stage", "print_queue")
    page.click("form.move button:has-text('Move')")
    expect(page.locator("#refusal")).to_contain_text(
        f"Order {number} cannot leave artwork before its artwork is approved"
    )
    expect(page.locator("h1 .stage")).to_have_text("Artwork")
    detail = stack.api("GET", f"/api/v1/orders/{shop['order'].id}", shop["token"])
    assert detail.json()["stage"] == "artwork"

    # Staff read the rule on the Settings page but cannot change it.
    page.click("nav >> text=Settings")
    expect(page.locator("#require_artwork_approval")).to_be_disabled()
    expect(page.locator("#require_artwork_approval")).to_be_checked()
    expect(page.locator("text=Only an owner can change these settings.").first).to_be_visible()
