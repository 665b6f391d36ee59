"""What a garment order is made of, beneath orders and the price list: the decoration
methods and print locations, the limits of a garment's fields, and the garment and imprint as
every writer gives them (validated by models/orders/items.py, priced by models/pricing)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

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
MAX_DESIGN = 100
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


# How people read them (the admin's forms and pages, the work order, the command line, the
# order's setup lines): through `location_words` and `method_words`.
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


def location_words(location: str, *, in_sentence: bool = False) -> str:
    """A print location as people read it: "Left chest" (a label, a heading), "left chest"
    inside a sentence ("Setup: left chest, embroidery"). A code no label names (a stored
    value the service no longer offers) reads with spaces: "left_hip" → "Left hip"."""
    return _words(LOCATION_LABELS, location, in_sentence)


def method_words(method: str, *, in_sentence: bool = False) -> str:
    """A decoration method as people read it: "Screen print", "screen print" inside a
    sentence; "DTG" stays as it is."""
    return _words(METHOD_LABELS, method, in_sentence)


def _words(labels: dict[str, str], code: str, in_sentence: bool) -> str:
    label = labels.get(code) or code.replace("_", " ").strip().capitalize() or code
    first = label.split(" ", 1)[0]
    if in_sentence and not (len(first) > 1 and first.isupper()):  # DTG is DTG anywhere
        return label[:1].lower() + label[1:]
    return label


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
    unit_price_cents: int | None = None  # None: from the price list (models/pricing)
    setup_cents: int | None = None
    design: str | None = None  # shares a price break and a setup with the same design


@dataclass(frozen=True)
class NewItem:
    style: str
    colour: str
    sizes: tuple[tuple[str, int], ...]  # (label, quantity) as sent
    unit_price_cents: int | None  # None: from the price list (models/pricing)
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
    cost_cents: int | None = None  # what the shop pays: the price list marks it up


def size_key(label: str) -> str:
    """One size, whatever its case or surrounding spaces: "M", "m" and "M " are one."""
    return label.strip().casefold()
