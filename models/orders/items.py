"""Garments on an order: a style in a colour, a run of sizes, imprints; the rules
between their fields, and their expansion into the order's ordinary lines.

Lines made here are what totals, tax, stock, invoices and every reader already understand; the
item itself is kept beside them so it can be shown and edited as a garment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from models.orders.lines import NewLine

MAX_ITEMS = 50
MAX_SIZES = 30
MAX_SIZE_LABEL = 20
MAX_SIZE_QUANTITY = 10_000
MAX_IMPRINTS = 10
MAX_STYLE = 100
MAX_COLOUR = 50
MAX_ITEM_DESCRIPTION = 200
MAX_COLOURS = 12
MAX_COLOUR_NAME = 50
MAX_STITCHES = 200_000
MAX_IMPRINT_MM = 2_000
MAX_IMPRINT_NOTES = 500
# The standard run: offered when a garment is not stocked, and the order stocked sizes are
# listed in (other labels follow, in the order the SKUs or the request give them).
STANDARD_SIZES = ("XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL", "5XL")


class Location(StrEnum):
    FRONT = "front"
    BACK = "back"
    LEFT_CHEST = "left_chest"
    RIGHT_CHEST = "right_chest"
    LEFT_SLEEVE = "left_sleeve"
    RIGHT_SLEEVE = "right_sleeve"
    NECK = "neck"
    POCKET = "pocket"
    OTHER = "other"


class Method(StrEnum):
    SCREEN = "screen"
    EMBROIDERY = "embroidery"
    DTG = "dtg"
    TRANSFER = "transfer"
    VINYL = "vinyl"


# How people read them (the admin's forms and pages, the work order, the command line).
LOCATION_LABELS: dict[str, str] = {
    Location.FRONT: "Front",
    Location.BACK: "Back",
    Location.LEFT_CHEST: "Left chest",
    Location.RIGHT_CHEST: "Right chest",
    Location.LEFT_SLEEVE: "Left sleeve",
    Location.RIGHT_SLEEVE: "Right sleeve",
    Location.NECK: "Neck",
    Location.POCKET: "Pocket",
    Location.OTHER: "Other",
}
METHOD_LABELS: dict[str, str] = {
    Method.SCREEN: "Screen print",
    Method.EMBROIDERY: "Embroidery",
    Method.DTG: "DTG",
    Method.TRANSFER: "Transfer",
    Method.VINYL: "Vinyl",
}


@dataclass(frozen=True)
class NewImprint:
    location: str
    method: str
    colours: int | None = None
    colour_names: tuple[str, ...] = ()
    stitches: int | None = None
    width_mm: int | None = None
    height_mm: int | None = None
    notes: str = ""
    unit_price_cents: int = 0
    setup_cents: int = 0


@dataclass(frozen=True)
class NewItem:
    style: str
    colour: str
    sizes: tuple[tuple[str, int], ...]  # (label, quantity) as sent
    unit_price_cents: int
    description: str | None = None
    size_upcharges_cents: tuple[tuple[str, int], ...] = ()
    imprints: tuple[NewImprint, ...] = field(default=())

    @property
    def quantity(self) -> int:
        return sum(quantity for _, quantity in self.sizes)


@dataclass(frozen=True)
class StockedSize:
    """One SKU of a stocked garment: what an ordered size resolves to."""

    sku_id: int
    code: str
    size: str
    brand: str


def imprint_errors(imprint: NewImprint, path: str) -> dict[str, list[str]]:
    """Rules between an imprint's fields (each field's own bounds are the schema's)."""
    errors: dict[str, list[str]] = {}
    if imprint.method == Method.SCREEN and imprint.colours is None:
        errors[f"{path}.colours"] = [f"The {path}.colours field is required for screen printing."]
    if imprint.method == Method.EMBROIDERY and imprint.stitches is None:
        errors[f"{path}.stitches"] = [f"The {path}.stitches field is required for embroidery."]
    return errors


