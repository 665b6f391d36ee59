"""An order's content — its items and lines — checked, expanded and written: one path for the
create and for an edit, run on the write's connection inside its transaction.

Lines made from items come first (item by item), then the plain lines as sent.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import msgspec

from models import statements
from models.errors import InvalidFields
from models.garments import NewItem, StockedSize
from models.orders import items as rules
from models.orders.item_reads import ImprintView, ItemView, SizeStock
from models.orders.lines import NewLine, Totals
from models.pricing import breakdown as price_parts
from models.pricing import compute as pricing
from models.pricing import store as price_list

# A stocked garment's SKUs: every SKU of the workspace with one of the items' styles, matched
# to each item by style and colour in Python (case-insensitively).
_STOCKED = statements.Sql(
    "SELECT id, code, style, colour, size, brand, reserved, cost_cents FROM skus"
    " WHERE workspace = $1 AND lower(style) = ANY($2) ORDER BY id"
)
_LINE_WIDTH = 11  # values per order_lines row below
_ITEM_WIDTH = 10
_IMPRINT_WIDTH = 17
_JSON = msgspec.json.Encoder()


def _values(width: int, count: int) -> str:
    return ", ".join(
        "(" + ", ".join(f"${1 + row * width + n}" for n in range(width)) + ")"
        for row in range(count)
    )


@functools.lru_cache(maxsize=64)
def _lines_insert(count: int) -> statements.Sql:
    return statements.Sql(
        'INSERT INTO order_lines (workspace, "order", position, description, quantity,'  # noqa: S608
        " unit_price_cents, line_total_cents, sku, item, price_source, price_breakdown)"
        f" VALUES {_values(_LINE_WIDTH, count)}"
    )


@functools.lru_cache(maxsize=64)
def _items_insert(count: int) -> statements.Sql:
    return statements.Sql(
        'INSERT INTO order_items (workspace, "order", position, style, colour, description,'  # noqa: S608
        " sizes, unit_price_cents, unit_price_typed, size_upcharges_cents)"
        f" VALUES {_values(_ITEM_WIDTH, count)}"
        " RETURNING id, position"
    )


@functools.lru_cache(maxsize=64)
def _imprints_insert(count: int) -> statements.Sql:
    return statements.Sql(
        'INSERT INTO order_imprints (workspace, "order", item, position, location, method,'  # noqa: S608
        " colours, colour_names, stitches, width_mm, height_mm, notes, unit_price_cents,"
        " setup_cents, unit_price_typed, setup_typed, design)"
        f" VALUES {_values(_IMPRINT_WIDTH, count)}"
        " RETURNING id, item, position"
    )


@dataclass(frozen=True)
class Content:
    """What an order will hold: all its lines (items' first) and the items they came from."""

    lines: list[NewLine]
    items: Sequence[NewItem]
    stocked: dict[int, list[StockedSize]]  # item position → its SKUs (stocked items only)
    sku_ids: dict[str, int]  # code → id, for every line's SKU
    reserved: dict[int, int]  # SKU id → reserved, as read

    def quantities(self) -> Counter[int]:
        """Quantity per SKU id over the SKU lines."""
        totals: Counter[int] = Counter()
        for line in self.lines:
            if line.sku is not None:
                totals[self.sku_ids[line.sku]] += line.quantity
        return totals

    def reservation_errors(self, over: set[int]) -> InvalidFields:
        """The lines whose SKU's `reserved` would overflow, by the field they came from."""
        errors: dict[str, list[str]] = {}
        plain = 0
        for line in self.lines:
            index = plain if line.item is None else line.item
            if line.item is None:
                plain += 1
            if line.sku is None or self.sku_ids[line.sku] not in over:
                continue
            key = f"lines.{index}.sku" if line.item is None else f"items.{index}.sizes"
            errors[key] = [f"The {key} reservation would exceed the SKU's stock limits."]
        return InvalidFields(errors)


async def resolve(
    conn: statements.Reader,
    workspace_id: int,
    customer_id: int,
    *,
    lines: Sequence[NewLine],
    items: Sequence[NewItem],
    plain_skus: Mapping[str, tuple[int, int]],
    kept: Sequence[NewLine] = (),
    previous: Sequence[tuple[str, str]] = (),
) -> Content:
    """Checks the items (rules between fields, stocked sizes), prices what is not typed from
    the price list (models/pricing, with `customer_id`'s discount) and expands them;
    `plain_skus` holds the plain lines' SKUs (code → (id, reserved)), already checked by the
    caller. `kept`: the lines of the order's items as stored, when an edit keeps the items
    (`items` is then empty): they come first, exactly as they were. `previous`: the style and
    colour of each item the order had before an edit that gives its items.

    A description equal to the default of its own style and colour, or of a previous item's,
    is the default (it was echoed back, not typed): it follows the style and colour as they
    are now. A description that differs from them is kept as typed.

    Raises InvalidFields naming every item problem (dot paths: `items.0.sizes.XXL`)."""
    errors: dict[str, list[str]] = {}
    for index, item in enumerate(items):
        errors.update(rules.item_errors(item, f"items.{index}"))
    if not items and not lines and not kept:
        errors["lines"] = ["An order needs at least one line or item."]
    if errors:
        raise InvalidFields(errors)
    items = [rules.trimmed(item) for item in items]
    styles = {item.style for item in items} | {style for style, _ in previous}
    stocked_by_key = await _stocked_with_levels(conn, workspace_id, styles)
    defaults = {
        rules.default_description(
            style, colour, stocked_by_key[0].get(rules.stock_key(style, colour))
        )
        for style, colour in [*previous, *((item.style, item.colour) for item in items)]
    }
    items = [
        replace(item, description=None) if item.description in defaults else item for item in items
    ]
    stocked: dict[int, list[StockedSize]] = {}
    for index, item in enumerate(items):
        skus = stocked_by_key[0].get(rules.stock_key(item.style, item.colour))
        if skus:
            stocked[index] = skus
            errors.update(rules.stock_errors(item, f"items.{index}", skus))
    if errors:
        raise InvalidFields(errors)
    item_lines: list[NewLine] = []
    if items:
        context = await price_list.context(conn, workspace_id, customer_id)
        if context.document is None:
            items = [pricing.without_price_list(item) for item in items]
        prices = pricing.price_items(items, stocked, context)
        item_lines = [
            line
            for index, item in enumerate(items)
            for line in rules.expand(item, index, stocked.get(index), prices[index])
        ]
    sku_ids = {code: sku_id for code, (sku_id, _) in plain_skus.items()}
    reserved = dict(plain_skus.values())
    for skus in stocked.values():
        for sku in skus:
            sku_ids[sku.code] = sku.sku_id
            reserved[sku.sku_id] = stocked_by_key[1][sku.sku_id]
    return Content(
        lines=[*kept, *item_lines, *lines],
        items=items,
        stocked=stocked,
        sku_ids=sku_ids,
        reserved=reserved,
    )


async def _stocked_with_levels(
    conn: statements.Reader, workspace_id: int, styles: set[str]
) -> tuple[dict[tuple[str, str], list[StockedSize]], dict[int, int]]:
    """The SKUs of every style in `styles` (and their `reserved`), by style and colour."""
    if not styles:
        return {}, {}
    lowered = sorted({style.lower() for style in styles})
    found: dict[tuple[str, str], list[StockedSize]] = {}
    reserved: dict[int, int] = {}
    for sku_id, code, style, colour, size, brand, level, cost in await conn.rows(
        _STOCKED, workspace_id, lowered
    ):
        found.setdefault(rules.stock_key(style, colour), []).append(
            StockedSize(sku_id=sku_id, code=code, size=size, brand=brand, cost_cents=cost)
        )
        reserved[sku_id] = level
    return found, reserved


def _sizes_in_order(item: NewItem, skus: Sequence[StockedSize] | None) -> dict[str, int]:
    """The size run as stored and shown: a stocked item's in its SKUs' size order (sizes it
    does not stock, ordered at 0, last), else as sent."""
    if not skus:
        return dict(item.sizes)
    rank = rules.size_rank(sku.size for sku in rules.sized(skus))
    by_size = {sku.size.casefold(): sku.size for sku in skus}
    last = len(rank) + len(item.sizes)

    def key(size: tuple[str, int]) -> int:
        label = by_size.get(size[0].casefold())
        return rank[label] if label is not None else last

    return dict(sorted(item.sizes, key=key))


async def write(
    conn: statements.Reader,
    workspace_id: int,
    order_id: int,
    content: Content,
    totals: Totals,
    *,
    kept_items: dict[int, int] | None = None,
) -> Written:
    """Inserts the items, their imprints and all lines (the order's old ones are gone), or
    only the lines when the items are kept (`kept_items`: position → the stored item's id)."""
    item_ids: dict[int, int] = dict(kept_items or {})
    imprint_ids: dict[tuple[int, int], int] = {}
    if content.items and kept_items is None:
        values: list[Any] = []
        for position, item in enumerate(content.items):
            skus = content.stocked.get(position)
            values += (
                workspace_id, order_id, position, item.style, item.colour,
                rules.description(item, skus), _JSON.encode(_sizes_in_order(item, skus)).decode(),
                item.unit_price_cents or 0, item.unit_price_cents is not None,
                _JSON.encode(dict(item.size_upcharges_cents)).decode(),
            )  # fmt: skip
        for row in await conn.rows(_items_insert(len(content.items)), *values):
            item_ids[int(row[1])] = int(row[0])
        imprint_values: list[Any] = []
        count = 0
        for position, item in enumerate(content.items):
            for number, imprint in enumerate(item.imprints):
                imprint_values += (
                    workspace_id, order_id, item_ids[position], number, imprint.location,
                    imprint.method, imprint.colours,
                    _JSON.encode(list(imprint.colour_names)).decode(), imprint.stitches,
                    imprint.width_mm, imprint.height_mm, imprint.notes,
                    imprint.unit_price_cents or 0, imprint.setup_cents or 0,
                    imprint.unit_price_cents is not None, imprint.setup_cents is not None,
                    imprint.design,
                )  # fmt: skip
                count += 1
        if count:
            positions = {item_id: position for position, item_id in item_ids.items()}
            for imprint_id, item_id, number in await conn.rows(
                _imprints_insert(count), *imprint_values
            ):
                imprint_ids[positions[int(item_id)], int(number)] = int(imprint_id)
    line_values: list[Any] = []
    for position, line in enumerate(content.lines):
        line_values += (
            workspace_id, order_id, position, line.description, line.quantity,
            line.unit_price_cents, totals.line_totals[position],
            content.sku_ids[line.sku] if line.sku is not None else None,
            item_ids[line.item] if line.item is not None else None,
            line.price_source, price_parts.encode(line.breakdown),
        )  # fmt: skip
    await conn.rows(_lines_insert(len(content.lines)), *line_values)
    return Written(item_ids, imprint_ids)


def _size_levels(
    sizes: dict[str, int], skus: list[StockedSize], levels: dict[int, tuple[int, int]]
) -> dict[str, SizeStock]:
    by_size = {sku.size.casefold(): sku for sku in skus}
    shown: dict[str, SizeStock] = {}
    for size, quantity in sizes.items():
        sku = by_size.get(size.casefold())
        if quantity > 0 and sku is not None and sku.sku_id in levels:
            on_hand, reserved = levels[sku.sku_id]
            shown[size] = SizeStock(sku.code, on_hand, reserved, on_hand - reserved)
    return shown


@dataclass(frozen=True)
class Written:
    """The ids a write gave: items by position, imprints by (item position, position)."""

    item_ids: dict[int, int]
    imprint_ids: dict[tuple[int, int], int]


def shown(content: Content, written: Written, levels: dict[int, tuple[int, int]]) -> list[ItemView]:
    """The items just written as `item_reads.items_of` would read them back; `levels` holds
    each reserved SKU's `(on_hand, reserved)` after the reservations (stock.reserve), which
    are every stocked size ordered above 0 (the sizes `items_of` shows levels for)."""
    views = []
    for position, item in enumerate(content.items):
        skus = content.stocked.get(position)
        sizes = _sizes_in_order(item, skus)
        item_id = written.item_ids[position]
        views.append(
            ItemView(
                id=item_id,
                position=position,
                style=item.style,
                colour=item.colour,
                description=rules.description(item, skus),
                sizes=sizes,
                unit_price_cents=item.unit_price_cents,
                size_upcharges_cents=dict(item.size_upcharges_cents),
                imprints=[
                    ImprintView(
                        id=written.imprint_ids[position, number],
                        location=imprint.location,
                        method=imprint.method,
                        colours=imprint.colours,
                        colour_names=list(imprint.colour_names),
                        stitches=imprint.stitches,
                        width_mm=imprint.width_mm,
                        height_mm=imprint.height_mm,
                        notes=imprint.notes,
                        unit_price_cents=imprint.unit_price_cents,
                        setup_cents=imprint.setup_cents,
                        design=imprint.design,
                    )
                    for number, imprint in enumerate(item.imprints)
                ],
                quantity=sum(sizes.values()),
                stock=_size_levels(sizes, skus, levels) if skus else None,
            )
        )
    return views
