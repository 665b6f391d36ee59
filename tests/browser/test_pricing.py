"""Settings → Pricing in Chromium against real processes, at 1280 px and on a phone: a
quantity row and a colour column are added to the screen grid with its buttons (the new
field gets the cursor, nothing typed is lost), prices are typed and saved, and the page
reloaded shows them, as the API does; a price that is not an amount is refused beside its
cell. The page never scrolls sideways (a grid wider than the phone scrolls on its own).
Screenshots of each step; axe-core finds no serious or critical issue."""

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
    """A workspace made with the starting price list, and its owner (password and token)."""
    ws = await accounts.create_workspace(
        name="Inkwell Prints", plan="premium", timezone="Europe/London"
    )
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    return {"token": await factories.token(owner)}


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"pricing-{name}.png"), full_page=True)


def screen_grid(stack: Stack, token: str) -> dict[str, Any]:
    answer = stack.api("GET", "/api/v1/pricing", token)
    assert answer.status_code == 200, answer.text
    matrix: dict[str, Any] = answer.json()["matrices"][0]
    assert (matrix["method"], matrix["placement"]) == ("screen", "first")
    return matrix


def test_a_row_and_a_colour_column_added_typed_and_saved(
    shop: dict, stack: Stack, page: Page
) -> None:
    log_in(page, stack, "olive@inkwell.example")
    for size, name, quantity, colours, first in (
        (DESKTOP, "wide", 1000, 7, 460),
        (PHONE, "phone", 2500, 8, 470),
    ):
        page.set_viewport_size(size)
        before = screen_grid(stack, shop["token"])
        rows, columns = len(before["rows"]), len(before["columns"])
        page.goto(f"{stack.base}/admin/settings")
        page.click("#pricing-link")
        expect(page.locator("h1")).to_have_text("Pricing")
        was = before["rows"][0]["cells"][0]
        expect(page.locator("#m-0-row-0-cell-0")).to_have_value(f"{was // 100}.{was % 100:02d}")
        page.fill("#m-0-row-0-cell-0", f"{first / 100:.2f}")  # typed before the buttons: kept

        page.click("#m-0-add-row")
        new_row = f"#m-0-row-{rows}"
        expect(page.locator(f"{new_row}-min")).to_be_focused()
        page.keyboard.type(str(quantity))
        page.click("#m-0-add-column")
        new_column = f"#m-0-col-{columns}"
        expect(page.locator(new_column)).to_be_focused()
        page.keyboard.type(str(colours))
        expect(page.locator(f"{new_row}-min")).to_have_value(str(quantity))
        expect(page.locator("#m-0-row-0-cell-0")).to_have_value(f"{first / 100:.2f}")
        for c in range(columns + 1):
            page.fill(f"{new_row}-cell-{c}", f"0.{60 + c}")
        for r in range(rows):
            page.fill(f"#m-0-row-{r}-cell-{columns}", "abc" if r == 1 else f"{12 - r}.25")
        shot(page, f"added-{name}")
        axe(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]

        page.click("#save-pricing")  # one cell is not an amount: refused beside it
        error = page.locator(f"#m-0-row-1-cell-{columns}-error")
        expect(error).to_contain_text(
            f"Screen print, first location, row 2, the price for {colours} colours: Type an "
            "amount with at most two decimals"
        )
        expect(page.locator(f"#m-0-row-1-cell-{columns}")).to_have_attribute("aria-invalid", "true")
        expect(page.locator("#refusal")).to_contain_text("The price list was not saved.")
        expect(page.locator(f"{new_row}-cell-0")).to_have_value("0.60")
        page.locator(f"#m-0-row-1-cell-{columns}").scroll_into_view_if_needed()
        shot(page, f"refused-{name}")
        axe(page)

        page.fill(f"#m-0-row-1-cell-{columns}", "11.25")
        page.click("#save-pricing")
        expect(page.locator(".notice")).to_have_text("The price list was saved.")
        page.reload()
        expect(page.locator("#m-0-row-0-cell-0")).to_have_value(f"{first / 100:.2f}")
        expect(page.locator(f"{new_row}-min")).to_have_value(str(quantity))
        expect(page.locator(new_column)).to_have_value(str(colours))
        expect(page.locator(f"{new_row}-cell-{columns}")).to_have_value(f"0.{60 + columns}")
        expect(page.locator(f"#m-0-row-1-cell-{columns}")).to_have_value("11.25")
        shot(page, f"saved-{name}")
        axe(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]

        after = screen_grid(stack, shop["token"])
        assert after["columns"] == [*before["columns"], colours]
        assert after["rows"][-1] == {
            "min_quantity": quantity,
            "cells": [60 + c for c in range(columns + 1)],
        }
        assert after["rows"][0]["cells"][0] == first
        assert [row["cells"][-1] for row in after["rows"][:-1]] == [
            1125 if r == 1 else (12 - r) * 100 + 25 for r in range(rows)
        ]
