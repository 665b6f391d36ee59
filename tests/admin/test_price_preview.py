"""The order forms' running total and the marks of where prices came from: `POST
/admin/prices/preview` answers the lines a save would make (each marked "price list" or
"typed") and the totals, keeping nothing; it waits for sizes and a customer, and says what
stops an order being priced in the words a save would use; the edit form's total is the edit's.
Without script, "Update prices" sends the form back with its running total. The order page
marks each line's price and the garments' prices left to the price list; an imprint's design
and the order's "Prices include tax" are saved from the forms."""

from __future__ import annotations

import html
import re
from typing import Any

import httpx
import pytest
from litestar import Litestar

from models import accounts
from models.tables import Customer, Order, OrderImprint, Sku, StockMovement, Workspace
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of, log_in, member, post_form

PREVIEW = "/admin/prices/preview"
TEE_SIZES = ("S", "M", "L", "XL")


class PricedShop(Shop):
    customer: Customer


@pytest.fixture
async def priced(browser: httpx.AsyncClient) -> PricedShop:
    """A workspace with the starting price list (20 % tax), its owner logged in, a customer,
    and G5000 Black in S-XL at a cost of 2.50 each."""
    ws = await accounts.create_workspace(name="Inkwell Prints", plan="premium", tax_rate="20")
    owner = await member(ws, role="owner")
    assert (await log_in(browser, owner.email)).status_code == 303
    shop = PricedShop(ws, owner, browser)
    shop.customer = await factories.customer(ws, "Hop & Barley")
    for size in TEE_SIZES:
        await factories.sku(
            ws, f"G5000-BLK-{size}", style="G5000", colour="Black", size=size, brand="Gildan",
            on_hand=100, cost_cents=250,
        )  # fmt: skip
    return shop


def tees(n: int = 0, *, each: int = 12, **extra: str) -> dict[str, str]:
    """Tees left to the price list: `each` of S to XL, a 2-colour front, a 1-colour back."""
    p = f"items-{n}-"
    return {
        f"{p}style": "G5000", f"{p}colour": "Black", f"{p}unit_price": "",
        **{f"{p}size-{size}": str(each) for size in TEE_SIZES},
        f"{p}imprints-0-location": "front", f"{p}imprints-0-method": "screen",
        f"{p}imprints-0-colours": "2",
        f"{p}imprints-1-location": "back", f"{p}imprints-1-method": "screen",
        f"{p}imprints-1-colours": "1",
        **extra,
    }  # fmt: skip


def hoodies(n: int = 1, **extra: str) -> dict[str, str]:
    """12 hoodies the workspace does not stock (their garment price typed), embroidered."""
    p = f"items-{n}-"
    return {
        f"{p}style": "Heavy Hoodie", f"{p}colour": "Navy", f"{p}unit_price": "18.50",
        f"{p}size-M": "6", f"{p}size-L": "6",
        f"{p}imprints-0-location": "left_chest", f"{p}imprints-0-method": "embroidery",
        f"{p}imprints-0-stitches": "8000",
        **extra,
    }  # fmt: skip


def form(shop: PricedShop, *parts: dict[str, str], **extra: Any) -> dict[str, Any]:
    """The new-order form's fields for `shop`'s customer (prices before tax unless told)."""
    data: dict[str, Any] = {"customer": str(shop.customer.id), "prices_include_tax": "0"}
    for part in parts:
        data.update(part)
    return {**data, **extra}


async def preview(
    shop: Shop, data: dict[str, Any], *, page: str = "/admin/orders/new", order: str = ""
) -> httpx.Response:
    """The running total as htmx asks for it from the form at `page`."""
    answer = await post_form(
        shop.client, page, PREVIEW + (f"?order={order}" if order else ""), data
    )
    assert answer.status_code == 200, answer.text
    return answer


