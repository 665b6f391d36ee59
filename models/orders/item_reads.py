"""An order's garments as every reader shows them (API detail, order page, work order, the
command line): each item with its imprints and, when stocked, each size's SKU and levels."""

from __future__ import annotations

import msgspec

from models.garments import NewImprint, NewItem
from models.statements import Reader, Select


class ImprintView(msgspec.Struct, frozen=True):
    id: int
    location: str
    method: str
    colours: int | None
    colour_names: list[str]
    stitches: int | None
    width_mm: int | None
    height_mm: int | None
    notes: str
    unit_price_cents: int | None  # None: from the price list (models/pricing)
    setup_cents: int | None
    design: str | None = None


class SizeStock(msgspec.Struct, frozen=True):
    sku: str
    on_hand: int
    reserved: int
    available: int


class ItemView(msgspec.Struct, frozen=True):
    id: int
    position: int
    style: str
    colour: str
    description: str
    sizes: dict[str, int]  # in the order shown (stocked: the SKUs' size order)
    unit_price_cents: int | None  # None: from the price list (models/pricing)
    size_upcharges_cents: dict[str, int]
    imprints: list[ImprintView]
    quantity: int
    stock: dict[str, SizeStock] | None  # None: not stocked


class _ItemRow(msgspec.Struct, array_like=True, frozen=True):
    id: int
    position: int
    style: str
    colour: str
    description: str
    sizes: str | dict[str, int]  # JSON text (drivers hand `json` columns back as text)
    unit_price_cents: int
    unit_price_typed: bool
    size_upcharges_cents: str | dict[str, int]


class _ImprintRow(msgspec.Struct, array_like=True, frozen=True):
    id: int
    item: int
    location: str
    method: str
    colours: int | None
    colour_names: str | list[str]
    stitches: int | None
    width_mm: int | None
    height_mm: int | None
    notes: str
    unit_price_cents: int
    setup_cents: int
    unit_price_typed: bool
    setup_typed: bool
    design: str | None


class _StockRow(msgspec.Struct, array_like=True, frozen=True):
    item: int | None
    code: str
    size: str
    on_hand: int
    reserved: int


ITEMS = Select(
    _ItemRow,
    """
    SELECT id, position, style, colour, description, sizes, unit_price_cents, unit_price_typed,
        size_upcharges_cents
    FROM order_items WHERE workspace = $1 AND "order" = $2 ORDER BY position
    """,
)
IMPRINTS = Select(
    _ImprintRow,
    """
    SELECT id, item, location, method, colours, colour_names, stitches, width_mm, height_mm,
        notes, unit_price_cents, setup_cents, unit_price_typed, setup_typed, design
    FROM order_imprints WHERE workspace = $1 AND "order" = $2 ORDER BY item, position
    """,
)
STOCK = Select(
    _StockRow,
    """
    SELECT l.item, s.code, s.size, s.on_hand, s.reserved
    FROM order_lines l JOIN skus s ON s.id = l.sku
    WHERE l.workspace = $1 AND l."order" = $2
    """,  # the order's few lines by their index (plain lines are skipped in Python: a filter
    # on `item` here made PostgreSQL walk every item line while its statistics were stale)
)

_SIZES = msgspec.json.Decoder(dict[str, int])
_NAMES = msgspec.json.Decoder(list[str])


def _sizes(value: str | dict[str, int]) -> dict[str, int]:
    return value if isinstance(value, dict) else _SIZES.decode(value)


async def levels_of(
    reader: Reader, workspace_id: int, order_id: int
) -> dict[int, dict[str, SizeStock]]:
    """Each stocked item's sizes (casefolded) with their SKU's levels now, by item id."""
    stock: dict[int, dict[str, SizeStock]] = {}
    for level in await reader.all(STOCK, workspace_id, order_id):
        if level.item is None:
            continue
        stock.setdefault(level.item, {})[level.size.casefold()] = SizeStock(
            sku=level.code,
            on_hand=level.on_hand,
            reserved=level.reserved,
            available=level.on_hand - level.reserved,
        )
    return stock


def stock_by_size(
    sizes: dict[str, int], levels: dict[str, SizeStock] | None
) -> dict[str, SizeStock] | None:
    """A stocked item's levels keyed by its sizes as shown (None: not stocked)."""
    if levels is None:
        return None
    return {size: levels[size.casefold()] for size in sizes if size.casefold() in levels}


async def items_of(reader: Reader, workspace_id: int, order_id: int) -> list[ItemView]:
    """The order's items in position order (none for an order of plain lines: one statement)."""
    rows = await reader.all(ITEMS, workspace_id, order_id)
    if not rows:
        return []
    imprints: dict[int, list[ImprintView]] = {row.id: [] for row in rows}
    for imprint in await reader.all(IMPRINTS, workspace_id, order_id):
        names = imprint.colour_names
        imprints[imprint.item].append(
            ImprintView(
                id=imprint.id,
                location=imprint.location,
                method=imprint.method,
                colours=imprint.colours,
                colour_names=names if isinstance(names, list) else _NAMES.decode(names),
                stitches=imprint.stitches,
                width_mm=imprint.width_mm,
                height_mm=imprint.height_mm,
                notes=imprint.notes,
                unit_price_cents=imprint.unit_price_cents if imprint.unit_price_typed else None,
                setup_cents=imprint.setup_cents if imprint.setup_typed else None,
                design=imprint.design,
            )
        )
    stock = await levels_of(reader, workspace_id, order_id)
    views = []
    for row in rows:
        sizes = _sizes(row.sizes)
        levels = stock.get(row.id)
        views.append(
            ItemView(
                id=row.id,
                position=row.position,
                style=row.style,
                colour=row.colour,
                description=row.description,
                sizes=sizes,
                unit_price_cents=row.unit_price_cents if row.unit_price_typed else None,
                size_upcharges_cents=_sizes(row.size_upcharges_cents),
                imprints=imprints[row.id],
                quantity=sum(sizes.values()),
                stock=stock_by_size(sizes, levels),
            )
        )
    return views


def as_new_item(view: ItemView) -> NewItem:
    """A stored garment as an edit would send it back unchanged."""
    return NewItem(
        style=view.style,
        colour=view.colour,
        description=view.description,
        sizes=tuple(view.sizes.items()),
        unit_price_cents=view.unit_price_cents,
        size_upcharges_cents=tuple(view.size_upcharges_cents.items()),
        imprints=tuple(
            NewImprint(
                location=i.location,
                method=i.method,
                colours=i.colours,
                colour_names=tuple(i.colour_names),
                stitches=i.stitches,
                width_mm=i.width_mm,
                height_mm=i.height_mm,
                notes=i.notes,
                unit_price_cents=i.unit_price_cents,
                setup_cents=i.setup_cents,
                design=i.design,
            )
            for i in view.imprints
        ),
    )
