"""The work order page over HTTP: what it shows, the QR code's address (read
back by a real decoder from the SVG the page serves), the approved proof, tenancy, and a
fixed number of statements whatever the order's size."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
import zxingcpp
from PIL import Image, ImageDraw

from models.actors import Actor
from models.customers.addresses import NewAddress
from models.garments import NewImprint, NewItem
from models.orders import creating, editing
from models.orders.lines import NewLine
from models.orders.queries import OrderDetailRow
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of, log_in, member, statement_count
from tests.proofs.files import PDF, png
from tests.proofs.support import form_token, last_link

PAGE = "/admin/orders/"
NOTES = "Pack by size.\nDeliver to the back door."


def garments() -> list[NewItem]:
    """Three garments with four imprints between them."""
    return [
        NewItem(
            style="G5000", colour="Black", description="Crew tees",
            sizes=(("S", 6), ("M", 10), ("L", 6), ("XL", 2)), unit_price_cents=450,
            imprints=(
                NewImprint(location="front", method="screen", colours=2,
                           colour_names=("White", "Gold"), width_mm=280, height_mm=300,
                           notes="8 cm below the collar", setup_cents=2500),
                NewImprint(location="back", method="screen", colours=1),
            ),
        ),
        NewItem(
            style="JH001", colour="Navy", description="Staff hoodies",
            sizes=(("M", 4), ("L", 6), ("XL", 2)), unit_price_cents=1800,
            imprints=(NewImprint(location="left_chest", method="embroidery", stitches=8500),),
        ),
        NewItem(
            style="BX001", colour="Stone", description="Caps",
            sizes=(("One size", 50),), unit_price_cents=600,
            imprints=(NewImprint(location="front", method="embroidery", stitches=6000),),
        ),
    ]  # fmt: skip


async def an_order(shop: Shop, **fields: Any) -> OrderDetailRow:
    """An order made by the same function as the API's and the admin's create."""
    customer = await factories.customer(shop.ws, "Hop & Barley Brewing Co.")
    await factories.contact(  # proofs are emailed to the customer's primary contact
        customer, name="Tom Fletcher", email="tom@hopandbarley.example", is_primary=True
    )
    values: dict[str, Any] = {
        "due_by": dt.date(2030, 6, 28), "notes": NOTES, "items": garments(),
        "lines": [NewLine(description="Individual bagging", quantity=74, unit_price_cents=20)],
        **fields,
    }  # fmt: skip
    created = await creating.create(
        workspace_id=shop.ws.id, customer_id=customer.id, actor=Actor.user(shop.owner.id),
        **values,
    )  # fmt: skip
    return created.order


async def edit(shop: Shop, order: OrderDetailRow, notes: str) -> None:
    await editing.edit_order(
        workspace_id=shop.ws.id, order_id=order.id, edit=editing.OrderEdit(notes=notes),
        actor=Actor.user(shop.owner.id),
    )  # fmt: skip


def qr_text(page: str) -> str:
    """The text of the page's QR code: segno's SVG path (a horizontal stroke per run of dark
    modules, its y at the middle of a row) drawn as pixels and read by zxing-cpp."""
    svg = re.search(r'<svg viewBox="0 0 (\d+) (\d+)"[^>]*class="qr".*?</svg>', page, re.S)
    assert svg, "no QR code on the page"
    size = int(svg.group(1))
    path = re.search(r' d="([^"]+)"', svg.group(0))
    assert path
    scale = 8
    image = Image.new("L", (size * scale, size * scale), 255)
    draw = ImageDraw.Draw(image)
    x = y = 0.0
    for command, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:\s(-?[\d.]+))?", path.group(1)):
        if command == "M":
            x, y = float(a), float(b)
        elif command == "m":
            x, y = x + float(a), y + float(b)
        else:  # a run of `a` dark modules on row int(y)
            top = int(y) * scale
            draw.rectangle((x * scale, top, (x + float(a)) * scale - 1, top + scale - 1), fill=0)
            x += float(a)
    found = zxingcpp.read_barcodes(image)
    assert len(found) == 1, "the QR code does not decode"
    return found[0].text


def text_of(page: httpx.Response) -> str:
    """The page's words, one space apart (none before punctuation)."""
    words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.text))
    return re.sub(r" ([,.;:)])", r"\1", words)


