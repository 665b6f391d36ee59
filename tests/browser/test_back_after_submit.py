"""Back after a submit, and the double submit, in Chromium against real processes.

Playwright's Chromium has no back/forward cache, so Back loads each page again, as a browser
does when its cache is full, for a page that was a POST's answer, or after a POST to the
page's own address: what was typed comes back from the page's history entry
(static/keep-typed.js), the garments added with the buttons, the fields the browser itself
does not restore and the form's one-time token included (api/admin/once.py).

- The new-order form: customer, two garments with sizes and an imprint, a plain line; Save
  double-clicked makes one order; Back shows every field; Save again opens the first order
  with "Already created: ORD-…", still one order. At 1280 px and 390 px.
- A refused save, a garment added after it, another page, Back: every field there.
- The edit form: a garment added and saved, Back: the order as saved; a refused save, another
  page, Back: what was typed.
- The customer form and the invoice's payment form: Back finds what was typed, and sending it
  again adds no second customer or payment.

Each page is checked with axe-core and saved as a screenshot (back-…)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests import factories
from tests.admin.support import member
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in

RESTORED_MS = 5000  # the form asked for as typed, on a loaded machine


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    """A shop with an owner, a customer, G5000 Black in four sizes, an order in artwork and
    an issued invoice of a dispatched order."""
    ws = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Hop & Barley Brewing Co.")
    for size in ("S", "M", "L", "XL"):
        await factories.sku(
            ws, f"G5000-BLK-{size}", style="G5000", colour="Black", size=size, brand="Gildan",
            on_hand=40,
        )  # fmt: skip
    editable = await factories.order(ws, customer, lines=[("Design fee", 1, 2500)])
    shipped = await factories.order(ws, customer, stage="dispatched", lines=[("Tees", 20, 900)])
    invoice = await factories.invoice(shipped)
    return {
        "token": await factories.token(owner),
        "customer": customer.id,
        "editable": editable.number,
        "invoice": invoice.number,
        "made_here": {editable.number, shipped.number},
    }


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"back-{name}.png"), full_page=True)


def new_orders(stack: Stack, shop: dict[str, Any]) -> list[str]:
    """The orders made through the admin (not the fixture's)."""
    listed = stack.api("GET", "/api/v1/orders", shop["token"]).json()["data"]
    return [order["number"] for order in listed if order["number"] not in shop["made_here"]]


# What the new-order test types: field id -> value (selects by value).
NEW_ORDER = {
    "#due_by": "2030-06-28",
    "#external_ref": "SHOP-7781",
    "#notes": "Fold and bag each tee",
    "#items-0-style": "G5000",
    "#items-0-colour": "Black",
    "#items-0-unit_price": "4.50",
    "#items-0-q1": "12",  # M of the stocked run S, M, L, XL
    "#items-0-q2": "10",  # L
    "#items-0-u3": "1.50",  # XL upcharge
    "#items-0-imprints-0-location": "front",
    "#items-0-imprints-0-method": "screen",
    "#items-0-imprints-0-colours": "2",
    "#items-0-imprints-0-colour_names": "White, Hop Gold",
    "#items-1-style": "Heavy Hoodie",
    "#items-1-colour": "Navy",
    "#items-1-unit_price": "22",
    "#items-1-q2": "5",  # M of the standard run
    "#lines-0-description": "Rush fee",
    "#lines-0-quantity": "1",
    "#lines-0-unit_price": "15",
}
SELECTS = ("#items-0-imprints-0-location", "#items-0-imprints-0-method")


def type_new_order(page: Page, customer: int) -> None:
    page.select_option("#customer", str(customer))
    page.fill("#items-0-style", "G5000")
    page.fill("#items-0-colour", "Black")
    page.locator("#items-0-unit_price").focus()  # leaving the colour shows the stocked sizes
    expect(page.locator("#items-0-sizes .size-cell:not(.other)")).to_have_count(4)
    page.click("#add-item")
    expect(page.locator("#items-1-style")).to_be_focused()
    for field, value in NEW_ORDER.items():
        if field in SELECTS:
            page.select_option(field, value)
        else:
            page.fill(field, value)
    page.fill("#items-1-other_size", "Tall L")
    page.fill("#items-1-other_quantity", "2")
    page.locator("#items-1-other_quantity").blur()


def every_field_there(page: Page, customer: int, fields: dict[str, str]) -> None:
    expect(page.locator("#customer")).to_have_value(str(customer))
    for field, value in fields.items():
        expect(page.locator(field)).to_have_value(value, timeout=RESTORED_MS)


def back_to_the_form(page: Page) -> None:
    page.go_back()
    expect(page.locator("#order-form")).to_be_visible()


@pytest.mark.parametrize("size", ["wide", "phone"])
def test_double_submit_back_and_save_again_make_one_order(
    shop: dict[str, Any], stack: Stack, size: str, page: Page
) -> None:
    page.set_viewport_size(DESKTOP if size == "wide" else PHONE)
    log_in(page, stack, "olive@inkwell.example")
    page.goto(f"{stack.base}/admin/orders/new")
    type_new_order(page, shop["customer"])
    once = page.locator("input[name=once]").input_value()

    page.locator("#save-order").dblclick()
    expect(page.locator("h1")).to_contain_text("Order ORD-")
    expect(page.locator(".notice")).to_contain_text(
        re.compile(r"Order ORD-\d{4}-\d{4} created\.|Already created: ORD-")
    )
    number = page.locator("h1").inner_text().split()[1]
    assert new_orders(stack, shop) == [number]

    back_to_the_form(page)
    every_field_there(page, shop["customer"], NEW_ORDER)
    expect(page.locator("#items-0-sizes .size-cell:not(.other)")).to_have_count(4)
    # the size typed in the "other size" box is read as the form reads it: a column of its own
    expect(page.locator("label[for=items-1-q9] .size-name")).to_contain_text("Tall L")
    expect(page.locator("#items-1-q9")).to_have_value("2")
    assert page.locator("input[name=once]").input_value() == once
    axe(page)
    shot(page, f"new-order-{size}")

    page.click("#save-order")
    expect(page.locator(".notice")).to_have_text(f"Already created: {number}.")
    expect(page).to_have_url(f"{stack.base}/admin/orders/{number}")
    assert new_orders(stack, shop) == [number]


def test_a_refused_save_then_another_page_then_back(
    shop: dict[str, Any], stack: Stack, page: Page
) -> None:
    log_in(page, stack, "olive@inkwell.example")
    page.goto(f"{stack.base}/admin/orders/new")
    page.select_option("#customer", str(shop["customer"]))
    page.fill("#items-0-style", "Heavy Hoodie")
    page.fill("#items-0-colour", "Navy")
    page.fill("#items-0-q2", "5")
    page.fill("#lines-0-description", "Rush fee")  # no quantity, no price: refused
    page.click("#save-order")
    expect(page.locator("#refusal")).to_be_visible()
    typed = {
        "#items-0-unit_price": "22",
        "#items-1-style": "Trucker Cap",
        "#items-1-colour": "Black/White",
        "#items-1-q1": "24",  # S of the standard run
        "#lines-0-quantity": "1",
    }
    page.click("#add-item")  # after the refusal, swapped in by script
    expect(page.locator("#items-1-style")).to_be_focused()
    for field, value in typed.items():
        page.fill(field, value)
    page.locator("#lines-0-quantity").blur()

    page.click("nav >> text=Customers")
    expect(page.locator("h1")).to_have_text("Customers")
    back_to_the_form(page)
    every_field_there(
        page, shop["customer"],
        {"#items-0-style": "Heavy Hoodie", "#items-0-q2": "5", "#lines-0-description": "Rush fee",
         **typed},
    )  # fmt: skip
    axe(page)
    shot(page, "refused-new-order")
    assert new_orders(stack, shop) == []


def test_the_edit_form_after_a_save_and_after_a_refusal(
    shop: dict[str, Any], stack: Stack, page: Page
) -> None:
    page.set_viewport_size(PHONE)
    log_in(page, stack, "olive@inkwell.example")
    number = shop["editable"]
    page.goto(f"{stack.base}/admin/orders/{number}/edit")
    page.fill("#items-0-style", "G5000")
    page.fill("#items-0-colour", "Black")
    page.locator("#items-0-unit_price").focus()
    expect(page.locator("#items-0-sizes .size-cell:not(.other)")).to_have_count(4)
    page.fill("#items-0-unit_price", "4.50")
    page.fill("#items-0-q0", "6")
    page.click("#add-item")
    page.fill("#items-1-style", "Heavy Hoodie")
    page.fill("#items-1-colour", "Navy")
    page.fill("#items-1-unit_price", "22")
    page.fill("#items-1-q3", "4")
    page.click("#save-order")
    expect(page.locator(".notice")).to_have_text(f"Order {number} saved.")

    # Back after the save: the order as saved, at its new revision (saving again changes
    # nothing rather than being refused as stale).
    back_to_the_form(page)
    expect(page.locator("#items-1-style")).to_have_value("Heavy Hoodie", timeout=RESTORED_MS)
    expect(page.locator("#items-0-q0")).to_have_value("6")
    expect(page.locator("input[name=revision]")).to_have_value("2")

    # A refused save (a line's quantity cleared), a garment added after it, another page, Back.
    page.fill("#lines-0-quantity", "")
    page.click("#save-order")
    expect(page.locator("#refusal")).to_be_visible()
    page.click("#add-item")
    expect(page.locator("#items-2-style")).to_be_focused()
    page.fill("#items-2-style", "Trucker Cap")
    page.fill("#items-2-unit_price", "9")
    page.fill("#items-2-q2", "24")
    page.fill("#notes", "Caps for the crew")
    page.locator("#notes").blur()
    page.goto(f"{stack.base}/admin/orders")
    back_to_the_form(page)
    for field, value in {
        "#items-0-q0": "6", "#items-1-style": "Heavy Hoodie", "#items-2-style": "Trucker Cap",
        "#items-2-q2": "24", "#notes": "Caps for the crew", "#lines-0-quantity": "",
    }.items():  # fmt: skip
        expect(page.locator(field)).to_have_value(value, timeout=RESTORED_MS)
    axe(page)
    shot(page, "refused-edit-phone")


def test_the_customer_and_payment_forms(shop: dict[str, Any], stack: Stack, page: Page) -> None:
    log_in(page, stack, "olive@inkwell.example")
    page.goto(f"{stack.base}/admin/customers/new")
    typed = {"#name": "Corner Café", "#slug": "corner-cafe", "#carrier": "DPD",
             "#price_list": "Cafés", "#discount": "7,5"}  # fmt: skip
    for field, value in typed.items():
        page.fill(field, value)
    page.select_option("#payment_terms", "net_30")
    page.check("input[name=tax_exempt]")
    page.click("button:has-text('Add customer')")
    expect(page.locator(".notice")).to_have_text("The customer Corner Café was added.")
    customer_page = page.url
    page.go_back()
    for field, value in typed.items():
        expect(page.locator(field)).to_have_value(value)
    expect(page.locator("#payment_terms")).to_have_value("net_30")
    expect(page.locator("input[name=tax_exempt]")).to_be_checked()
    page.click("button:has-text('Add customer')")
    expect(page.locator(".notice")).to_have_text("Already created: Corner Café.")
    expect(page).to_have_url(customer_page)

    number = shop["invoice"]
    page.goto(f"{stack.base}/admin/invoices/{number}")
    page.fill("#amount", "50")
    page.select_option("#method", "cheque")
    page.fill("#reference", "Cheque 000417")
    page.click("#record-payment button[type=submit]")
    recorded = "Payment of 50.00 GBP recorded: 166.00 GBP to pay."
    expect(page.locator(".notice")).to_have_text(recorded)
    page.go_back()
    expect(page.locator("#amount")).to_have_value("50")
    expect(page.locator("#method")).to_have_value("cheque")
    expect(page.locator("#reference")).to_have_value("Cheque 000417")
    axe(page)
    shot(page, "payment-form")
    page.click("#record-payment button[type=submit]")
    expect(page.locator(".notice")).to_have_text(
        f"Already recorded: the payment of 50.00 GBP for {number}."
    )
    expect(page.locator("#inv-balance")).to_have_text("166.00 GBP")
    payments = page.locator("#inv-payments tbody tr")
    expect(payments).to_have_count(1)