def words(text: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def cell(text: str, id_: str) -> str:
    found = re.search(rf'id="{id_}"[^>]*>(.*?)</', text, re.DOTALL)
    assert found, id_
    return words(found.group(1))


def preview_lines(text: str) -> list[tuple[str, str, str, str, str]]:
    """(description, quantity, each, line total, mark) of each line the fragment shows."""
    body = re.search(r"<tbody>(.*?)</tbody>", text, re.DOTALL)
    assert body, text
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body.group(1), re.DOTALL):
        first, *cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
        name, mark = re.fullmatch(
            r"(.*?)\s*<span class=\"source [a-z-]+\">(.*)</span>", first.strip(), re.S
        ).groups()  # type: ignore[union-attr]
        rows.append((words(name), *[words(c) for c in cells], mark))
    return rows


async def create(shop: Shop, data: dict[str, Any]) -> httpx.Response:
    return await post_form(shop.client, "/admin/orders/new", "/admin/orders/new", data)


# --- the running total of a new order ----------------------------------------------------------


async def test_the_running_total_prices_a_new_order_as_saving_it_does(priced: PricedShop):
    data = form(priced, tees(), hoodies())
    answer = await preview(priced, data)
    lines = preview_lines(answer.text)
    # 48 tees: cost 2.50 + 80 % (from 24) = 4.50, front 2 colours at 48 = 2.25, back (an
    # additional location, 80 %) 1 colour = 1.40; screens 20.00 a colour; hoodies typed 18.50
    # with 8,000 stitches at 12 = 6.00 from the price list, setup 35.00 a design.
    tee_lines = [line for line in lines if line[0].startswith("Gildan G5000")]
    assert [line[1:] for line in tee_lines] == [
        ("12", "8.15 GBP", "97.80 GBP", "price list")
    ] * 4, lines
    assert [line[1:] for line in lines if line[0].startswith("Setup")] == [
        ("1", "40.00 GBP", "40.00 GBP", "price list"),
        ("1", "20.00 GBP", "20.00 GBP", "price list"),
        ("1", "35.00 GBP", "35.00 GBP", "price list"),
    ], lines
    hoodie_lines = [line for line in lines if "Hoodie" in line[0]]
    assert [line[1:] for line in hoodie_lines] == [
        ("6", "24.50 GBP", "147.00 GBP", "price list")
    ] * 2
    assert cell(answer.text, "preview-subtotal") == "780.20 GBP"
    assert cell(answer.text, "preview-tax") == "156.04 GBP"
    assert cell(answer.text, "preview-total") == "936.24 GBP"
    # the foot's summary comes along, swapped in by its id
    assert 'id="preview-summary" hx-swap-oob="innerHTML"' in answer.text
    assert "Total 936.24 GBP" in words(answer.text)

    saved = await create(priced, data)
    assert saved.status_code == 303, saved.text
    order = await Order.select().where(Order.workspace == priced.ws.id).first()
    assert order is not None
    assert (order["subtotal_cents"], order["tax_cents"], order["total_cents"]) == (
        78020, 15604, 93624
    )  # fmt: skip
    page = await priced.client.get(saved.headers["location"])
    marks = re.findall(r'<span class="source ([a-z-]+)">', page.text)
    assert marks.count("price-list") >= len(lines)


async def test_a_typed_price_is_marked_typed(priced: PricedShop):
    typed = {
        "items-0-unit_price": "5", "items-0-imprints-0-unit_price": "1",
        "items-0-imprints-1-unit_price": "0.50", "items-0-imprints-0-setup": "0",
        "items-0-imprints-1-setup": "10",
        "lines-0-description": "Design fee", "lines-0-quantity": "1", "lines-0-unit_price": "40",
    }  # fmt: skip
    data = form(priced, tees(), typed)
    lines = preview_lines((await preview(priced, data)).text)
    # 5.00 + 1.00 + 0.50 a tee; a setup typed 0 makes no line
    assert [(line[0], line[2], line[4]) for line in lines] == [
        *[(f"Gildan G5000 Black — {size}", "6.50 GBP", "typed") for size in TEE_SIZES],
        ("Setup: back, screen print, 1 colour", "10.00 GBP", "typed"),
        ("Design fee", "40.00 GBP", "typed"),
    ]


