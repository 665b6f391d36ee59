"""The new-order form's refusals and its past-due-date warning in Chromium: a
refusal names the line and the field beside it; a due date in the past comes back as a warning
whose button saves it on the second click. Screenshots wide and on a phone; axe-core."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, expect

from models import clock
from tests import factories
from tests.admin.support import PASSWORD, member
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, axe

SHOTS = [SCREENSHOTS, Path("/tmp/shots")]  # noqa: S108 - where people look at them too


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    await member(ws, name="Olive Owner", email="olive@inkwell.example")
    return {"customer": await factories.customer(ws, "Acme Brewing")}


def shot(page: Page, name: str) -> None:
    for folder in SHOTS:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"form-messages-{name}.png"), full_page=True)


def test_a_refusal_and_a_past_due_date_on_the_new_order_form(
    shop: dict, stack: Stack, page: Page
) -> None:
    page.goto(f"{stack.base}/admin/")
    page.fill("#email", "olive@inkwell.example")
    page.fill("#password", PASSWORD)
    page.click("button:has-text('Log in')")
    past = clock.now().astimezone(ZoneInfo("Europe/London")).date() - dt.timedelta(days=24)
    for size, name in ((DESKTOP, "wide"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.goto(f"{stack.base}/admin/orders/new")
        page.select_option("#customer", label="Acme Brewing")
        page.fill("#due_by", past.isoformat())
        page.fill("#lines-0-description", "Design fee")
        page.fill("#lines-0-quantity", "-5")
        page.fill("#lines-0-unit_price", "1,250")
        page.click("#save-order")
        expect(page.locator("#lines-0-quantity-error")).to_have_text(
            "Line 1: the quantity must be at least 1."
        )
        expect(page.locator("#lines-0-unit_price-error")).to_have_text(
            "Line 1, the unit price: Type the amount as 1250 (or 1,250.00) or as 1.25: 1,250 "
            "could be either."
        )
        expect(page.locator("#lines-0-quantity")).to_have_attribute("aria-invalid", "true")
        shot(page, f"refused-{name}")
        axe(page)

        page.fill("#lines-0-quantity", "1")
        page.fill("#lines-0-unit_price", "12,50")
        page.click("#save-order")
        warning = page.locator("#due-warning")
        expect(warning).to_contain_text(
            f"The due date {past.day} {past:%b %Y} is in the past. Save anyway?"
        )
        expect(page.locator("#save-order")).to_have_text("Create order anyway")
        expect(page.locator("#lines-0-unit_price")).to_have_value("12,50")  # kept as typed
        shot(page, f"past-due-{name}")
        axe(page)
        page.click("#save-order")
        expect(page.locator(".notice")).to_contain_text(re.compile(r"Order ORD-\d{4}-\d+ created"))
        expect(page.locator("main")).to_contain_text("12.50 GBP")
