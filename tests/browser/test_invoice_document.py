"""Invoices as tax documents in Chromium against real processes (the web process, the worker and
a real SMTP server): an owner fills Settings → Invoices (a refusal first, beside its field) with a
logo, the invoice shows it all and prints on one page of A4 for ten lines; "Email invoice" sends
the customer a link that opens the invoice's own page without logging in, which prints on one
page too. axe-core finds no serious or critical issue at 1280 px and on a phone (390 px); the
screenshots go to the screenshots folder."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests import factories
from tests.admin.support import member
from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    Stack,
    _free_port,
    axe,
    run_stack,
)
from tests.browser.test_admin import eventually, log_in
from tests.mail.smtp_server import ThreadedMailServer
from tests.proofs.files import png

LINK = re.compile(r"(http://127\.0\.0\.1:\d+/i/[A-Za-z0-9_-]+)")
# Chromium's PDF writes each page as an object of type /Page (the tree above is /Pages).
PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
# A4 inside the sheet's 15 mm margins (180 mm by 267 mm at 96 px an inch).
A4_CONTENT = {"width": 680, "height": 1009}
BANK = "Northern Bank plc\nAccount name: Inkwell Prints Ltd\nSort code: 12-34-56\nAccount: 12345678\nIBAN: GB29 NWBK 6016 1331 9268 19\nBIC: NWBKGB2L"  # noqa: E501
FOOTER = (
    "Inkwell Prints Ltd is registered in England and Wales, company no. 01234567. "
    "Registered office: Unit 4, Dyehouse Yard, 12 Mill Lane, Leeds LS1 4AB.\n"
    "Payment terms: 30 days from the invoice date. Goods remain ours until paid in full."
)


def pages_in(pdf: bytes) -> int:
    """The PDF's page count: pypdf's when installed, else its /Page objects."""
    try:
        from pypdf import PdfReader
    except ImportError:
        return len(PAGE_OBJECT.findall(pdf))
    import io

    return len(PdfReader(io.BytesIO(pdf)).pages)


@pytest.fixture(scope="module")
def smtp() -> Iterator[ThreadedMailServer]:
    server = ThreadedMailServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def stack(
    backend: str, smtp: ThreadedMailServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    """One web process and worker for the module, sending email through `smtp`."""
    port = _free_port()
    env = {
        "PUBLIC_URL": f"http://127.0.0.1:{port}",
        "SMTP_URL": smtp.url,
        "WEBHOOK_POLL_INTERVAL": "0.2",
        "LOG_LEVEL": "WARNING",
    }
    yield from run_stack(backend, tmp_path_factory.mktemp("stack"), env, port)


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints", email="hello@inkwell.example")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Hop & Barley Brewing Co.")
    await factories.contact(
        customer, name="Tom Fletcher", email="tom@hopandbarley.example", is_primary=True
    )
    from models.tables import Address

    await Address(
        workspace=ws.id, customer=customer.id, company="Hop & Barley Brewing Co.",
        line1="The Old Maltings", line2="Brewery Lane", city="Bradford", postal_code="BD1 1AA",
        country="GB", is_default=True,
    ).save()  # fmt: skip
    lines = [(f"Tee {n + 1}, front print in 2 colours", 10 + n, 850) for n in range(10)]
    order = await factories.order(
        ws, customer, stage="dispatched", lines=lines, external_ref="PO-2231"
    )
    invoice = await factories.invoice(order)
    await factories.payment(invoice, amount=50_00, method="card", reference="Card ending 4242")
    return {"owner": owner.email, "number": invoice.number, "order": order.number}


def _fill_settings(page: Page, stack: Stack, logo: Path) -> None:
    page.goto(f"{stack.base}/admin/settings")
    page.click("#invoices-link")
    expect(page.locator("h1")).to_have_text("Invoices")
    values = {
        "#legal_name": "Inkwell Prints Ltd",
        "#address_line1": "Unit 4, Dyehouse Yard",
        "#address_line2": "12 Mill Lane",
        "#city": "Leeds",
        "#postcode": "LS1 4AB",
        "#country": "United Kingdom",
        "#tax_label": "VAT",
        "#tax_number": "GB 123 4567 89",
        "#bank_details": BANK + "\nSWIFT: one line too many",
        "#footer": FOOTER,
    }
    for selector, value in values.items():
        page.fill(selector, value)
    page.set_input_files("#logo", str(logo))
    page.click("button:has-text('Save')")
    expect(page.locator("#bank_details-error")).to_have_text(
        "The bank details must be at most 6 lines."
    )
    expect(page.locator("#bank_details")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#legal_name")).to_have_value("Inkwell Prints Ltd")
    axe(page)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(SCREENSHOTS / "invoice-settings-refused-phone.png"), full_page=True)
    axe(page)
    page.set_viewport_size(DESKTOP)
    page.fill("#bank_details", BANK)
    page.set_input_files("#logo", str(logo))  # a refused form cannot keep a chosen file
    page.click("button:has-text('Save')")
    expect(page.locator(".notice")).to_contain_text("The invoice settings were saved")
    expect(page.locator("#current-logo")).to_be_visible()
    axe(page)
    page.screenshot(path=str(SCREENSHOTS / "invoice-settings.png"), full_page=True)


def _check_sheet(page: Page) -> None:
    """What the invoice shows of the settings (the admin's page and the customer's alike)."""
    shop = page.locator("#inv-shop")
    expect(shop).to_contain_text("Inkwell Prints Ltd")
    expect(shop).to_contain_text("Leeds LS1 4AB")
    expect(page.locator("#inv-tax-number")).to_have_text("VAT number: GB 123 4567 89")
    logo = page.locator("#inv-logo")
    expect(logo).to_be_visible()
    assert logo.evaluate("image => image.complete && image.naturalWidth") == 300
    expect(page.locator("#inv-tax-words")).to_have_text("VAT 20 %")
    expect(page.locator("#inv-bill-to")).to_contain_text("The Old Maltings")
    expect(page.locator("#inv-bank")).to_contain_text("Sort code: 12-34-56")
    expect(page.locator("#inv-footer")).to_contain_text("company no. 01234567")
    expect(page.locator("#inv-lines tbody tr")).to_have_count(10)


def _prints_on_one_page(page: Page, name: str) -> None:
    """One page of A4; the screenshot is the print layout as wide as A4 inside its margins."""
    page.emulate_media(media="print")
    expect(page.locator("#print-button")).to_be_hidden()
    assert pages_in(page.pdf(format="A4")) == 1
    size = page.viewport_size
    page.set_viewport_size(A4_CONTENT)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-print.png"), full_page=True)
    page.set_viewport_size(size or DESKTOP)
    page.emulate_media(media="screen")


def test_settings_shown_on_the_invoice_printed_on_one_page_of_a4(
    shop: dict[str, Any], stack: Stack, tmp_path: Path, page: Page
) -> None:
    logo = tmp_path / "inkwell-logo.png"
    logo.write_bytes(png(300, 100, colour=(17, 94, 89)))
    log_in(page, stack, shop["owner"])
    expect(page).to_have_url(re.compile(r"/admin/$"))
    _fill_settings(page, stack, logo)

    page.goto(f"{stack.base}/admin/invoices/{shop['number']}")
    _check_sheet(page)
    expect(page.locator("#email-invoice")).to_contain_text("Tom Fletcher")
    axe(page)
    page.screenshot(path=str(SCREENSHOTS / "invoice-document-screen.png"), full_page=True)
    _prints_on_one_page(page, "invoice-document")
    page.set_viewport_size(PHONE)
    axe(page)
    page.screenshot(path=str(SCREENSHOTS / "invoice-document-phone.png"), full_page=True)


def test_the_emailed_link_opens_the_invoice_without_login(
    shop: dict[str, Any], stack: Stack, smtp: ThreadedMailServer, tmp_path: Path, page: Page
) -> None:
    logo = tmp_path / "inkwell-logo.png"
    logo.write_bytes(png(300, 100, colour=(17, 94, 89)))
    log_in(page, stack, shop["owner"])
    expect(page).to_have_url(re.compile(r"/admin/$"))
    _fill_settings(page, stack, logo)
    before = len(smtp.received)

    page.goto(f"{stack.base}/admin/invoices/{shop['number']}")
    page.click("#email-invoice button[type=submit]")
    expect(page.locator(".notice")).to_have_text(
        f"Invoice {shop['number']} is being emailed to tom@hopandbarley.example, with a link "
        "to its own page."
    )
    eventually(lambda: len(smtp.received) > before, what="the invoice email")
    mail = smtp.received[-1]
    assert mail.recipients == ["tom@hopandbarley.example"]
    found = LINK.search(mail.text())
    assert found, mail.text()

    customer = page.context.browser.new_context(viewport=DESKTOP)  # no cookies: not logged in
    try:
        theirs = customer.new_page()
        theirs.goto(found.group(1))
        expect(theirs.locator("h1")).to_contain_text(f"Invoice {shop['number']}")
        _check_sheet(theirs)
        expect(theirs.locator("#print-button")).to_be_visible()
        assert theirs.locator("a[href*='/admin']").count() == 0
        assert theirs.locator("form").count() == 0
        axe(theirs)
        theirs.screenshot(path=str(SCREENSHOTS / "invoice-link-screen.png"), full_page=True)
        _prints_on_one_page(theirs, "invoice-link")
        theirs.set_viewport_size(PHONE)
        axe(theirs)
        theirs.screenshot(path=str(SCREENSHOTS / "invoice-link-phone.png"), full_page=True)
    finally:
        customer.close()

    page.goto(f"{stack.base}/admin/orders/{shop['order']}")
    entry = page.locator("#timeline [data-kind=email]").first
    expect(entry).to_contain_text(f"Invoice {shop['number']} for order")
    expect(entry).to_contain_text("the customer opened it")