def item_errors(item: NewItem, path: str) -> dict[str, list[str]]:
    """Rules between an item's fields and its imprints'; keys are dot paths under `path`."""
    errors: dict[str, list[str]] = {}
    if not any(quantity > 0 for _, quantity in item.sizes):
        errors[f"{path}.sizes"] = [f"The {path}.sizes field needs at least one size above 0."]
    labels = {label for label, _ in item.sizes}
    if len(labels) != len(item.sizes):
        errors[f"{path}.sizes"] = [f"The {path}.sizes field names a size twice."]
    for label, _ in item.size_upcharges_cents:
        if label not in labels:
            key = f"{path}.size_upcharges_cents.{label}"
            errors[key] = [f"The {key} field names a size the item does not order."]
    for index, imprint in enumerate(item.imprints):
        errors.update(imprint_errors(imprint, f"{path}.imprints.{index}"))
    return errors


def stock_key(style: str, colour: str) -> tuple[str, str]:
    """Garments match SKUs by style and colour, case-insensitively."""
    return style.casefold(), colour.casefold()


def size_rank(labels: Iterable[str]) -> dict[str, int]:
    """Sort keys putting the standard run first (XS … 5XL), then the others as given."""
    given = list(dict.fromkeys(labels))
    standard = {label.casefold(): n for n, label in enumerate(STANDARD_SIZES)}
    return {
        label: standard.get(label.casefold(), len(STANDARD_SIZES) + n)
        for n, label in enumerate(given)
    }


def sized(skus: Iterable[StockedSize]) -> list[StockedSize]:
    """A garment's SKUs in size order."""
    skus = list(skus)
    rank = size_rank(sku.size for sku in skus)
    return sorted(skus, key=lambda sku: rank[sku.size])


def stock_errors(
    item: NewItem, path: str, stocked: Sequence[StockedSize] | None
) -> dict[str, list[str]]:
    """A stocked garment's ordered sizes must be among its SKUs' sizes."""
    if not stocked:
        return {}
    have = {sku.size.casefold() for sku in stocked}
    listed = ", ".join(sku.size for sku in sized(stocked))
    return {
        f"{path}.sizes.{label}": [
            f"The workspace has no {item.style} {item.colour} in size {label}; it has {listed}."
        ]
        for label, quantity in item.sizes
        if quantity > 0 and label.casefold() not in have
    }


def description(item: NewItem, stocked: Sequence[StockedSize] | None) -> str:
    """As given, else "{brand} {style} {colour}" from the SKUs, else "{style} {colour}"."""
    if item.description:
        return item.description
    brand = next((sku.brand for sku in stocked or () if sku.brand), "")
    return " ".join(part for part in (brand, item.style, item.colour) if part)


def setup_description(imprint: NewImprint) -> str:
    text = f"Setup: {imprint.location} {imprint.method}"
    if imprint.method == Method.SCREEN and imprint.colours is not None:
        text += f", {imprint.colours} colours"
    return text


def expand(item: NewItem, position: int, stocked: Sequence[StockedSize] | None) -> list[NewLine]:
    """The item's lines, in order: one per size above 0 (stocked: the SKUs' size order; else as
    sent), priced item + upcharge + imprints per garment; then one per imprint with a setup.
    `stocked` has passed `stock_errors`."""
    name = description(item, stocked)
    per_garment = item.unit_price_cents + sum(i.unit_price_cents for i in item.imprints)
    upcharges = dict(item.size_upcharges_cents)
    by_size = {sku.size.casefold(): sku for sku in stocked or ()}
    sizes = [(label, quantity) for label, quantity in item.sizes if quantity > 0]
    if stocked:
        rank = size_rank(sku.size for sku in sized(stocked))
        sizes.sort(key=lambda size: rank[by_size[size[0].casefold()].size])
    lines = [
        NewLine(
            description=f"{name} — {label}",
            quantity=quantity,
            unit_price_cents=per_garment + upcharges.get(label, 0),
            sku=by_size[label.casefold()].code if stocked else None,
            item=position,
        )
        for label, quantity in sizes
    ]
    lines += [
        NewLine(
            description=setup_description(imprint),
            quantity=1,
            unit_price_cents=imprint.setup_cents,
            item=position,
        )
        for imprint in item.imprints
        if imprint.setup_cents > 0
    ]
    return lines


def expand_all(
    items: Sequence[NewItem], stocked: Mapping[tuple[str, str], Sequence[StockedSize]]
) -> list[NewLine]:
    return [
        line
        for position, item in enumerate(items)
        for line in expand(item, position, stocked.get(stock_key(item.style, item.colour)))
    ]
