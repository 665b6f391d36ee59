"""Voiding payments in Chromium against real processes: on the invoice page an owner opens
"Void…" beside a payment, is asked for the reason (an empty one is refused beside the field),
voids it, and the balance comes back while the payment stays struck through with the reason;
on a phone the same from the order page; the same without script; "Mark paid" asks first.
Screenshots at 1280 px and 390 px; axe-core finds no serious or critical issue."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models.actors import Actor
from models.invoices import payments
from models.invoices.status import PaymentMethod
from tests import factories
from tests.admin.support import member
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    """A dispatched order's invoice of 180.00 GBP with three payments recorded by the owner."""
    ws = await factories.workspace(name="Inkwell Prints", email="hello@inkwell.example")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Hop & Barley Brewing Co.")
    await factories.contact(
        customer, name="Tom Fletcher", email="tom@hopandbarley.example", is_primary=True
    )
    order = await factories.order(
        ws, customer, stage="dispatched", lines=[("Tees, front print in 2 colours", 20, 750)]
    )
    invoice = await factories.invoice(order, total=18_000)
    ids = []
    for amount, method, reference in (
        (5_000, PaymentMethod.CHEQUE, "Cheque 000417"),
        (3_000, PaymentMethod.CARD, "Card ending 4242"),
        (2_000, PaymentMethod.CASH, "Cash at the counter"),
    ):
        paid = await payments.record_payment(
            workspace_id=ws.id, invoice=invoice.id, amount_cents=amount, method=method,
            reference=reference, actor=Actor.user(owner.id),
        )  # fmt: skip
        ids.append(paid.payment_id)
    return {
        "number": invoice.number, "invoice_id": invoice.id, "order": order.number, "ids": ids,
        "token": await factories.token(owner),
    }  # fmt: skip


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"payment-void-{name}.png"), full_page=True)


def test_void_a_payment_and_the_balance_comes_back(
    shop: dict[str, Any], stack: Stack, page: Page
) -> None:
    number, (cheque, card, cash) = shop["number"], shop["ids"]
    log_in(page, stack, "olive@inkwell.example")
    expect(page.locator("h1")).to_be_visible()
    page.goto(f"{stack.base}/admin/invoices/{number}")
    expect(page.locator("#inv-balance")).to_have_text("80.00 GBP")

    # Wide: the invoice page's Void…, the reason asked for, refused empty, then the void.
    page.click(f"#payment-{cheque} a.void-link")
    expect(page.locator("h1")).to_have_text(f"Void the payment of 50.00 GBP on {number}?")
    expect(page.locator("#void-payment")).to_contain_text("from 80.00 GBP to 130.00 GBP")
    page.click("button:has-text('Void payment')")
    expect(page.locator("#reason-error")).to_have_text("The reason must not be blank.")
    expect(page.locator("#reason")).to_have_attribute("aria-invalid", "true")
    axe(page)
    shot(page, "refused-wide")
    page.fill("#reason", "Cheque returned unpaid by the bank")
    page.click("button:has-text('Void payment')")
    expect(page.locator(".notice")).to_have_text(
        f"The payment of 50.00 GBP was voided: 130.00 GBP to pay on {number}."
    )
    expect(page.locator("#inv-balance")).to_have_text("130.00 GBP")
    row = page.locator(f"#payment-{cheque}")
    expect(row).to_have_class("voided")
    expect(row).to_contain_text("Cheque returned unpaid by the bank")
    expect(row).to_contain_text("voided by Olive Owner")
    struck = row.locator("td.num").evaluate("cell => getComputedStyle(cell).textDecorationLine")
    assert struck == "line-through"
    expect(row.locator("a.void-link")).to_have_count(0)
    axe(page)
    shot(page, "invoice-wide")
    page.emulate_media(media="print")
    expect(page.locator(f"#payment-{cheque}")).to_contain_text("Cheque returned unpaid")
    shot(page, "invoice-print")
    page.emulate_media(media="screen")

    # A phone: the order page lists the invoice's payments, each with its Void….
    page.set_viewport_size(PHONE)
    page.goto(f"{stack.base}/admin/orders/{shop['order']}")
    expect(page.locator(f"#order-payment-{cheque}")).to_have_class("voided")
    axe(page)
    shot(page, "order-phone")
    page.click(f"#order-payment-{card} a:has-text('Void…')")
    expect(page.locator("#reason")).to_be_visible()
    axe(page)
    shot(page, "confirm-phone")
    page.fill("#reason", "Card charge refunded")
    page.click("button:has-text('Void payment')")
    expect(page).to_have_url(f"{stack.base}/admin/orders/{shop['order']}")
    expect(page.locator(".notice")).to_contain_text("The payment of 30.00 GBP was voided")
    expect(page.locator(f"#order-payment-{card}")).to_contain_text("Card charge refunded")
    expect(page.locator("#timeline")).to_contain_text("voided: Card charge refunded")
    axe(page)
    shot(page, "order-voided-phone")

    # Without script: the confirmation is a page and its form a plain POST.
    context = page.context.browser.new_context(viewport=DESKTOP, java_script_enabled=False)  # type: ignore[union-attr]
    plain = context.new_page()
    log_in(plain, stack, "olive@inkwell.example")
    expect(plain.locator("h1")).to_be_visible()
    plain.goto(f"{stack.base}/admin/invoices/{number}")
    plain.click(f"#payment-{cash} a.void-link")
    plain.fill("#reason", "Recorded against the wrong invoice")
    plain.click("button:has-text('Void payment')")
    expect(plain.locator("#inv-balance")).to_have_text("180.00 GBP")
    shot(plain, "invoice-no-script")
    context.close()  # (axe needs script: the pages it checks are the same with it on)

    # Mark paid asks first, saying what it records.
    page.set_viewport_size(DESKTOP)
    page.goto(f"{stack.base}/admin/invoices/{number}")
    page.click("#mark-paid a")
    expect(page.locator("#mark-paid-confirm")).to_contain_text(
        "a payment of the whole balance, 180.00 GBP"
    )
    axe(page)
    shot(page, "mark-paid-confirm")
    page.click("#confirm-mark-paid")
    expect(page.locator(".notice")).to_have_text(f"Invoice {number} was marked paid.")
    expect(page.locator("#inv-status")).to_have_text("paid")

    detail = stack.api("GET", f"/api/v1/invoices/{shop['invoice_id']}", shop["token"]).json()
    assert (detail["status"], detail["paid_cents"], detail["balance_cents"]) == ("paid", 18_000, 0)
    reasons = [p["void_reason"] for p in detail["payments"]]
    assert reasons == [
        "Cheque returned unpaid by the bank", "Card charge refunded",
        "Recorded against the wrong invoice", None,
    ]  # fmt: skip
    events = stack.api("GET", "/api/v1/events", shop["token"], params={"type": "payment.voided"})
    assert len(events.json()["data"]) == 3
