"""Garments on an order as the API takes and shows them (the rules between fields
and the expansion into lines are models/orders/items.py)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from models import garments
from models.field_rules import MULTI_LINE, NOT_BLANK, ONE_LINE
from models.garments import Location, Method, NewImprint, NewItem
from models.orders import items as rules
from models.orders.item_reads import ItemView
from models.structs import Input, Schema

MAX_CENTS_GIVEN = 100_000_000

Cents = Annotated[
    int, msgspec.Meta(ge=0, le=MAX_CENTS_GIVEN, description="Minor units, tax-exclusive")
]
SizeLabel = Annotated[
    str, msgspec.Meta(min_length=1, max_length=garments.MAX_SIZE_LABEL, pattern=NOT_BLANK)
]
TYPED_OR_NULL = "As typed; null: from the price list"
Millimetres = Annotated[int, msgspec.Meta(ge=1, le=garments.MAX_IMPRINT_MM)]


# --- request bodies ------------------------------------------------------------------------


class ImprintCreate(Input):
    location: Location
    method: Method
    colours: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1, le=garments.MAX_COLOURS, description="Ink colours; required for `screen`"
            ),
        ]
        | None
    ) = None
    colour_names: Annotated[
        list[Annotated[str, msgspec.Meta(max_length=garments.MAX_COLOUR_NAME, pattern=ONE_LINE)]],
        msgspec.Meta(max_length=garments.MAX_COLOURS, description='e.g. ["White", "PMS 186 C"]'),
    ] = msgspec.field(default_factory=list)
    stitches: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=garments.MAX_STITCHES,
                description="Stitch count; required for `embroidery`",
            ),
        ]
        | None
    ) = None
    width_mm: Millimetres | None = None
    height_mm: Millimetres | None = None
    notes: Annotated[
        str, msgspec.Meta(max_length=garments.MAX_IMPRINT_NOTES, pattern=MULTI_LINE)
    ] = ""
    unit_price_cents: (
        Annotated[
            int,
            msgspec.Meta(
                ge=0,
                le=MAX_CENTS_GIVEN,
                description="Per garment, added to each size line's price; without it (or "
                "null) the price list's matrix cell",
            ),
        ]
        | None
    ) = None
    setup_cents: (
        Annotated[
            int,
            msgspec.Meta(
                ge=0,
                le=MAX_CENTS_GIVEN,
                description="Once per order: a line in words, e.g. "
                '"Setup: front, screen print, 2 colours", when above 0; without it (or null) '
                "the price list's setup rule",
            ),
        ]
        | None
    ) = None
    design: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=garments.MAX_DESIGN,
                pattern=NOT_BLANK,
                description='e.g. "crest-2026": imprints of one design, method and location '
                "across the order's items share their price break and one setup",
            ),
        ]
        | None
    ) = None

    def new_imprint(self) -> NewImprint:
        return NewImprint(
            location=self.location,
            method=self.method,
            colours=self.colours,
            colour_names=tuple(self.colour_names),
            stitches=self.stitches,
            width_mm=self.width_mm,
            height_mm=self.height_mm,
            notes=self.notes,
            unit_price_cents=self.unit_price_cents,
            setup_cents=self.setup_cents,
            design=self.design,
        )


class ItemCreate(Input):
    style: Annotated[
        str,
        msgspec.Meta(
            max_length=garments.MAX_STYLE,
            pattern=NOT_BLANK,
            description="With `colour`, matched to the workspace's SKUs (case-insensitive)",
        ),
    ]
    colour: Annotated[str, msgspec.Meta(max_length=garments.MAX_COLOUR, pattern=NOT_BLANK)]
    sizes: Annotated[
        dict[SizeLabel, Annotated[int, msgspec.Meta(ge=0, le=garments.MAX_SIZE_QUANTITY)]],
        msgspec.Meta(
            min_length=1,
            max_length=garments.MAX_SIZES,
            description="Size → quantity; at least one above 0. A stocked garment's sizes "
            "must be among its SKUs' sizes",
        ),
    ]
    unit_price_cents: (
        Annotated[
            int,
            msgspec.Meta(
                ge=0,
                le=MAX_CENTS_GIVEN,
                description="Per garment; without it (or null) the SKUs' cost marked up by "
                "the price list",
            ),
        ]
        | None
    ) = None
    description: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=garments.MAX_ITEM_DESCRIPTION,
                pattern=NOT_BLANK,
                description='Default "{brand} {style} {colour}" from the SKUs, else "{style} '
                '{colour}"',
            ),
        ]
        | None
    ) = None
    size_upcharges_cents: Annotated[
        dict[SizeLabel, Cents],
        msgspec.Meta(max_length=garments.MAX_SIZES, description='Size → extra, e.g. {"2XL": 200}'),
    ] = msgspec.field(default_factory=dict)
    imprints: Annotated[list[ImprintCreate], msgspec.Meta(max_length=garments.MAX_IMPRINTS)] = (
        msgspec.field(default_factory=list)
    )

    def rule_errors(self, path: str) -> dict[str, list[str]]:
        """Rules between the item's fields and its imprints' (api/validation.py)."""
        return rules.item_errors(self.new_item(), path)

    def new_item(self) -> NewItem:
        return NewItem(
            style=self.style,
            colour=self.colour,
            description=self.description,
            sizes=tuple(self.sizes.items()),
            unit_price_cents=self.unit_price_cents,
            size_upcharges_cents=tuple(self.size_upcharges_cents.items()),
            imprints=tuple(imprint.new_imprint() for imprint in self.imprints),
        )


ItemList = Annotated[
    list[ItemCreate],
    msgspec.Meta(
        max_length=garments.MAX_ITEMS,
        description="Extension: garments in sizes with imprints, each expanded "
        "into lines (before the plain `lines`)",
    ),
]


# --- response bodies -----------------------------------------------------------------------


class Imprint(Schema):
    id: int
    location: Location
    method: Method
    colours: int | None
    colour_names: list[str]
    stitches: int | None
    width_mm: int | None
    height_mm: int | None
    notes: str
    unit_price_cents: Annotated[
        int | None, msgspec.Meta(description="As typed; null: from the price list")
    ]
    setup_cents: Annotated[
        int | None, msgspec.Meta(description="As typed; null: from the price list")
    ]
    design: str | None = None


class SizeStock(Schema):
    sku: str
    on_hand: int
    reserved: int
    available: Annotated[int, msgspec.Meta(description="on_hand minus reserved; may be negative")]


class Item(Schema):
    id: Annotated[int, msgspec.Meta(description="Lines made from this item carry it as item_id")]
    style: str
    colour: str
    description: str
    sizes: dict[str, int]
    unit_price_cents: Annotated[
        int | None,
        msgspec.Meta(
            description="As typed; null: from the price list (each line's price_breakdown)"
        ),
    ]
    size_upcharges_cents: dict[str, int]
    imprints: list[Imprint]
    quantity: Annotated[int, msgspec.Meta(description="Garments: the sum of `sizes`")]
    stock: Annotated[
        dict[str, SizeStock] | None,
        msgspec.Meta(description="Stocked items only: size → its SKU and levels; else null"),
    ] = None


def item_bodies(items: list[ItemView] | tuple[()]) -> list[Item]:
    return [
        Item(
            id=item.id,
            style=item.style,
            colour=item.colour,
            description=item.description,
            sizes=item.sizes,
            unit_price_cents=item.unit_price_cents,
            size_upcharges_cents=item.size_upcharges_cents,
            imprints=[Imprint(**msgspec.structs.asdict(i)) for i in item.imprints],
            quantity=item.quantity,
            stock=None
            if item.stock is None
            else {
                size: SizeStock(**msgspec.structs.asdict(level))
                for size, level in item.stock.items()
            },
        )
        for item in items
    ]
