"""The order page's garments over HTTP: each item a size grid in the SKUs' size
order with its quantities, a stocked size's levels and "short N", its imprints in people's
words; plain lines listed as before; the Edit link only while the content may change; the
outdated work-order banner for an older `rev` only."""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser

from models.actors import Actor
from models.garments import NewImprint, NewItem
from models.orders import creating, editing
from models.orders.lines import NewLine
from models.tables import Order
from tests import factories
from tests.admin.conftest import Shop

OUTDATED = (
    "This work order is out of date: revision {printed} was printed; the order is now at "
    "revision {now}. Reprint it."
)
TEE = NewItem(
    style="G5000",
    colour="Black",
    sizes=(("2XL", 2), ("S", 4), ("M", 10)),  # not in the run's order
    unit_price_cents=850,
    size_upcharges_cents=(("2XL", 200),),
    imprints=(
        NewImprint(
            location="front", method="screen", colours=2, colour_names=("White", "Gold"),
            width_mm=280, height_mm=300, unit_price_cents=120, setup_cents=2500,
        ),
        NewImprint(location="back", method="dtg", height_mm=60, notes="Neck tag: size only"),
    ),
)  # fmt: skip
HOODIE = NewItem(
    style="Heavy Hoodie",
    colour="Navy",
    sizes=(("XL", 7), ("M", 5)),
    unit_price_cents=2200,
    imprints=(
        NewImprint(
            location="left_chest", method="embroidery", stitches=8000, width_mm=90,
            colour_names=("Gold",), notes="Logo v2, no outline",
        ),
    ),
)  # fmt: skip


class Garments(HTMLParser):
    """Each garment on a page (`article.item`, by id): its size grid as rows of cell texts, the
    texts of its cells marked short, and all its text."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.grids: dict[str, list[list[str]]] = {}
        self.short: dict[str, list[str]] = {}
        self.text: dict[str, str] = {}
        self._item: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._cell_short = False
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        classes = (found.get("class") or "").split()
        if tag == "article" and "item" in classes:
            self._item = found["id"] or ""
            self.grids[self._item], self.short[self._item], self.text[self._item] = [], [], ""
        elif self._item and tag == "tr":
            self._row = []
        elif self._row is not None and tag in ("th", "td"):
            self._cell, self._cell_short = [], "short" in classes

    def handle_data(self, data: str) -> None:
        if self._item:
            self.text[self._item] += data
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td") and self._cell is not None and self._row is not None and self._item:
            cell = " ".join("".join(self._cell).split())
            self._row.append(cell)
            if self._cell_short:
                self.short[self._item].append(cell)
            self._cell = None
        elif tag == "tr" and self._row is not None and self._item:
            self.grids[self._item].append(self._row)
            self._row = None
        elif tag == "article":
            self._item = None


def words(html: str) -> str:
    """The page's text as read: tags dropped, spaces collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


async def stocked_tees(shop: Shop, *, medium_on_hand: int = 6) -> None:
    """Gildan G5000 Black in S, M, L and 2XL (created out of order)."""
    for size, on_hand in (("2XL", 30), ("M", medium_on_hand), ("S", 20), ("L", 15)):
        await factories.sku(
            shop.ws, f"G5000-BLK-{size}", style="G5000", colour="Black", size=size,
            brand="Gildan", on_hand=on_hand,
        )  # fmt: skip


async def order_of(shop: Shop, *items: NewItem, lines: tuple[NewLine, ...] = ()) -> Order:
    customer = await factories.customer(shop.ws, "Hop & Barley Brewing Co.")
    created = await creating.create(
        workspace_id=shop.ws.id, customer_id=customer.id, items=items, lines=lines,
        actor=Actor.user(shop.owner.id),
    )  # fmt: skip
    return created.order


async def open_page(shop: Shop, number: str, query: str = "") -> str:
    answer = await shop.client.get(f"/admin/orders/{number}{query}")
    assert answer.status_code == 200, answer.text
    return answer.text


