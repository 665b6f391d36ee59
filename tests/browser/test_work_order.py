"""The work order in Chromium against real processes: an order of 3 garments and
4 imprints with an approved image proof prints on ONE page of A4 and of Letter; its QR code,
read back from the rendered page by zxing-cpp, opens the order page at the printed revision,
and after an edit that page says the printout is out of date. Screenshots of the screen and
of the print layout go to the screenshots folder; axe-core finds no serious or critical issue."""

from __future__ import annotations

import datetime as dt
import io
import re
from typing import Any

import pytest
import zxingcpp
from PIL import Image
from playwright.sync_api import Page, expect

from models import artwork, proofs
from models.actors import Actor
from models.garments import NewImprint, NewItem
from models.orders import creating
from models.orders.lines import NewLine
from tests import factories
from tests.admin.support import member
from tests.browser.conftest import PHONE, SCREENSHOTS, Stack, axe
from tests.browser.test_admin import log_in
from tests.proofs.files import png

# Chromium's PDF writes each page as an object of type /Page (the tree above is /Pages).
PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
# The printable box of A4 and Letter inside the sheet's 12 mm margins, in CSS pixels (96 to the
# inch), for the shots of the print layout.
PAPER = {"A4": {"width": 703, "height": 1032}, "Letter": {"width": 725, "height": 965}}


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    """A shop whose order has 3 garments with 4 imprints (tees and hoodies stocked, so their
    grids carry four rows of stock; 2XL tees short), a plain line, notes, and an image proof
    the customer approved."""
    ws = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Hop & Barley Brewing Co.")
    await factories.contact(customer, name="Tom Fletcher", email="tom@hopandbarley.example",
                            is_primary=True)  # fmt: skip
    for style, colour, sizes in (("G5000", "Black", "S M L XL 2XL"), ("JH001", "Navy", "S M L XL")):
        for size in sizes.split():
            await factories.sku(
                ws,
                f"{style}-{colour[:3].upper()}-{size}",
                style=style,
                colour=colour,
                size=size,
                on_hand=2 if size == "2XL" else 80,
            )
    items = [
        NewItem(
            style="G5000", colour="Black", description="Gildan Heavy Cotton tee, black",
            sizes=(("S", 12), ("M", 30), ("L", 30), ("XL", 14), ("2XL", 6)),
            unit_price_cents=450,
            imprints=(
                NewImprint(location="front", method="screen", colours=2,
                           colour_names=("White", "Hop gold"), width_mm=280, height_mm=300,
                           notes="Centre 8 cm below the collar seam.", setup_cents=2500),
                NewImprint(location="back", method="screen", colours=1, colour_names=("White",),
                           width_mm=300, height_mm=120, notes="Tour dates, 5 cm below the collar."),
            ),
        ),
        NewItem(
            style="JH001", colour="Navy", description="AWDis college hoodie, navy",
            sizes=(("S", 2), ("M", 6), ("L", 6), ("XL", 4)), unit_price_cents=1800,
            imprints=(NewImprint(location="left_chest", method="embroidery", stitches=8500,
                                 width_mm=90, height_mm=60, notes="Thread: Madeira 1801 gold."),),
        ),
        NewItem(
            style="BX001", colour="Stone", description="Beechfield cap, stone",
            sizes=(("One size", 50),), unit_price_cents=600,
            imprints=(NewImprint(location="front", method="embroidery", stitches=6000,
                                 width_mm=60, height_mm=45),),
        ),
    ]  # fmt: skip
    created = await creating.create(
        workspace_id=ws.id, customer_id=customer.id, items=items,
        lines=[NewLine(description="Individual bagging and size stickers", quantity=160,
                       unit_price_cents=20)],
        due_by=dt.date(2030, 6, 28), actor=Actor.user(owner.id),
        notes="Pack by size, 10 to a bag.\nDeliver to the brewery's back door (Unit 4).",
    )  # fmt: skip
    order = created.order
    proof = proofs.check_file("front-and-back.png", png(720, 480), "Front and back")
    await artwork.send_proof(workspace_id=ws.id, order_id=order.id, file=proof, user_id=owner.id)
    await artwork.approve_artwork(workspace_id=ws.id, order_id=order.id, approved_by="Tom Fletcher")
    return {"number": order.number, "id": order.id, "token": await factories.token(owner)}


def pages_in(pdf: bytes) -> int:
    assert pdf.startswith(b"%PDF-")
    return len(PAGE_OBJECT.findall(pdf))


def read_qr(page: Page) -> str:
    """The QR code as the page shows it (a screenshot of the element), read by zxing-cpp."""
    shot = page.locator("#wo-qr svg").screenshot()
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(shot)))
    assert len(found) == 1, "the QR code on the page does not decode"
    return found[0].text


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"work-order-{name}.png"), full_page=True)


def test_the_work_order_prints_on_one_page_and_its_qr_code_opens_the_order(
    shop: dict, stack: Stack, page: Page
) -> None:
    number = shop["number"]
    log_in(page, stack, "olive@inkwell.example")
    page.goto(f"{stack.base}/admin/orders/{number}")
    page.click("#work-order")
    expect(page).to_have_url(f"{stack.base}/admin/orders/{number}/work-order")
    expect(page.locator("#print-button")).to_be_visible()  # print.js ran under the CSP
    expect(page.locator("#wo-revision")).to_have_text("1")
    expect(page.locator("article.item")).to_have_count(3)
    expect(page.locator("li.imprint")).to_have_count(4)
    proof = page.locator("#wo-proof")
    expect(proof).to_be_visible()
    assert proof.evaluate("image => image.naturalWidth") == 720  # the file loaded
    axe(page)
    shot(page, "screen")

    # On paper: one page of A4 and one of Letter, with nothing of the screen's toolbar.
    for paper in ("A4", "Letter"):
        pdf = page.pdf(format=paper, print_background=True)
        (SCREENSHOTS / f"work-order-{paper}.pdf").write_bytes(pdf)
        assert pages_in(pdf) == 1, f"the work order takes {pages_in(pdf)} pages of {paper}"
    page.emulate_media(media="print")
    expect(page.locator("#print-button")).to_be_hidden()
    for paper, size in PAPER.items():
        page.set_viewport_size(size)
        shot(page, f"print-{paper}")
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height <= size["height"], f"{height}px of content on {paper}"
    page.emulate_media(media="screen")
    page.set_viewport_size(PHONE)
    shot(page, "phone")
    axe(page)

    # The QR code, read from the page as shown, opens the order page at revision 1.
    page.set_viewport_size({"width": 1280, "height": 900})
    scanned = read_qr(page)
    assert scanned == f"{stack.base}/admin/orders/{number}?rev=1"
    page.goto(scanned)
    expect(page.locator("h1")).to_contain_text(f"Order {number}")
    expect(page.locator("#outdated")).to_have_count(0)

    # The order changes: the printout is outdated, the new work order is at revision 2.
    edited = stack.api(
        "PATCH", f"/api/v1/orders/{shop['id']}", shop["token"], json={"notes": "Boxed, not bagged."}
    )
    assert edited.status_code == 200, edited.text
    page.goto(scanned)
    expect(page.locator("#outdated")).to_contain_text(
        "revision 1 was printed; the order is now at revision 2"
    )
    page.goto(f"{stack.base}/admin/orders/{number}/work-order")
    expect(page.locator("#wo-revision")).to_have_text("2")
    expect(page.locator("#wo-notes")).to_have_text("Boxed, not bagged.")
    assert read_qr(page) == f"{stack.base}/admin/orders/{number}?rev=2"
