"""Orders on the shop floor, in Chromium against real processes: an order created with two
lines and moved through every stage to dispatch, the board's next-stage button, a Starter shop
(no API) moving its order. Each checks what the database and the API then show; the pages are
saved for docs/admin.md (1280 px and a phone's width) and checked with axe-core (no serious or
critical violation)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models import clock
from models.tables import Customer, Workspace
from tests import factories
from tests.admin.support import member
from tests.browser.conftest import PHONE, ROOT, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in

WIDE = {"width": 1280, "height": 900}


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    """A premium shop with an owner (password and token), a customer with a primary contact
    and a default carrier, a few SKUs, and some orders to fill the pages."""
    ws: Workspace = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer: Customer = await factories.customer(
        ws, "Hop & Barley Brewing Co.", default_carrier="DPD"
    )
    await factories.contact(customer, name="Tom Fletcher", email="tom@hopandbarley.example",
                            is_primary=True)  # fmt: skip
    school = await factories.customer(ws, "St Aidan's Primary School")
    band = await factories.customer(ws, "The Velvet Tides")
    await factories.sku(ws, "TEE-BLK-M", on_hand=120)
    today = clock.now().replace(hour=0, minute=0, second=0, microsecond=0)
    for customer_of, stage, lines, due_in in (
        (band, "artwork", [("Autumn tour tees", 80, 1150)], 12),
        (school, "print_queue", [("Sports day house tees", 60, 725)], 5),
        (band, "print_queue", [("Tour beanies", 25, 575)], -2),
        (school, "in_production", [("Leavers hoodies", 30, 2450)], 3),
        (school, "qc_pack", [("Staff tees", 6, 900), ("Screen setup", 1, 2500)], 1),
        (band, "dispatched", [("Album launch totes", 50, 475)], -10),
    ):
        order = await factories.order(
            ws, customer_of, stage=stage, lines=lines, due_by=today + dt.timedelta(days=due_in)
        )
        if stage != "artwork":
            await factories.set_artwork(order, status="approved", version=1)
    return {"ws": ws, "owner": owner, "customer": customer,
            "token": await factories.token(owner)}  # fmt: skip


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"orders-{name}.png"), full_page=True)


def move_to(page: Page, stage: str, **dispatch: str) -> None:
    page.select_option("#to_stage", stage)
    for field, value in dispatch.items():
        page.fill(f"#{field}", value)
    page.click("form.move button[type=submit]")


def test_an_order_from_two_lines_to_dispatch_and_its_invoice(
    shop: dict, stack: Stack, page: Page
) -> None:
    log_in(page, stack, "olive@inkwell.example")
    page.click("nav >> text=Orders")
    page.click("text=New order")
    page.select_option("#customer", label="Hop & Barley Brewing Co.")
    page.fill("#due_by", "2030-06-28")
    page.fill("#lines-0-description", "Brewery staff tees, 2-colour front")
    page.fill("#lines-0-sku", "TEE-BLK-M")
    page.fill("#lines-0-quantity", "12")
    page.fill("#lines-0-unit_price", "9.75")
    page.click("#add-line")
    expect(page.locator("fieldset.line")).to_have_count(2)
    page.fill("#lines-1-description", "Screen setup")
    page.fill("#lines-1-quantity", "1")
    page.fill("#lines-1-unit_price", "twenty")  # refused first, what was typed kept
    page.set_viewport_size(WIDE)
    shot(page, "new")
    page.click("button:has-text('Create order')")
    expect(page.locator("#lines-1-unit_price-error")).to_contain_text("e.g. 1250, 1250.50")
    expect(page.locator("#lines-0-description")).to_have_value("Brewery staff tees, 2-colour front")
    page.fill("#lines-1-unit_price", "25")
    page.click("button:has-text('Create order')")
    expect(page.locator(".notice")).to_contain_text("created.")
    number = page.locator("h1").inner_text().split()[1]
    expect(page.locator("#order-total")).to_have_text("170.40 GBP")  # (117 + 25) x 1.2

    for stage in ("print_queue", "in_production", "qc_pack"):
        move_to(page, stage)
        expect(page.locator(".notice")).to_contain_text(f"Order {number} moved to")
    move_to(page, "dispatched", tracking_number="15502 1234 5678")
    expect(page.locator(".notice")).to_contain_text("moved to Dispatched")
    expect(page.locator("#tracking")).to_have_text("15502 1234 5678")
    invoice = page.locator(".invoice")
    expect(invoice).to_contain_text("INV-")
    moves = page.locator("#timeline li[data-kind=stage_move]")  # newest first
    expect(moves).to_have_count(5)
    expect(moves.first).to_contain_text("to Dispatched by Olive Owner")

    # what the API says now
    orders = stack.api("GET", "/api/v1/orders", shop["token"]).json()["data"]
    mine = next(o for o in orders if o["number"] == number)
    detail = stack.api("GET", f"/api/v1/orders/{mine['id']}", shop["token"]).json()
    assert detail["stage"] == "dispatched" and detail["carrier"] == "DPD"
    assert detail["tracking_number"] == "15502 1234 5678"
    assert [h["to"] for h in detail["stage_history"]] == [
        "artwork", "print_queue", "in_production", "qc_pack", "dispatched",
    ]  # fmt: skip
    assert [line["unit_price_cents"] for line in detail["lines"]] == [975, 2500]
    assert detail["invoices"][0]["number"] in invoice.inner_text()
    assert detail["invoices"][0]["total"] == 17040
    stock = stack.api("GET", "/api/v1/inventory", shop["token"]).json()["data"]
    assert next(s for s in stock if s["code"] == "TEE-BLK-M")["on_hand"] == 108

    # the pages as docs/admin.md shows them, wide and on a phone
    shot(page, "order")
    page.set_viewport_size(PHONE)
    shot(page, "order-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the order page is {width}px wide on a phone"
    page.goto(f"{stack.base}/admin/orders")
    shot(page, "list-phone")
    page.set_viewport_size(WIDE)
    page.goto(f"{stack.base}/admin/orders")
    expect(page.locator(f"#order-{mine['id']}")).to_contain_text("Dispatched")
    shot(page, "list")
    page.goto(f"{stack.base}/admin/")
    shot(page, "overview")

    # axe-core on every order page, filled with data, wide and on a phone.
    for path in (f"/admin/orders/{number}", "/admin/orders", "/admin/orders/board",
                 "/admin/orders/new", "/admin/"):  # fmt: skip
        for size in (WIDE, PHONE):
            page.set_viewport_size(size)
            page.goto(stack.base + path)
            axe(page)


def test_the_boards_next_stage_button(shop: dict, stack: Stack, page: Page) -> None:
    log_in(page, stack, "olive@inkwell.example")
    page.click("nav >> text=Board")
    column = page.locator("section[aria-labelledby=column-print_queue]")
    expect(column.locator(".count")).to_have_text("2")
    card = column.locator("article.order-card").first
    number = card.locator("a.number").inner_text()
    page.set_viewport_size(WIDE)
    shot(page, "board")
    card.locator("button", has_text="→").click()  # the next stage (← moves back)
    expect(page.locator(".notice")).to_have_text(f"Order {number} moved to In production.")
    expect(page).to_have_url(re.compile(r"/admin/orders/board$"))
    expect(
        page.locator("section[aria-labelledby=column-print_queue]").locator(".count")
    ).to_have_text("1")
    expect(page.locator(f"#card-{number}")).to_contain_text("QC & pack")  # its next button
    page.set_viewport_size(PHONE)
    shot(page, "board-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the board is {width}px wide on a phone"
    found = stack.api("GET", "/api/v1/orders?stage=in_production", shop["token"]).json()["data"]
    assert number in {o["number"] for o in found}


@pytest.fixture
async def starter(backend: str) -> dict[str, Any]:
    """A Starter shop: no API access, so the admin is the only way to move its orders."""
    ws = await factories.workspace(name="Two Screens", plan="starter")
    owner = await member(ws, role="owner", name="Sam Starter", email="sam@two-screens.example")
    order = await factories.order(ws, await factories.customer(ws, "Corner Café"))
    return {"ws": ws, "order": order, "token": await factories.token(owner)}


def test_a_starter_shop_moves_its_order(starter: dict, stack: Stack, page: Page) -> None:
    number = starter["order"].number
    api = stack.api("POST", f"/api/v1/orders/{starter['order'].id}/advance", starter["token"],
                    json={"to_stage": "print_queue"})  # fmt: skip
    assert api.status_code == 422 and "does not include API access" in api.json()["message"]
    log_in(page, stack, "sam@two-screens.example")
    page.click("nav >> text=Orders")
    page.click(f"text={number}")
    move_to(page, "print_queue")
    expect(page.locator(".notice")).to_have_text(f"Order {number} moved to Print queue.")
    expect(page.locator("h1 .stage")).to_have_text("Print queue")
    expect(page.locator("#timeline li[data-kind=stage_move]").first).to_contain_text(
        "by Sam Starter"
    )
    stage = _stage_in_database(stack, starter["order"].id)
    assert stage == "print_queue"


def _stage_in_database(stack: Stack, order_id: int) -> str:
    """The order's stage as the operators' command line reads it from the database the
    processes use (a process of its own: Playwright's sync API holds this thread's loop)."""
    run = subprocess.run(  # noqa: S603 - our own command
        [sys.executable, "-c", "import sys, cli; sys.exit(cli.main())", "order", "show",
         str(order_id), "--json"],
        env={**os.environ, "DATABASE_URL": stack.url}, cwd=ROOT, capture_output=True, text=True,
        timeout=60, check=True,
    )  # fmt: skip
    return str(json.loads(run.stdout)["stage"])
