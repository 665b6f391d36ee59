"""The board in Chromium against real processes: its cards' garment counts, methods and
readiness marks, a card moved back, one dispatched from the board with its tracking number
(then shown on the order's page), and a refused move's reason on the board; screenshots at
1280 px and a phone's width, and axe-core (no serious or critical violation) on both."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models import clock
from models.tables import Customer, OrderImprint, OrderItem, Workspace
from tests import factories
from tests.admin.support import member
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"board-{name}.png"), full_page=True)


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    """A shop whose board has a card in every open stage, garments with imprints, a SKU
    short of what is reserved and an invoice part paid."""
    ws: Workspace = await factories.workspace(
        name="Inkwell Prints", timezone="Europe/London", require_artwork_approval=True
    )
    await member(ws, name="Olive Owner", email="olive@inkwell.example")
    brewery: Customer = await factories.customer(
        ws, "Hop & Barley Brewing Co.", default_carrier="DPD"
    )
    school = await factories.customer(ws, "St Aidan's Primary School", default_carrier="")
    tight = await factories.sku(ws, "TEE-BLK-M", on_hand=20, reserved=32)
    today = clock.now().replace(hour=0, minute=0, second=0, microsecond=0)
    numbers = {}
    for name, customer, stage, lines, due_in, artwork in (
        ("proof", school, "artwork", [("Sports day tees", 60, 725)], 5, "awaiting_approval"),
        ("unapproved", brewery, "artwork", [("Bar towels", 40, 300)], 9, "awaiting_proof"),
        ("queued", brewery, "print_queue", [("Staff tees M", 32, 900)], 3, "approved"),
        ("running", school, "in_production", [("Leavers hoodies", 30, 2450)], -1, "approved"),
        ("packed", brewery, "qc_pack", [("Caps", 12, 800)], 1, "approved"),
    ):
        order = await factories.order(
            ws, customer, stage=stage, lines=lines, due_by=today + dt.timedelta(days=due_in),
            line_skus=[tight.id] if name == "queued" else None,
        )  # fmt: skip
        await factories.set_artwork(order, status=artwork, version=1)
        numbers[name] = order.number
        if name == "queued":
            item = OrderItem(
                workspace=ws.id, order=order.id, position=0, style="Classic Tee",
                colour="Black", description="Classic Tee, Black", sizes={"M": 32},
                unit_price_cents=900, size_upcharges_cents={},
            )  # fmt: skip
            await item.save()
            for place, method in enumerate(("screen", "embroidery")):
                await OrderImprint(
                    workspace=ws.id, order=order.id, item=item.id, position=place,
                    location="front", method=method,
                ).save()  # fmt: skip
        if name == "running":
            invoice = await factories.invoice(order, total=50000)
            invoice.paid_cents = 20000
            await invoice.save()
    return {"ws": ws, "numbers": numbers}


def test_the_board_moves_back_dispatches_with_tracking_and_shows_a_refusal(
    shop: dict, stack: Stack, page: Page
) -> None:
    numbers = shop["numbers"]
    page.set_viewport_size(DESKTOP)
    log_in(page, stack, "olive@inkwell.example")
    page.click("nav >> text=Board")
    expect(page.locator("#board[data-live-region]")).to_have_count(1)

    queued = page.locator(f"#card-{numbers['queued']}")
    expect(queued).to_contain_text("32 garments")
    expect(queued).to_contain_text("Screen print · Embroidery")
    expect(queued.locator("[data-mark=stock]")).to_have_text(re.compile(r"Shop\s+Stock short 12"))
    expect(page.locator(f"#card-{numbers['proof']} [data-mark=art]")).to_have_text(
        re.compile(r"Customer\s+Art waiting on the customer")
    )
    expect(page.locator(f"#card-{numbers['running']} [data-mark=paid]")).to_have_text(
        re.compile(r"Customer\s+Balance due 300\.00 GBP")
    )
    shot(page, "wide")
    axe(page)

    # a card moves back: print queue → artwork
    queued.get_by_role("button", name=f"Move {numbers['queued']} to Artwork").click()
    expect(page).to_have_url(re.compile(r"/admin/orders/board$"))
    expect(page.locator(".notice")).to_have_text(f"Order {numbers['queued']} moved to Artwork.")
    artwork = page.locator("section[aria-labelledby=column-artwork]")
    expect(artwork.locator(f"#card-{numbers['queued']}")).to_have_count(1)

    # dispatch asks for the carrier (the customer's, filled in) and the tracking number first
    packed = page.locator(f"#card-{numbers['packed']}")
    packed.locator("summary").click()
    carrier = packed.get_by_role("textbox", name="Carrier")
    expect(carrier).to_have_value("DPD")
    packed.get_by_role("textbox", name="Tracking number").fill("15501234567890")
    shot(page, "dispatch-form")
    axe(page)
    packed.get_by_role("button", name=f"Dispatch {numbers['packed']}").click()
    expect(page.locator(".notice")).to_have_text(f"Order {numbers['packed']} moved to Dispatched.")
    expect(page.locator(f"#card-{numbers['packed']}")).to_have_count(0)
    page.goto(f"{stack.base}/admin/orders/{numbers['packed']}")
    expect(page.locator("#tracking")).to_have_text("15501234567890")

    # a refused move: the reason is on the board, announced
    page.goto(f"{stack.base}/admin/orders/board")
    unapproved = page.locator(f"#card-{numbers['unapproved']}")
    unapproved.get_by_role("button", name=f"Move {numbers['unapproved']} to Print queue").click()
    expect(page.locator("#refusal[role=alert]")).to_contain_text(
        f"Order {numbers['unapproved']} cannot leave artwork before its artwork is approved"
    )
    expect(page.locator("#board")).to_have_count(1)
    shot(page, "refused")
    axe(page)

    page.set_viewport_size(PHONE)
    page.goto(f"{stack.base}/admin/orders/board")
    page.locator(f"#card-{numbers['queued']}").scroll_into_view_if_needed()
    shot(page, "phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the board is {width}px wide on a phone"
    axe(page)
