"""The admin's header in Chromium: on a phone (390 px) one row, the brand and a
"Menu" button that opens the navigation (aria-expanded, by mouse or keyboard, Escape closes);
at 1280 px the navigation as before, with no button; without script the navigation stays open.
Screenshots of each state; axe-core finds no serious or critical issue in any."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests import factories
from tests.admin.support import PASSWORD, member
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, axe

SHOTS = [SCREENSHOTS, Path("/tmp/shots")]  # noqa: S108 - where people look at them too


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints of Hackney Wick", timezone="Europe/London")
    await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Acme Brewing")
    order = await factories.order(ws, customer)
    return {"ws": ws, "order": order}


def shot(page: Page, name: str) -> None:
    for folder in SHOTS:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"navigation-{name}.png"))


def log_in(page: Page, stack: Stack) -> None:
    page.goto(f"{stack.base}/admin/")
    page.fill("#email", "olive@inkwell.example")
    page.fill("#password", PASSWORD)
    page.click("button:has-text('Log in')")
    expect(page.locator("h1")).to_have_text("Inkwell Prints of Hackney Wick")


def one_row(header: Locator, *parts: Locator) -> None:
    """The parts sit side by side on the header's one row (their vertical middles within a few
    pixels), and the header is no taller than one row of them."""
    boxes = [part.bounding_box() for part in parts]
    assert all(boxes), boxes
    middles = [box["y"] + box["height"] / 2 for box in boxes if box]
    assert max(middles) - min(middles) < 6, middles
    height = (header.bounding_box() or {"height": 999})["height"]
    assert height < 64, f"the header is {height}px tall"


def test_a_phone_has_one_row_and_a_menu(shop: dict, stack: Stack, page: Page) -> None:
    page.set_viewport_size(PHONE)
    log_in(page, stack)
    header, button, nav = (
        page.locator("header.top"),
        page.locator(".menu-toggle"),
        page.locator("nav"),
    )
    for path, name in (("/admin/", "overview"), (f"/admin/orders/{shop['order'].number}", "order")):
        page.goto(stack.base + path)
        expect(button).to_have_text("Menu")
        expect(button).to_have_attribute("aria-expanded", "false")
        expect(nav).to_be_hidden()
        one_row(header, page.locator("header.top .brand"), button)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shot(page, f"phone-{name}")
        axe(page)

        button.click()
        expect(button).to_have_attribute("aria-expanded", "true")
        expect(nav.get_by_role("link", name="Customers")).to_be_visible()
        expect(page.locator("header.top .who button")).to_have_text("Log out")
        shot(page, f"phone-{name}-menu")
        axe(page)
        button.click()
        expect(button).to_have_attribute("aria-expanded", "false")
        expect(nav).to_be_hidden()

    # by keyboard: Enter opens, Tab reaches the links, Escape closes and returns to the button
    button.focus()
    page.keyboard.press("Enter")
    expect(button).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Tab")
    expect(nav.get_by_role("link", name="Overview")).to_be_focused()
    page.keyboard.press("Escape")
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(button).to_be_focused()
    page.keyboard.press("Space")
    expect(button).to_have_attribute("aria-expanded", "true")
    nav.get_by_role("link", name="Customers").click()
    expect(page).to_have_url(re.compile(r"/admin/customers$"))
    expect(button).to_have_attribute("aria-expanded", "false")  # a new page starts folded


def test_a_wide_window_shows_the_navigation_as_before(shop: dict, stack: Stack, page: Page):
    page.set_viewport_size(DESKTOP)
    log_in(page, stack)
    for path, name in (("/admin/", "overview"), (f"/admin/orders/{shop['order'].number}", "order")):
        page.goto(stack.base + path)
        expect(page.locator(".menu-toggle")).to_be_hidden()
        links = page.locator("nav").get_by_role("link")
        for link in (links.first, links.last, page.locator("header.top .who button")):
            expect(link).to_be_visible()
        brand, first = page.locator("header.top .brand").bounding_box(), links.first.bounding_box()
        assert brand and first and first["x"] > brand["x"] + brand["width"]  # beside the brand
        shot(page, f"wide-{name}")
        axe(page)


def test_without_script_the_navigation_stays_open(shop: dict, stack: Stack, page: Page):
    browser = page.context.browser
    assert browser is not None
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    try:
        plain = context.new_page()
        log_in(plain, stack)
        expect(plain.locator(".menu-toggle")).to_be_hidden()
        expect(plain.locator("nav").get_by_role("link", name="Invoices")).to_be_visible()
        shot(plain, "phone-no-script")
    finally:
        context.close()
