"""The admin's invoice page in Chromium against real processes: a payment typed
into its form, then the page printed: one page of A4 and of Letter for an order of twelve
lines, the staff's actions left out of the print; axe-core finds no serious or critical issue,
wide or on a phone. Screenshots of the screen, the print layout and the phone go to the
screenshots folder."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests import factories
from tests.admin.support import member
from tests.browser.conftest import PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in

# Chromium's PDF writes each page as an object of type /Page (the tree above is /Pages).
PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![A-Za-z])")


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints", email="hello@inkwell.example")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Hop & Barley Brewing Co.")
    await factories.contact(
        customer, name="Tom Fletcher", email="tom@hopandbarley.example", is_primary=True
    )
    lines = [(f"Tee {n}, front print in 2 colours", 10 + n, 850) for n in range(12)]
    order = await factories.order(ws, customer, stage="dispatched", lines=lines)
    invoice = await factories.invoice(order)
    return {"owner": owner.email, "number": invoice.number}


def test_a_payment_then_the_invoice_prints_on_one_page(
    shop: dict[str, Any], stack: Stack, page: Page
) -> None:
    log_in(page, stack, shop["owner"])
    expect(page).to_have_url(re.compile(r"/admin/$"))
    page.goto(f"{stack.base}/admin/invoices/{shop['number']}")
    page.fill("#amount", "50")
    page.select_option("#method", "card")
    page.fill("#reference", "Card ending 4242")
    page.click("#record-payment button[type=submit]")

    expect(page.locator(".notice")).to_have_text(
        "Payment of 50.00 GBP recorded: 1,847.20 GBP to pay."
    )
    expect(page.locator("#inv-balance")).to_have_text("1,847.20 GBP")
    expect(page.locator("#inv-payments")).to_contain_text("Card ending 4242")
    axe(page)
    page.screenshot(path=str(SCREENSHOTS / "invoice-page-screen.png"), full_page=True)

    page.emulate_media(media="print")
    expect(page.locator("#record-payment")).to_be_hidden()
    expect(page.locator("#print-button")).to_be_hidden()
    page.screenshot(path=str(SCREENSHOTS / "invoice-page-print.png"), full_page=True)
    for paper in ("A4", "Letter"):
        assert len(PAGE_OBJECT.findall(page.pdf(format=paper))) == 1, paper

    page.emulate_media(media="screen")
    page.set_viewport_size(PHONE)
    axe(page)