async def test_each_garment_is_a_size_grid_with_its_stock_and_imprints(shop: Shop) -> None:
    await stocked_tees(shop)
    order = await order_of(shop, TEE, HOODIE, lines=(NewLine("Rush fee", 1, 1500),))
    page = await open_page(shop, order.number)
    garments = Garments(page)
    assert list(garments.grids) == ["item-0", "item-1"]

    # the tee: the SKUs' size order, quantities, upcharges, each size's levels; M is short by 4
    # (6 on hand, the order's 10 reserved)
    assert garments.grids["item-0"] == [
        ["Size", "S", "M", "2XL", "Total"],
        ["Quantity", "4", "10", "2", "16"],
        ["Upcharge (GBP)", "", "", "+2.00", ""],
        ["On hand", "20", "6", "30", ""],
        ["Reserved", "4", "10", "2", ""],
        ["Available", "16", "short 4", "28", ""],
    ]
    assert garments.short["item-0"] == ["short 4"]
    tee = " ".join(garments.text["item-0"].split())
    assert "Gildan G5000 Black" in tee  # the description made from the SKUs
    assert "Style G5000" in tee and "Colour Black" in tee
    assert "16 garments" in tee and "8.50 GBP each" in tee
    assert (
        "Front · Screen print — 2 colours (White, Gold) · 280 \u00d7 300 mm · 1.20 GBP per garment"
        " typed · setup 25.00 GBP typed" in tee  # typed by hand, and marked so
    )
    assert "8.50 GBP each typed" in tee
    assert "Back · DTG — 60 mm high" in tee and "Neck tag: size only" in tee

    # the hoodie is not stocked: sizes as sent, quantities only
    assert garments.grids["item-1"] == [["Size", "XL", "M", "Total"], ["Quantity", "7", "5", "12"]]
    assert garments.short["item-1"] == []
    hoodie = " ".join(garments.text["item-1"].split())
    assert "not stocked" in hoodie and "22.00 GBP each" in hoodie
    assert "Left chest · Embroidery — Gold · 8,000 stitches · 90 mm wide" in hoodie
    assert "Logo v2, no outline" in hoodie
    assert "<strong>Left chest · Embroidery</strong>" in page and "left_chest" not in page

    # the plain line is listed with the lines, as before
    assert re.search(r'<td data-label="Description">Rush fee</td>', page)


async def test_a_size_with_enough_stock_is_not_short(shop: Shop) -> None:
    await stocked_tees(shop, medium_on_hand=10)
    order = await order_of(shop, TEE)
    garments = Garments(await open_page(shop, order.number))
    assert garments.grids["item-0"][-1] == ["Available", "16", "0", "28", ""]
    assert garments.short["item-0"] == []


async def test_an_order_of_plain_lines_shows_no_garments(shop: Shop) -> None:
    order = await order_of(shop, lines=(NewLine("Front print", 10, 450),))
    page = await open_page(shop, order.number)
    assert Garments(page).grids == {} and "Garments" not in page
    assert '<td data-label="Description">Front print</td>' in page


async def test_the_banner_shows_only_for_an_older_revision(shop: Shop) -> None:
    order = await order_of(shop, HOODIE)
    for query in ("", "?rev=1", "?rev=2", "?rev=0", "?rev=-1", "?rev=abc", "?rev=1.5",
                  "?rev=99999999999999999999999", "?rev="):  # fmt: skip
        page = await open_page(shop, order.number, query)
        assert "out of date" not in page, query

    grown = dataclasses.replace(HOODIE, sizes=(("XL", 9), ("M", 5)))
    await editing.edit_order(
        workspace_id=shop.ws.id, order_id=order.id, edit=editing.OrderEdit(items=[grown]),
        actor=Actor.user(shop.owner.id),
    )  # fmt: skip
    assert (await Order.select(Order.revision).where(Order.id == order.id).first()) == {
        "revision": 2
    }
    outdated = await open_page(shop, order.number, "?rev=1")
    assert OUTDATED.format(printed=1, now=2) in words(outdated)
    assert f'href="/admin/orders/{order.number}/work-order"' in outdated
    assert Garments(outdated).grids["item-0"][1] == ["Quantity", "9", "5", "14"]
    for query in ("", "?rev=2", "?rev=3", "?rev=abc", "?rev=-1"):
        assert "out of date" not in await open_page(shop, order.number, query), query


async def test_edit_only_while_the_content_may_change_and_the_work_order_always(
    shop: Shop,
) -> None:
    customer = await factories.customer(shop.ws)
    for stage, editable in (
        ("artwork", True), ("print_queue", True), ("in_production", False),
        ("qc_pack", False), ("dispatched", False), ("cancelled", False),
    ):  # fmt: skip
        order = await factories.order(shop.ws, customer, stage=stage)
        page = await open_page(shop, order.number)
        edit = f'href="/admin/orders/{order.number}/edit"'
        assert (edit in page) is editable, stage
        assert f'href="/admin/orders/{order.number}/work-order"' in page, stage
