"""The overview's "Needs attention" in Chromium against a real web process: a seeded day with
each kind present once (tests/admin/test_attention.py's, with its decoys), every card linked,
no serious or critical axe-core issue; saved at 1280 px and on a phone for docs/admin.md. The
webhook figures it no longer shows are on the Webhooks page."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models.orders.attention import Kind
from tests import factories
from tests.admin.support import member
from tests.admin.test_attention import seed_day
from tests.browser.conftest import PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in

EMAIL = "olive@inkwell.example"


@pytest.fixture
async def day(backend: str) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints")
    await member(ws, name="Olive Owner", email=EMAIL)
    seeded = await seed_day(ws)
    quiet = await factories.workspace(name="Quiet Prints")
    await member(quiet, name="Quinn Quiet", email="quinn@quiet.example")
    return {"expected": seeded.expected}


def shots(page: Page, name: str) -> None:
    """The page at 1280 px and at a phone's width (no sideways scrolling on the phone)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    wide = page.viewport_size
    page.set_viewport_size(PHONE)
    width = page.evaluate("document.documentElement.scrollWidth")
    axe(page)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-phone.png"), full_page=True)
    assert wide is not None
    page.set_viewport_size(wide)
    assert width <= PHONE["width"], f"{name}: {width}px wide in a {PHONE['width']}px window"


def test_the_overview_shows_what_needs_attention_first(
    day: dict[str, Any], stack: Stack, page: Page
) -> None:
    log_in(page, stack, EMAIL)
    expect(page.locator("main h2").first).to_have_text("Needs attention")
    for kind, link in day["expected"].items():
        card = page.locator(f"#attention-{kind}")
        expect(card.locator(".count")).to_have_text("1")
        expect(card.locator("a.number")).to_have_count(1)
        expect(card.locator("a.number")).to_have_attribute("href", link)
    expect(page.locator("#attention-clear")).to_have_count(0)
    expect(page.locator("text=Deliveries pending")).to_have_count(0)  # on the Webhooks page
    axe(page)
    shots(page, "overview")

    page.locator(f"#attention-{Kind.OVERDUE} a.number").click()
    expect(page.locator("h1")).to_contain_text(day["expected"][Kind.OVERDUE].rsplit("/", 1)[1])
    page.go_back()
    page.locator(f"#attention-{Kind.INVOICE_OVERDUE} a.number").click()
    number = day["expected"][Kind.INVOICE_OVERDUE].rsplit("/", 1)[1]
    expect(page.locator("h1")).to_contain_text(number)

    page.goto(f"{stack.base}/admin/webhooks")  # where the webhook figures moved
    expect(page.locator(".webhook-health")).to_contain_text("Deliveries pending")
    axe(page)
    shots(page, "webhooks-health")


def test_a_quiet_shop_sees_that_nothing_needs_attention(
    day: dict[str, Any], stack: Stack, page: Page
) -> None:
    log_in(page, stack, "quinn@quiet.example")
    expect(page.locator("#attention-clear")).to_contain_text("Nothing needs attention")
    axe(page)
    shots(page, "overview-quiet")