async def test_the_work_order_shows_the_order_for_the_floor(shop: Shop) -> None:
    order = await an_order(shop)
    number = order.number
    page = await shop.client.get(f"/admin/orders/{number}/work-order")
    assert page.status_code == 200, page.text
    shown = text_of(page)
    for expected in (
        f"Work order {number}", "Revision 1", "Hop &amp; Barley Brewing Co.", "Due 2030-06-28",
        "Crew tees", "Style G5000", "Colour Black", "24 garments", "Staff hoodies", "Caps",
        "One size", "Front · Screen print", "2 colours (White, Gold)", "280 \u00d7 300 mm",
        "8 cm below the collar", "Back · Screen print", "1 colour",
        "Left chest · Embroidery", "8,500 stitches", "6,000 stitches",
        "Individual bagging", "Other lines", "awaiting proof",
        "Do not print before the artwork is approved.",
    ):  # fmt: skip
        assert expected in shown, expected
    assert "Pack by size.\nDeliver to the back door." in page.text  # kept as typed
    sizes = re.findall(r'<tr class="quantity">(.*?)</tr>', page.text, re.S)
    assert [re.findall(r">(\d+)<", row) for row in sizes] == [
        ["6", "10", "6", "2", "24"], ["4", "6", "2", "12"], ["50", "50"],
    ]  # fmt: skip
    # The lines made from the garments are the grids above, not "other lines" again.
    assert "Crew tees — M" not in shown and "Setup: " not in shown
    # A sheet for the floor: no prices (the order page has them).
    assert not re.search(r"GBP|per garment|\beach\b|Upcharge|setup \d", shown), shown
    # Made for paper: no navigation, no inline script, the admin's headers.
    assert "<nav" not in page.text and 'class="top"' not in page.text
    assert re.findall(r"<script[^>]*>", page.text) == [
        '<script src="/admin/static/print.js" defer>'
    ]
    assert 'id="print-button"' in page.text
    assert page.headers["content-security-policy"].startswith("default-src 'self'")
    assert (await shop.client.get("/admin/static/print.js")).status_code == 200
    css = await shop.client.get("/admin/static/work-order.css")
    assert css.status_code == 200 and "@page" in css.text and "@media print" in css.text
    by_id = await shop.client.get(f"/admin/orders/{order.id}/work-order")
    assert by_id.status_code == 200 and f"Work order {number}" in text_of(by_id)


async def test_the_qr_code_opens_the_order_page_at_the_printed_revision(shop: Shop) -> None:
    order = await an_order(shop)
    number = order.number
    page = await shop.client.get(f"/admin/orders/{number}/work-order")
    url = f"http://testserver/admin/orders/{number}?rev=1"
    assert qr_text(page.text) == url
    assert f'<span class="qr-url" id="wo-qr-url">{url}</span>' in page.text

    await edit(shop, order, "Now boxed.")
    again = await shop.client.get(f"/admin/orders/{number}/work-order")
    assert qr_text(again.text) == f"http://testserver/admin/orders/{number}?rev=2"
    assert "Revision 2" in text_of(again)
    # The decoded address, followed: the order page, telling the old printout is outdated.
    opened = await shop.client.get(url)
    assert opened.status_code == 200 and f"Order {number}" in opened.text
    assert "revision 1 was printed; the order is now at revision 2" in text_of(opened)


