"""Customers, stock and invoices on the shop floor, in Chromium against real processes: adding
a customer with a primary contact, adjusting stock and seeing the movement, marking an invoice
paid. Each checks what the database and the API then show, and runs axe-core on the pages
(no serious or critical issue); the pages are saved for docs/admin.md (1280 px and a phone).

axe-core is the copy in tests/browser/vendor (or $PRESSLINE_AXE_JS)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
from playwright.sync_api import Page, expect

from models import catalogue, clock, db
from models.actors import Actor
from models.orders import creating
from models.orders.lines import NewLine
from models.tables import (
    ApiToken,
    Contact,
    Customer,
    Invoice,
    Sku,
    StockMovement,
    User,
    WebhookEvent,
)
from tests import factories
from tests.admin.support import PASSWORD, member
from tests.browser.conftest import PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in

WIDE = {"width": 1280, "height": 900}
T = TypeVar("T")


def in_database(read: Callable[[], Awaitable[T]]) -> T:
    """Run a read of the database the processes use, on a thread and loop of its own
    (Playwright's sync API holds this thread's event loop). PostgreSQL's pool belongs to the
    session's loop, so the read goes through an engine of its own, pool-less, meanwhile."""

    async def on_own_engine() -> T:
        session = db.engine()
        if not db.is_postgres():
            return await read()
        db.bind(db.engine_from_url(session.config["dsn"]))
        try:
            return await read()
        finally:
            db.bind(session)

    with concurrent.futures.ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, on_own_engine()).result(timeout=30)