async def test_the_running_total_keeps_nothing(priced: PricedShop):
    answer = await preview(priced, form(priced, tees()))
    assert "preview-total" in answer.text
    assert await Order.count().where(Order.workspace == priced.ws.id) == 0
    assert await StockMovement.count() == 0
    reserved = await Sku.select(Sku.reserved).where(Sku.workspace == priced.ws.id)
    assert {row["reserved"] for row in reserved} == {0}
    saved = await create(priced, form(priced, tees()))
    assert saved.headers["location"].endswith("-0001"), "the preview took no number"


async def test_the_running_total_waits_for_a_customer_content_and_sizes(priced: PricedShop):
    nothing = await preview(priced, {"customer": str(priced.customer.id)})
    assert cell(nothing.text, "preview-waiting") == "Add a garment or a line to see prices."
    no_customer = await preview(priced, {**tees(), "customer": ""})
    assert cell(no_customer.text, "preview-waiting") == "Choose a customer to see prices."
    # a garment whose sizes are still empty: no wall of errors
    sizes_empty = form(priced, tees(), {"items-1-style": "Heavy Hoodie", "items-1-size-M": "0"})
    answer = await preview(priced, sizes_empty)
    assert cell(answer.text, "preview-waiting") == "Type sizes to see prices."
    assert "preview-problems" not in answer.text and "preview-total" not in answer.text
    assert 'id="preview-summary" hx-swap-oob="innerHTML">Type sizes to see prices.<' in answer.text


def problems(answer: httpx.Response) -> list[str]:
    assert "preview-total" not in answer.text
    return [words(said) for said in re.findall(r"<li>(.*?)</li>", answer.text, re.DOTALL)]


async def test_what_stops_an_order_being_priced_is_said_in_words(priced: PricedShop):
    # what the form says, first, as a save would (the body is read before it is priced)
    line = {"lines-0-description": "Rush", "lines-0-quantity": "x"}
    answer = await preview(priced, form(priced, tees(), line))
    assert answer.status_code == 200  # htmx swaps only a success in
    assert problems(answer) == [
        "Line 1: the quantity must be a whole number, e.g. 2.",
        "Line 1: the unit price is required.",
    ]
    # then what the price list cannot price, in its words, naming the form's boxes
    data = form(
        priced, tees(**{"items-0-imprints-1-method": "transfer"}),
        hoodies(**{"items-1-unit_price": ""}),
    )  # fmt: skip
    assert problems(await preview(priced, data)) == [
        "Garment 1, imprint 2, price per garment: The price list has no transfer matrix for "
        "an additional location; type a price in “Price per garment”, or add the matrix in "
        "Settings → Pricing.",
        "Garment 2: Price each is required: Heavy Hoodie Navy is not stocked, so it has no "
        "cost to mark up.",
    ]
    saved = await create(priced, data)  # the save says the same, beside the fields
    assert saved.status_code == 422
    assert "type a price in “Price per garment”" in html.unescape(saved.text)


async def test_a_sku_without_a_cost_is_named(priced: PricedShop):
    await Sku.update({Sku.cost_cents: None}).where(Sku.code == "G5000-BLK-M")
    answer = await preview(priced, form(priced, tees()))
    assert words(answer.text).count("G5000-BLK-M") == 1
    assert (
        "SKU G5000-BLK-M has no cost; type a price in “Price each”, or set the cost on the "
        "SKU's page." in html.unescape(answer.text)
    )


