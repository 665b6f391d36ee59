"""Pricing an order's items from the price list: each garment size line's price and each
setup line's, with where every part came from.

A typed price is used as given. What is not typed is computed: the garment from its SKU's
cost and the markup row of the item's quantity; an imprint from its matrix cell (the row of
its design's quantity, the column of its colours, stitches or area); a setup from the setup
rule of its method, once per design. The customer's price-list discount applies to computed
garment and imprint prices (never to setups or typed prices), half up per unit. Every price a
request leaves to the price list that the price list cannot give is one 422 naming what is
missing, keyed by the field that would have carried the price.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal

from models.errors import InvalidFields
from models.garments import Method, NewImprint, NewItem, StockedSize, method_words, size_key
from models.money import round_half_up
from models.pricing.breakdown import (
    ImprintPrice,
    PriceBreakdown,
    PriceSource,
    SetupPrice,
    source_of,
)
from models.pricing.document import COLUMN_UNITS, Matrix, Placement, PricingDocument

TYPED, PRICE_LIST = PriceSource.TYPED, PriceSource.PRICE_LIST


@dataclass(frozen=True)
class PriceContext:
    """What prices an order: the workspace's price list (None: it has none yet, so prices
    are typed and imprints and setups not typed are 0) and the customer's discount."""

    document: PricingDocument | None
    discount_percent: Decimal = Decimal(0)


@dataclass(frozen=True)
class LinePrice:
    unit_price_cents: int
    source: PriceSource
    breakdown: PriceBreakdown


@dataclass(frozen=True)
class SetupLine:
    imprint: NewImprint
    price: LinePrice


@dataclass
class ItemPrices:
    """An item's priced lines: its garment sizes by label, then its setup lines."""

    sizes: dict[str, LinePrice] = field(default_factory=dict)
    setups: list[SetupLine] = field(default_factory=list)


def without_price_list(item: NewItem) -> NewItem:
    """An item as a workspace without a price list prices it: imprints and setups not typed
    cost 0, kept as typed (a price list saved later never re-prices them)."""
    return replace(
        item,
        imprints=tuple(
            replace(
                imprint,
                unit_price_cents=imprint.unit_price_cents or 0,
                setup_cents=imprint.setup_cents or 0,
            )
            for imprint in item.imprints
        ),
    )


def design_key(imprint: NewImprint, item: int, number: int) -> tuple[object, ...]:
    """Imprints of one design, method and location share a price break and a setup; an
    imprint without a design is its item's alone."""
    if imprint.design:
        return (imprint.design.casefold(), imprint.method, imprint.location)
    return (item, number)


def _discounted(cents: int, discount: Decimal) -> int:
    if not discount:
        return cents
    return round_half_up(Decimal(cents) * (100 - discount) / 100)


def _row(minimums: Sequence[int], quantity: int) -> int:
    """The index of the last row whose min_quantity is at most `quantity` (rows start at 1)."""
    index = 0
    for n, minimum in enumerate(minimums):
        if minimum <= quantity:
            index = n
    return index


def _column_value(imprint: NewImprint) -> int | None:
    """What the imprint is priced by: colours, stitches, or area in cm² (None: no size)."""
    if imprint.method == Method.SCREEN:
        return imprint.colours
    if imprint.method == Method.EMBROIDERY:
        return imprint.stitches
    if imprint.width_mm is None or imprint.height_mm is None:
        return None
    return max(1, round_half_up(Decimal(imprint.width_mm * imprint.height_mm) / 100))