def shots(page: Page, name: str) -> None:
    """The page at 1280 px and at a phone's width (no sideways scrolling on the phone)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"shop-{name}.png"), full_page=True)
    page.set_viewport_size(PHONE)
    width = page.evaluate("document.documentElement.scrollWidth")
    page.screenshot(path=str(SCREENSHOTS / f"shop-{name}-phone.png"), full_page=True)
    page.set_viewport_size(WIDE)
    assert width <= PHONE["width"], f"{name}: {width}px wide in a {PHONE['width']}px window"


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    """A shop with an owner (password and token), customers with orders and paid and unpaid
    invoices, and SKUs, some low, so every page has rows to show."""
    ws = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    token = await factories.token(owner, name="Shop website")
    brewery = await factories.customer(ws, "Hop & Barley Brewing Co.", default_carrier="DPD")
    await factories.contact(
        brewery, name="Tom Fletcher", email="tom@hopandbarley.example", is_primary=True
    )
    school = await factories.customer(ws, "St Aidan's Primary School")
    await factories.contact(school, name="Priya Shah", email="office@staidans.example",
                            is_primary=True)  # fmt: skip
    band = await factories.customer(ws, "The Velvet Tides")
    invoices = []
    for customer, stage, lines in (
        (brewery, "dispatched", [("Staff polos", 40, 1450)]),
        (school, "dispatched", [("Leavers hoodies", 30, 2450)]),
        (band, "dispatched", [("Album launch totes", 50, 475)]),
        (band, "print_queue", [("Tour beanies", 25, 575)]),
    ):
        order = await factories.order(ws, customer, stage=stage, lines=lines)
        if stage == "dispatched":
            invoices.append(await factories.invoice(order))
    await Invoice.update({Invoice.status: "paid", Invoice.paid_at: clock.now()}).where(
        Invoice.id == invoices[2].id
    )
    # Stock through the domain functions, so every figure has its movements: created with
    # its on_hand (the operator), then reserved by an order made with an API token.
    rows = [
        {"workspace": ws.id, "code": code, "style": style, "brand": "Gildan", "colour": colour,
         "colour_hex": hex_, "size": size, "on_hand": on_hand, "reorder_point": reorder}
        for code, style, colour, hex_, size, on_hand, reorder in (
            ("TEE-BLK-M", "Classic Tee", "Black", "#000000", "M", 120, 40),
            ("TEE-BLK-L", "Classic Tee", "Black", "#000000", "L", 35, 40),
            ("HOOD-NVY-S", "Heavy Hoodie", "Navy", "#1F2A44", "S", 8, 12),
            ("TOTE-NAT", "Canvas Tote", "Natural", "#EFE6D2", "One size", 300, 60),
        )
    ]  # fmt: skip
    await catalogue.create_skus(ws.id, rows)
    token_id = await ApiToken.select(ApiToken.id).where(ApiToken.user == owner.id).first()
    await creating.create(
        workspace_id=ws.id, customer_id=band.id,
        lines=[NewLine("Tour tees M", 30, 1150, "TEE-BLK-M"),
               NewLine("Tour tees L", 10, 1150, "TEE-BLK-L")],
        actor=Actor.token(token_id["id"], owner.id),
    )  # fmt: skip
    return {"ws": ws, "owner": owner, "token": token, "invoice": invoices[0]}


def test_add_a_customer_with_a_primary_contact(shop: dict, stack: Stack, page: Page) -> None:
    log_in(page, stack, "olive@inkwell.example")
    page.click("nav >> text=Customers")
    expect(page.locator("h1")).to_have_text("Customers")
    axe(page)
    shots(page, "customers")
    page.click("text=Add a customer")
    page.fill("#name", "Northside Roller Derby")
    page.select_option("#payment_terms", "net_15")
    page.fill("#carrier", "Royal Mail")
    axe(page)
    page.click("button:has-text('Add customer')")
    expect(page.locator(".notice")).to_have_text("The customer Northside Roller Derby was added.")
    expect(page.locator("h1")).to_have_text("Northside Roller Derby")
    page.fill("#contact-name", "Jess Moreno")
    page.fill("#contact-email", "jess@northside.example")
    page.fill("#contact-phone", "0161 496 0000")
    page.click("button:has-text('Add contact')")
    expect(page.locator(".notice")).to_have_text("Jess Moreno was added as the primary contact.")
    page.fill("#contact-name", "Sam Okafor")
    page.fill("#contact-email", "sam@northside.example")
    page.click("button:has-text('Add contact')")
    expect(page.locator("tr", has_text="Jess Moreno")).to_contain_text("primary")
    expect(page.locator("tr", has_text="Sam Okafor")).not_to_contain_text("primary")
    page.reload()  # the notice was for one page; the reload adds nothing
    expect(page.locator(".notice")).to_have_count(0)
    axe(page)
    shots(page, "customer")
    # Sam becomes the primary contact; Jess stays, as an ordinary contact.
    page.click("a[aria-label='Edit Sam Okafor']")
    axe(page)
    page.check("input[name=primary]")
    page.click("button:has-text('Save')")
    expect(page.locator(".notice")).to_have_text("Sam Okafor's details were saved.")
    expect(page.locator("tr", has_text="Sam Okafor")).to_contain_text("primary")
    page.click("a[aria-label='Remove Jess Moreno']")
    expect(page.locator("h1")).to_have_text("Remove Jess Moreno?")
    axe(page)
    page.click("text=Keep it")
    page.click("text=Edit details")
    axe(page)
    page.click("text=Cancel")

    async def read() -> tuple[Any, list[Any]]:
        row = await Customer.objects().where(Customer.name == "Northside Roller Derby").first()
        contacts = await Contact.select(Contact.name, Contact.is_primary).where(
            Contact.customer == row.id
        )
        return row, contacts

    customer, contacts = in_database(read)
    assert (customer.payment_terms, customer.default_carrier) == ("net_15", "Royal Mail")
    assert {(c["name"], bool(c["is_primary"])) for c in contacts} == {
        ("Jess Moreno", False), ("Sam Okafor", True),
    }  # fmt: skip
    api = stack.api("GET", f"/api/v1/customers/{customer.id}", shop["token"]).json()
    assert api["name"] == "Northside Roller Derby"
    assert [c["email"] for c in api["contacts"] if c["is_primary"]] == ["sam@northside.example"]


def test_adjust_stock_and_see_the_movement(shop: dict, stack: Stack, page: Page) -> None:
    log_in(page, stack, "olive@inkwell.example")
    page.click("nav >> text=Inventory")
    page.check("input[name=status][value=low]")
    page.click("button:has-text('Filter')")
    expect(page.locator("tbody tr")).to_have_count(2)  # TEE-BLK-L and HOOD-NVY-S
    axe(page)
    shots(page, "inventory")
    page.click("text=HOOD-NVY-S")
    expect(page.locator("#on-hand")).to_have_text("8")
    page.fill("#delta", "-9")
    page.fill("#reason", "damaged")
    page.click("button:has-text('Adjust')")
    expect(page.locator("#delta-error")).to_contain_text("only 8 on hand to take away")
    expect(page.locator("#delta")).to_have_value("-9")
    page.fill("#delta", "24")
    page.fill("#reason", "received from supplier")
    page.click("button:has-text('Adjust')")
    expect(page.locator(".notice")).to_have_text("On hand +24: now 32.")
    expect(page.locator("#on-hand")).to_have_text("32")
    movement = page.locator("tbody tr").first
    expect(movement).to_contain_text("adjustment")
    expect(movement).to_contain_text("+24")
    expect(movement).to_contain_text("Olive Owner")
    expect(movement).to_contain_text("received from supplier")
    axe(page)
    shots(page, "sku")

    async def read() -> tuple[int, list[Any]]:
        sku = await Sku.objects().where(Sku.code == "HOOD-NVY-S").first()
        moves = (
            await StockMovement.select(
                StockMovement.delta_on_hand, StockMovement.reason, StockMovement.user
            )
            .where(StockMovement.sku == sku.id)
            .order_by(StockMovement.id)
        )
        return sku.on_hand, moves

    on_hand, moves = in_database(read)
    assert on_hand == 32 == sum(m["delta_on_hand"] for m in moves)
    assert [(m["delta_on_hand"], m["reason"], m["user"]) for m in moves] == [
        (8, "", None),
        (24, "received from supplier", shop["owner"].id),
    ]
    api = stack.api("GET", "/api/v1/inventory", shop["token"], params={"search": "HOOD"}).json()
    assert api["data"][0]["on_hand"] == 32


def test_mark_an_invoice_paid(shop: dict, stack: Stack, page: Page) -> None:
    number = shop["invoice"].number
    log_in(page, stack, "olive@inkwell.example")
    page.click("nav >> text=Invoices")
    expect(page.locator("#outstanding")).to_contain_text("2 invoices")
    axe(page)
    shots(page, "invoices")
    page.click(f"a[aria-label='Mark paid: {number}']")  # asks first
    expect(page.locator("#mark-paid-confirm")).to_contain_text("payment of the whole balance")
    page.click("#confirm-mark-paid")
    expect(page.locator(".notice")).to_have_text(f"Invoice {number} was marked paid.")
    expect(page.locator(f"#invoice-{number}")).to_contain_text("paid")
    expect(page.locator("#outstanding")).to_contain_text("1 invoice")
    expect(page.locator(f"a[aria-label='Mark paid: {number}']")).to_have_count(0)
    page.reload()
    expect(page.locator(".notice")).to_have_count(0)

    async def read() -> tuple[str, int]:
        row = await Invoice.objects().where(Invoice.number == number).first()
        events = await WebhookEvent.count().where(WebhookEvent.name == "invoice.paid")
        return row.status, events

    assert in_database(read) == ("paid", 1)
    order = stack.api("GET", f"/api/v1/orders/{shop['invoice'].order}", shop["token"]).json()
    assert [i["status"] for i in order["invoices"]] == ["paid"]
    assert re.search(r"paid", page.locator(f"#invoice-{number}").inner_text())


def test_staff_and_tokens_confirm_and_never_repeat(shop: dict, stack: Stack, page: Page) -> None:
    """The last owner has no Deactivate; a member gets a password from the owner and is
    deactivated after a confirmation page; a new token is shown once and a reload makes no
    second one; the owner changes their own password."""
    log_in(page, stack, "olive@inkwell.example")
    page.click("nav >> text=Staff")
    own = page.locator("tr", has_text="Olive Owner")
    expect(own).to_contain_text("the only active owner")
    expect(own.locator("text=Deactivate")).to_have_count(0)
    page.fill("#name", "Sam Staff")
    page.fill("#email", "sam@inkwell.example")
    page.fill("#password", "sam's first password")
    page.click("button:has-text('Add member')")
    expect(page.locator(".notice")).to_contain_text("The member was added: Sam Staff (staff)")
    sam = page.locator("tr", has_text="Sam Staff")
    sam.locator("text=Set password").click()
    page.fill("#password", "sam's second password")
    page.fill("#confirm_password", "sam's second password")
    page.click("button:has-text('Set password')")
    expect(page.locator(".notice")).to_contain_text("Sam Staff's password was set")
    page.locator("tr", has_text="Sam Staff").locator("text=Deactivate").click()
    expect(page.locator("h1")).to_have_text("Deactivate Sam Staff?")
    axe(page)
    page.click("button:has-text('Deactivate Sam Staff')")
    expect(page.locator(".notice")).to_contain_text("Sam Staff was deactivated")
    expect(page.locator("tr", has_text="Sam Staff")).to_contain_text("deactivated")
    axe(page)
    shots(page, "staff")

    page.click("nav >> text=API tokens")
    page.fill("#name", "Label printer")
    page.click("button:has-text('Create token')")
    expect(page).to_have_url(re.compile(r"/admin/tokens/created$"))
    token = page.locator("#new-token").inner_text().strip()
    axe(page)
    page.reload()  # the value is gone, and no second token is made
    expect(page).to_have_url(re.compile(r"/admin/tokens$"))
    assert token not in page.content()
    expect(page.locator("tr", has_text="Label printer")).to_have_count(1)
    axe(page)
    shots(page, "tokens")
    assert stack.api("GET", "/api/v1/me", token).status_code == 200

    page.click("header.top >> text=Olive Owner (owner)")
    page.fill("#current_password", PASSWORD)
    page.fill("#new_password", "olive's new password")
    page.fill("#confirm_password", "olive's new password")
    page.click("button:has-text('Change password')")
    expect(page.locator(".notice")).to_contain_text("Your password was changed")
    axe(page)

    async def read() -> tuple[bool, bool, bool, int]:
        from models import passwords

        rows = {
            r["email"]: r for r in await User.select(User.email, User.is_active, User.password_hash)
        }
        sam_row, olive = rows["sam@inkwell.example"], rows["olive@inkwell.example"]
        tokens = await ApiToken.count().where(ApiToken.name == "Label printer")
        return (
            sam_row["is_active"],
            passwords.verify(sam_row["password_hash"], "sam's second password"),
            passwords.verify(olive["password_hash"], "olive's new password"),
            tokens,
        )

    assert in_database(read) == (False, True, True, 1)