async def test_a_workspace_without_a_price_list_needs_typed_garment_prices(shop: Shop):
    customer = await factories.customer(shop.ws, "Hop & Barley")
    data = {"customer": str(customer.id), **hoodies(0, **{"items-0-unit_price": ""})}
    answer = await preview(shop, data)
    assert "the workspace has no price list yet" in words(answer.text)
    typed = await preview(shop, {**data, "items-0-unit_price": "20"})
    # imprints and setups not typed cost nothing there, kept as typed
    assert [line[2:] for line in preview_lines(typed.text)] == [
        ("20.00 GBP", "120.00 GBP", "typed")
    ] * 2


async def test_prices_include_tax_in_the_running_total(priced: PricedShop):
    data = form(priced, hoodies(0, **{"items-0-imprints-0-unit_price": "1.50",
                                     "items-0-imprints-0-setup": "0"}))  # fmt: skip
    net = await preview(priced, data)
    assert cell(net.text, "preview-total") == "288.00 GBP"  # 12 at 20.00, and 20 % on top
    gross = await preview(priced, {**data, "prices_include_tax": ["0", "1"]})
    assert cell(gross.text, "preview-total") == "240.00 GBP"
    assert cell(gross.text, "preview-tax") == "40.00 GBP"
    assert "Tax (included in the prices)" in words(gross.text)


async def test_without_script_update_prices_sends_the_form_back_with_its_total(priced: PricedShop):
    data = form(priced, tees())
    answer = await create(priced, {**data, "action": "prices"})
    assert answer.status_code == 200
    assert cell(answer.text, "preview-total") == "541.44 GBP"
    assert "Total 541.44 GBP" in words(answer.text)
    assert 'value="12"' in answer.text  # what was typed is still there
    assert await Order.count().where(Order.workspace == priced.ws.id) == 0


async def test_the_preview_needs_a_session_and_the_token(priced: PricedShop, app: Litestar):
    refused = await priced.client.post(PREVIEW, data=form(priced, tees()))
    assert refused.status_code == 403  # no CSRF token
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as stranger:
        answer = await stranger.post(
            PREVIEW, data=form(priced, tees()), headers={"HX-Request": "true"}
        )
    assert answer.status_code in (401, 403)
    assert "preview-total" not in answer.text


# --- the edit form ----------------------------------------------------------------------------


async def saved_order(shop: PricedShop, *parts: dict[str, str], **extra: Any) -> str:
    answer = await create(shop, form(shop, *parts, **extra))
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"]).rsplit("/", 1)[1]


async def test_the_edit_forms_running_total_is_what_the_edit_saves(priced: PricedShop):
    number = await saved_order(priced, tees(each=6))  # 24 tees
    page = f"/admin/orders/{number}/edit"
    opened = await priced.client.get(page)
    assert f'hx-post="/admin/prices/preview?order={number}"' in opened.text
    # more tees cross a price break: the running total is the edit's
    more = form(priced, tees(each=18), external_ref="")
    answer = await preview(priced, more, page=page, order=number)
    assert cell(answer.text, "preview-total") == "685.44 GBP"
    saved = await post_form(priced.client, page, page, {**more, "revision": "1"})
    assert saved.status_code == 303, saved.text
    order = await Order.select(Order.total_cents).where(Order.number == number).first()
    assert order is not None and order["total_cents"] == 68544
    # the order's own reference is no refusal of its edit's total
    with_ref = await saved_order(priced, tees(), external_ref="SHOP-9")
    page = f"/admin/orders/{with_ref}/edit"
    again = await preview(priced, form(priced, tees(), external_ref="SHOP-9"), page=page,
                          order=with_ref)  # fmt: skip
    assert "preview-total" in again.text, again.text


async def test_an_order_past_its_content_stages_has_no_running_total(priced: PricedShop):
    number = await saved_order(priced, tees())
    await Order.update({Order.stage: "in_production"}).where(Order.number == number)
    page = await priced.client.get(f"/admin/orders/{number}/edit")
    assert "hx-post" not in page.text.split('id="order-form"')[1]
    assert "Running total" not in page.text


