"""What the admin's order forms offer and fill in: the garments the workspace
stocks (styles and colours from its SKUs), the size run of each garment picked, in size order
with the stock available, and an order's content as its edit form starts from. Every statement
is scoped to the workspace; each read is a fixed number of statements, whatever the garments.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import msgspec

from models import garments, statements
from models.filters import MAX_ID, cannot_match
from models.orders import items as rules
from models.orders.item_reads import ItemView, items_of
from models.orders.pages import MAX_NUMBER, ORDER_PREFIX
from models.orders.queries import Stage
from models.statements import Reader, Select, Stamp

# Styles and colours offered (a datalist each): enough for any shop's catalogue, bounded so a
# workspace with a huge import does not make every form heavy.
MAX_OFFERED = 500


class Garment(msgspec.Struct, array_like=True, frozen=True):
    """A style in a colour that the workspace has SKUs of."""

    style: str
    colour: str
    brand: str


class Offered(msgspec.Struct, frozen=True):
    """What the style and colour fields suggest."""

    styles: list[Garment]  # one per style (its first colour's brand)
    colours: list[str]


class SizeOption(msgspec.Struct, frozen=True):
    """One size column of a stocked garment: its SKU and what is free to reserve."""

    label: str
    sku: str
    available: int  # on hand - reserved; may be negative


class _SkuRow(msgspec.Struct, array_like=True, frozen=True):
    style: str
    colour: str
    size: str
    code: str
    on_hand: int
    reserved: int


GARMENTS = Select(
    Garment,
    """
    SELECT style, colour, MIN(brand) FROM skus
    WHERE workspace = $1 AND NOT discontinued
    GROUP BY style, colour ORDER BY style, colour LIMIT $2
    """,
)


@functools.lru_cache(maxsize=garments.MAX_ITEMS)
def _sizes(count: int) -> Select[_SkuRow]:
    """Every SKU of `count` styles picked (discontinued ones too: an order may still name their
    sizes, as models/orders/content.py matches them); matched to each garment's colour in
    Python. One placeholder per style: a form has at most MAX_ITEMS garments."""
    styles = ", ".join(f"${n}" for n in range(2, count + 2))
    return Select(
        _SkuRow,
        "SELECT style, colour, size, code, on_hand, reserved FROM skus"  # noqa: S608
        f" WHERE workspace = $1 AND lower(style) IN ({styles}) ORDER BY id",
    )


async def offered(workspace_id: int) -> Offered:
    """The styles (with a brand) and the colours the form's fields suggest."""
    async with statements.connection() as reader:
        garments = await reader.all(GARMENTS, workspace_id, MAX_OFFERED)
    styles = list({garment.style: garment for garment in reversed(garments)}.values())
    styles.reverse()
    colours = sorted({garment.colour for garment in garments}, key=str.casefold)
    return Offered(styles=styles, colours=colours)


async def size_runs(
    workspace_id: int, picked: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], list[SizeOption]]:
    """The size columns of each (style, colour) picked that the workspace stocks, keyed by
    `items.stock_key`, in size order (XS … 5XL first); a garment it does not stock is absent."""
    # PostgreSQL takes no NUL in text: such a style matches nothing, as a search's would not.
    pairs = [(s, c) for s, c in picked if s and c and not cannot_match(s, garments.MAX_STYLE)]
    wanted = {rules.stock_key(style, colour) for style, colour in pairs}
    if not wanted:
        return {}
    styles = sorted({style.lower() for style, _ in pairs})[: garments.MAX_ITEMS]
    async with statements.connection() as reader:
        rows = await reader.all(_sizes(len(styles)), workspace_id, *styles)
    found: dict[tuple[str, str], list[_SkuRow]] = {}
    for row in rows:
        key = rules.stock_key(row.style, row.colour)
        if key in wanted:
            found.setdefault(key, []).append(row)
    runs: dict[tuple[str, str], list[SizeOption]] = {}
    for key, skus in found.items():
        rank = rules.size_rank(sku.size for sku in skus)
        seen: set[str] = set()
        run = []
        for sku in sorted(skus, key=lambda sku: rank[sku.size]):
            if sku.size.casefold() in seen:  # two SKUs of one size: the first is the one sold
                continue
            seen.add(sku.size.casefold())
            run.append(SizeOption(sku.size, sku.code, sku.on_hand - sku.reserved))
        runs[key] = run
    return runs


# --- an order's content, as the edit form starts from it ------------------------------------


class EditedOrder(msgspec.Struct, array_like=True, frozen=True):
    id: int
    number: str
    stage: Stage
    customer_id: int
    customer_name: str
    due_by: Stamp | None
    notes: str
    external_ref: str | None
    revision: int
    currency: str
    prices_include_tax: bool = False  # line prices are gross
    ship_to: str | dict[str, str] | None = None  # its copy (JSON: models/orders/ship_to.py)


class PlainLine(msgspec.Struct, array_like=True, frozen=True):
    description: str
    quantity: int
    unit_price_cents: int
    sku: str | None


class OrderContent(msgspec.Struct, frozen=True):
    order: EditedOrder
    items: list[ItemView]
    lines: list[PlainLine]  # the lines not made from an item, in order


_ORDER = """
    SELECT o.id, o.number, o.stage, c.id, c.name, o.due_by, o.notes, o.external_ref,
        o.revision, o.currency, o.prices_include_tax, o.ship_to
    FROM orders o JOIN customers c ON c.id = o.customer
    WHERE o.workspace = $1 AND {key} = $2
"""
ORDER_BY_ID = Select(EditedOrder, _ORDER.format(key="o.id"))
ORDER_BY_NUMBER = Select(EditedOrder, _ORDER.format(key="o.number"))
PLAIN_LINES = Select(
    PlainLine,
    """
    SELECT l.description, l.quantity, l.unit_price_cents, s.code
    FROM order_lines l LEFT JOIN skus s ON s.id = l.sku
    WHERE l.workspace = $1 AND l."order" = $2 AND l.item IS NULL
    ORDER BY l.position
    """,
)


async def order_content(workspace_id: int, ref: str) -> OrderContent | None:
    """The order named by number (or id) with its items and plain lines, or None."""
    async with statements.connection() as reader:
        order = await _find(reader, workspace_id, ref)
        if order is None:
            return None
        return OrderContent(
            order=order,
            items=await items_of(reader, workspace_id, order.id),
            lines=await reader.all(PLAIN_LINES, workspace_id, order.id),
        )


async def _find(reader: Reader, workspace_id: int, ref: str) -> EditedOrder | None:
    """As the order's page names it (models/orders/pages.py `named`): an id or an ORD- number."""
    text = ref.strip()
    if cannot_match(text, MAX_NUMBER):
        return None
    if text.isascii() and text.isdigit():
        order_id = int(text)
        if not 0 < order_id <= MAX_ID:
            return None
        return await reader.one(ORDER_BY_ID, workspace_id, order_id)
    if text.upper().startswith(ORDER_PREFIX) and len(text) <= MAX_NUMBER:
        return await reader.one(ORDER_BY_NUMBER, workspace_id, text.upper())
    return None
