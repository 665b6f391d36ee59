"""The admin's answers to addresses no page takes, in Chromium at 1280 px and 390 px: a query
holding a control character is the 422 page "Request refused", and a path the router cannot
read as an id (`/admin/customers/abc`, thousands of digits) is the 404 page, not the API's
JSON. Each a page of the admin's own look with its way back; screenshots; axe-core clean."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests import factories
from tests.admin.support import PASSWORD, member
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, axe


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    await member(ws, name="Olive Owner", email="olive@inkwell.example")
    return {"ws": ws}


def log_in(page: Page, stack: Stack) -> None:
    page.goto(f"{stack.base}/admin/")
    page.fill("#email", "olive@inkwell.example")
    page.fill("#password", PASSWORD)
    page.click("button:has-text('Log in')")
    expect(page.locator("h1")).to_have_text("Inkwell Prints")


@pytest.mark.parametrize("size", ["wide", "phone"])
def test_a_control_character_or_an_unreadable_id_is_the_admins_own_page(
    shop: dict[str, Any], stack: Stack, size: str, page: Page
) -> None:
    page.set_viewport_size(DESKTOP if size == "wide" else PHONE)
    log_in(page, stack)

    answer = page.goto(f"{stack.base}/admin/orders?q=Acme%00")
    assert answer is not None and answer.status == 422
    expect(page.locator("h1")).to_have_text("Request refused")
    expect(page.locator(".card p").first).to_contain_text("control character")
    expect(page.locator("header.top")).to_be_visible()  # the admin's own page, its navigation
    axe(page)
    page.screenshot(path=str(SCREENSHOTS / f"refused-query-{size}.png"), full_page=True)

    for name, path in (("unreadable-id", "/admin/customers/abc"),
                       ("digits-id", "/admin/orders/" + "1" * 4301)):  # fmt: skip
        answer = page.goto(stack.base + path)
        assert answer is not None and answer.status == 404, path
        expect(page.locator("h1")).to_have_text("Not found")
        assert "application/json" not in (answer.headers.get("content-type") or "")
        axe(page)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{size}.png"), full_page=True)
    page.click("text=Back to the overview")
    expect(page.locator("h1")).to_have_text("Inkwell Prints")