# --- the order page, and the fields saved from the forms -------------------------------------


async def test_the_order_page_marks_where_each_price_came_from(priced: PricedShop):
    number = await saved_order(
        priced, tees(), hoodies(),
        **{"lines-0-description": "Design fee", "lines-0-quantity": "1",
           "lines-0-unit_price": "40"},
    )  # fmt: skip
    page = await priced.client.get(f"/admin/orders/{number}")
    lines = re.search(r'<section aria-labelledby="lines-heading">(.*?)</section>', page.text, re.S)
    assert lines
    unit_prices = [
        words(c) for c in re.findall(r'<td data-label="Unit price" class="num">(.*?)</td>',
                                     lines.group(1), re.S)
    ]  # fmt: skip
    assert unit_prices[:4] == ["8.15 GBP price list"] * 4
    assert unit_prices[-1] == "40.00 GBP typed"
    grids = re.findall(r'<article class="item".*?</article>', page.text, re.S)
    assert "Garment price price list" in words(grids[0])
    assert "18.50 GBP each typed" in words(grids[1])
    assert "per garment price list · setup price list" in words(grids[0])


async def test_design_and_prices_include_tax_are_saved_from_the_forms(priced: PricedShop):
    number = await saved_order(
        priced,
        tees(**{"items-0-imprints-0-design": "crest-2026"}),
        tees(1, each=3, **{"items-1-colour": "Black", "items-1-imprints-0-design": "crest-2026"}),
        prices_include_tax=["0", "1"],  # the box ticked: the hidden 0, then 1
    )
    order = await Order.select().where(Order.number == number).first()
    assert order is not None and order["prices_include_tax"]
    designs = await OrderImprint.select(OrderImprint.design).where(
        OrderImprint.order == order["id"]
    ).order_by(OrderImprint.item).order_by(OrderImprint.position)  # fmt: skip
    assert [row["design"] for row in designs] == ["crest-2026", None, "crest-2026", None]
    page = await priced.client.get(f"/admin/orders/{number}")
    assert "design crest-2026" in words(page.text)
    assert "Tax (included in the prices)" in words(page.text)

    edit = f"/admin/orders/{number}/edit"
    opened = await priced.client.get(edit)
    assert re.search(
        r'id="prices_include_tax" name="prices_include_tax" value="1" checked', opened.text
    )
    assert 'name="items-0-imprints-0-design" value="crest-2026"' in opened.text
    assert 'placeholder="price list"' in opened.text
    # the design cleared, tax no longer included
    changed = form(
        priced, tees(), tees(1, each=3, **{"items-1-imprints-0-design": "crest-2026"}),
        revision="1",
    )  # fmt: skip
    saved = await post_form(priced.client, edit, edit, changed)
    assert saved.status_code == 303, saved.text
    order = await Order.select().where(Order.number == number).first()
    assert order is not None and not order["prices_include_tax"] and order["revision"] == 2


async def test_an_unreadable_prices_include_tax_is_refused_in_words(priced: PricedShop):
    answer = await create(priced, form(priced, tees(), prices_include_tax="yes"))
    assert answer.status_code == 422
    assert re.search(r'id="prices_include_tax-error">Prices include tax could not be read\.<',
                     answer.text), words(answer.text)  # fmt: skip


async def test_the_new_form_ticks_prices_include_tax_as_the_workspace_does(priced: PricedShop):
    opened = await priced.client.get("/admin/orders/new")
    assert 'value="1" checked' not in opened.text
    await Workspace.update({Workspace.prices_include_tax: True}).where(Workspace.id == priced.ws.id)
    opened = await priced.client.get("/admin/orders/new")
    assert re.search(
        r'id="prices_include_tax" name="prices_include_tax" value="1" checked', opened.text
    )
    assert csrf_of(opened)