def _cell(
    matrix: Matrix, imprint: NewImprint, quantity: int, path: str, errors: dict[str, list[str]]
) -> tuple[int, int, int] | None:
    """(cents, row's min_quantity, column) of the imprint's cell, or None with the error."""
    row = matrix.rows[_row([r.min_quantity for r in matrix.rows], quantity)]
    value = _column_value(imprint)
    if value is None:  # no print size given: the first (smallest) column
        return row.cells[0], row.min_quantity, matrix.columns[0]
    for index, column in enumerate(matrix.columns):
        if value <= column:
            return row.cells[index], row.min_quantity, column
    last = matrix.columns[-1]
    if matrix.method == Method.EMBROIDERY and matrix.per_1000_over_cents is not None:
        thousands = -(-(value - last) // 1000)
        return row.cells[-1] + thousands * matrix.per_1000_over_cents, row.min_quantity, last
    unit = COLUMN_UNITS[imprint.method]
    priced_by: dict[str, str] = {Method.SCREEN: "colours", Method.EMBROIDERY: "stitches"}
    field_name = priced_by.get(imprint.method, "width_mm")
    errors[f"{path}.{field_name}"] = [
        f"The price list's {method_words(imprint.method, in_sentence=True)} matrix goes up to "
        f"{last:,} {unit}; this imprint "
        f"has {value:,}. Type {path}.unit_price_cents, or add a column to the matrix."
    ]
    return None


def _imprint_price(
    imprint: NewImprint,
    placement: Placement,
    quantity: int,
    context: PriceContext,
    path: str,
    errors: dict[str, list[str]],
) -> ImprintPrice | None:
    def priced(
        cents: int, source: PriceSource, row: int | None, column: int | None
    ) -> ImprintPrice:
        return ImprintPrice(
            location=imprint.location,
            method=imprint.method,
            design=imprint.design,
            source=source,
            quantity=quantity,
            matrix_row=row,
            column=column,
            cents=cents,
        )

    if imprint.unit_price_cents is not None:
        return priced(imprint.unit_price_cents, TYPED, None, None)
    document = context.document
    if document is None:  # no price list yet: an imprint not typed costs nothing, as before
        return priced(0, TYPED, None, None)
    matrix = document.matrix(imprint.method, placement)
    if matrix is None:
        where = "an additional location" if placement == Placement.ADDITIONAL else "a location"
        errors[f"{path}.unit_price_cents"] = [
            f"The price list has no {method_words(imprint.method, in_sentence=True)} matrix for "
            f"{where}; type "
            f"{path}.unit_price_cents, or add the matrix in Settings → Pricing."
        ]
        return None
    cell = _cell(matrix, imprint, quantity, path, errors)
    if cell is None:
        return None
    cents, row, column = cell
    return priced(_discounted(cents, context.discount_percent), PRICE_LIST, row, column)


@dataclass(frozen=True)
class _Garment:
    cents: int
    source: PriceSource
    cost_cents: int | None = None
    markup_percent: int | None = None


def _garments(
    item: NewItem,
    stocked: Sequence[StockedSize] | None,
    context: PriceContext,
    path: str,
    errors: dict[str, list[str]],
) -> dict[str, _Garment]:
    """Each ordered size's garment price (a size missing: its error is in `errors`)."""
    sizes = [label for label, quantity in item.sizes if quantity > 0]
    if item.unit_price_cents is not None:
        return {label: _Garment(item.unit_price_cents, TYPED) for label in sizes}
    key = f"{path}.unit_price_cents"
    document = context.document
    if document is None or not document.garment_markups or not stocked:
        if document is None:
            reason = "the workspace has no price list yet"
        elif not document.garment_markups:
            reason = "the price list has no garment markups"
        else:
            reason = f"{item.style} {item.colour} is not stocked, so it has no cost to mark up"
        errors[key] = [f"The {key} field is required: {reason}."]
        return {}
    markups = document.garment_markups
    percent = markups[_row([row.min_quantity for row in markups], item.quantity)].percent
    by_size = {sku.size.casefold(): sku for sku in stocked}
    prices: dict[str, _Garment] = {}
    missing: list[str] = []
    for label in sizes:
        sku = by_size[label.casefold()]  # the ordered sizes passed stock_errors
        if sku.cost_cents is None:
            missing.append(sku.code)
            continue
        marked_up = round_half_up(Decimal(sku.cost_cents) * (100 + percent) / 100)
        prices[label] = _Garment(
            _discounted(marked_up, context.discount_percent), PRICE_LIST, sku.cost_cents, percent
        )
    if missing:
        names = ", ".join(missing)
        has = "has" if len(missing) == 1 else "have"
        errors[key] = [f"SKU {names} {has} no cost; type {key}, or set the cost on the SKU's page."]
    return prices


def _setup_price(
    imprint: NewImprint, quantity: int, context: PriceContext
) -> tuple[int, PriceSource, int | None] | None:
    """(cents, source, the rule's charge) of the imprint's setup, None when there is none
    (typed 0, no rule for its method, or waived at this quantity)."""
    if imprint.setup_cents is not None:
        return (imprint.setup_cents, TYPED, None) if imprint.setup_cents > 0 else None
    if context.document is None:
        return None
    rule = context.document.setups.rule(imprint.method)
    if rule is None:
        return None
    if rule.waive_from_quantity is not None and quantity >= rule.waive_from_quantity:
        return None
    if imprint.method == Method.SCREEN:
        charge = rule.per_colour_cents or 0
        cents = charge * (imprint.colours or 1)
    else:
        charge = rule.per_design_cents or 0
        cents = charge
    return (cents, PRICE_LIST, charge) if cents > 0 else None


def price_items(
    items: Sequence[NewItem],
    stocked: Mapping[int, Sequence[StockedSize]],
    context: PriceContext,
) -> list[ItemPrices]:
    """Every item's size and setup lines priced; `stocked` (item position → its SKUs) has
    passed the stock rules. Raises InvalidFields naming every price that cannot be computed."""
    quantities: dict[tuple[object, ...], int] = {}
    for position, item in enumerate(items):
        for key in {design_key(imprint, position, n) for n, imprint in enumerate(item.imprints)}:
            quantities[key] = quantities.get(key, 0) + item.quantity
    errors: dict[str, list[str]] = {}
    priced: list[ItemPrices] = []
    set_up: set[tuple[object, ...]] = set()  # designs whose computed setup is charged
    discount = context.discount_percent
    for position, item in enumerate(items):
        path = f"items.{position}"
        imprints: list[ImprintPrice] = []
        prices = ItemPrices()
        for number, imprint in enumerate(item.imprints):
            key = design_key(imprint, position, number)
            placement = Placement.FIRST if number == 0 else Placement.ADDITIONAL
            found = _imprint_price(
                imprint,
                placement,
                quantities[key],
                context,
                f"{path}.imprints.{number}",
                errors,
            )
            if found is not None:
                imprints.append(found)
            setup = _setup_price(imprint, quantities[key], context)
            if setup is None or (setup[1] == PRICE_LIST and key in set_up):
                continue
            if setup[1] == PRICE_LIST:
                set_up.add(key)
            cents, source, charge = setup
            prices.setups.append(SetupLine(imprint, _setup_line(imprint, cents, source, charge)))
        garments = _garments(item, stocked.get(position), context, path, errors)
        if errors:
            continue
        table = item.size_upcharges_cents
        if not table and context.document is not None:
            table = tuple(context.document.size_upcharges_cents.items())
        upcharges = {size_key(label): cents for label, cents in table}
        for label, garment in garments.items():
            prices.sizes[label] = size_line_price(
                garment, upcharges.get(size_key(label), 0), imprints, discount
            )
        priced.append(prices)
    if errors:
        raise InvalidFields(errors)
    return priced


def size_line_price(
    garment: _Garment, upcharge: int, imprints: Sequence[ImprintPrice], discount: Decimal
) -> LinePrice:
    """One garment size line's unit price: garment + that size's upcharge + the item's
    imprints, each part as priced."""
    sources = [garment.source, *(imprint.source for imprint in imprints)]
    computed = PRICE_LIST in sources
    return LinePrice(
        unit_price_cents=garment.cents + upcharge + sum(imprint.cents for imprint in imprints),
        source=source_of(*sources),
        breakdown=PriceBreakdown(
            garment=garment.cents,
            garment_source=garment.source,
            cost_cents=garment.cost_cents,
            markup_percent=garment.markup_percent,
            upcharge=upcharge,
            imprints=list(imprints),
            discount_percent=f"{discount:.2f}" if computed and discount else None,
            setup=None,
        ),
    )


def _setup_line(
    imprint: NewImprint, cents: int, source: PriceSource, charge: int | None
) -> LinePrice:
    return LinePrice(
        unit_price_cents=cents,
        source=source,
        breakdown=PriceBreakdown(
            garment=None,
            garment_source=None,
            cost_cents=None,
            markup_percent=None,
            upcharge=None,
            imprints=[],
            discount_percent=None,
            setup=SetupPrice(
                location=imprint.location,
                method=imprint.method,
                design=imprint.design,
                source=source,
                colours=imprint.colours if imprint.method == Method.SCREEN else None,
                rule_cents=charge,
                cents=cents,
            ),
        ),
    )