@pytest.fixture
async def public_browser(
    app: Any, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    """A second app built with PUBLIC_URL (a path prefix too), on the session's database."""
    monkeypatch.setenv("PUBLIC_URL", "https://shop.example/pressline/")
    from api.app import create_app

    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as c:
        yield c


async def test_the_qr_code_starts_with_public_url_whatever_the_proxy_says(
    shop: Shop, public_browser: httpx.AsyncClient
) -> None:
    order = await an_order(shop)
    assert (await log_in(public_browser, shop.owner.email)).status_code == 303
    page = await public_browser.get(
        f"/admin/orders/{order.number}/work-order",
        headers={"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http"},
    )
    assert page.status_code == 200, page.text
    expected = f"https://shop.example/pressline/admin/orders/{order.number}?rev=1"
    assert qr_text(page.text) == expected


async def _upload(shop: Shop, number: str, content: bytes, name: str) -> None:
    artwork = await shop.client.get(f"/admin/orders/{number}/artwork")
    sent = await shop.client.post(
        f"/admin/orders/{number}/proofs",
        data={"_csrf_token": csrf_of(artwork)},
        files={"file": (name, content, "application/octet-stream")},
    )
    assert sent.status_code == 303, sent.text


async def _approve_as_customer(app: Any) -> None:
    """The customer follows the newest proof email's link and approves."""
    link = await last_link()
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as customer:
        page = await customer.get(link)
        done = await customer.post(
            f"{link}/approve", data={"_csrf": form_token(page), "name": "Tom Fletcher"}
        )
        assert done.status_code == 303, done.text


async def test_the_approved_image_proof_is_shown_and_a_pdf_one_named(shop: Shop, app) -> None:
    order = await an_order(shop)
    number = order.number
    image = png()
    await _upload(shop, number, image, "front.png")
    waiting = await shop.client.get(f"/admin/orders/{number}/work-order")
    assert "awaiting approval" in text_of(waiting) and "<img" not in waiting.text
    await _approve_as_customer(app)

    page = await shop.client.get(f"/admin/orders/{number}/work-order")
    shown = text_of(page)
    assert "Artwork is approved, version 1, approved" in shown
    assert "Do not print before" not in shown
    src = re.search(r'<img class="proof" id="wo-proof" src="([^"]+)" alt="([^"]+)"', page.text)
    assert src and src.group(1) == f"/admin/orders/{number}/proofs/1/file"
    assert "Approved proof, version 1" in src.group(2)
    served = await shop.client.get(src.group(1))
    assert served.status_code == 200 and served.content == image

    await _upload(shop, number, PDF, "sheet.pdf")  # version 2, waiting again
    assert "<img" not in (await shop.client.get(f"/admin/orders/{number}/work-order")).text
    await _approve_as_customer(app)
    pdf = await shop.client.get(f"/admin/orders/{number}/work-order")
    assert "<img" not in pdf.text
    assert "Approved proof: sheet.pdf (PDF, version 2)" in text_of(pdf)


async def test_an_order_of_plain_lines_prints_its_lines(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, "Corner Café")
    plain = await factories.order(shop.ws, customer, lines=[("Tote bags, 1 colour", 50, 300)])
    page = await shop.client.get(f"/admin/orders/{plain.number}/work-order")
    assert page.status_code == 200, page.text
    shown = text_of(page)
    assert "Tote bags, 1 colour" in shown and "Garments" not in shown
    assert "Other lines" not in shown and "Lines" in shown
    assert "Due —" in shown and "None." in shown  # no due date, no notes


async def test_another_workspaces_order_and_unknown_numbers_are_the_404_page(
    shop: Shop, app: Any
) -> None:
    other_ws = await factories.workspace()
    theirs = await factories.order(other_ws, await factories.customer(other_ws))
    mine = await factories.order(shop.ws, await factories.customer(shop.ws))
    for ref in (theirs.number, str(theirs.id), "ORD-2099-9999", "nonsense", "0", "9" * 30):
        page = await shop.client.get(f"/admin/orders/{ref}/work-order")
        assert page.status_code == 404, ref
        assert "There is no such page in this workspace." in page.text, ref
        assert theirs.number not in page.text
    staff = await member(shop.ws, role="staff")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
        # Logged out: the login page, which comes back here.
        away = await other.get(f"/admin/orders/{mine.number}/work-order")
        assert away.status_code == 303
        assert away.headers["location"] == (
            f"/admin/login?next=/admin/orders/{mine.number}/work-order"
        )
        # A staff member (not only owners) prints it.
        assert (await log_in(other, staff.email)).status_code == 303
        page = await other.get(f"/admin/orders/{mine.number}/work-order")
        assert page.status_code == 200, page.text


async def test_the_page_costs_the_same_statements_for_one_garment_or_twenty(
    shop: Shop, statements
) -> None:
    small = await an_order(shop, items=garments()[:1], lines=[], notes="")
    one = await statement_count(shop.client, statements, f"{PAGE}{small.number}/work-order")
    many_items = [
        replace(garments()[n % 3], style=f"S{n}", description=f"Garment {n}") for n in range(20)
    ]
    big = await an_order(shop, items=many_items)
    for n in range(3):  # history and edits make no difference either
        await edit(shop, big, f"Edit {n}")
    twenty = await statement_count(shop.client, statements, f"{PAGE}{big.number}/work-order")
    assert twenty == one
    assert one <= 12, statements


async def test_the_ship_to_is_on_the_order_page_and_the_work_order(shop: Shop) -> None:
    ship_to = NewAddress(
        name="Goods In", company="Hop & Barley Ltd", line1="Unit 4, Riverside Estate",
        city="Leeds", postal_code="LS11 5QT", country="GB",
    )  # fmt: skip
    order = await an_order(shop, ship_to=ship_to)

    for path in (f"/admin/orders/{order.number}", f"/admin/orders/{order.number}/work-order"):
        page = await shop.client.get(path)
        assert page.status_code == 200, path
        shown = text_of(page)
        for part in ("Ship to", "Goods In", "Unit 4, Riverside Estate", "Leeds LS11 5QT", "GB"):
            assert part in shown, (path, part)
    plain = await an_order(shop)
    assert "Ship to" not in text_of(await shop.client.get(f"/admin/orders/{plain.number}"))
