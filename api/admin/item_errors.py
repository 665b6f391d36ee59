"""The API's error keys about garments (`items.0.imprints.1.colours`) as the order forms'
fields (`items-3-imprints-0-colours`) and sentences people read: "Garment 1, imprint 2: Ink
colours is required for screen printing." (the labels are the forms', templates/
_item_fields.html; each sentence is made as every admin form's are: api/admin/forms.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from api.admin.forms import sentence

# How the form's fields are named in sentences.
ITEM_LABELS = {
    "style": "Style",
    "colour": "Colour",
    "description": "Description",
    "unit_price": "Price each",
    "sizes": "Sizes",
    "imprints": "Imprints",
    "other_size": "Other size",
}
IMPRINT_LABELS = {
    "location": "Location",
    "method": "Method",
    "colours": "Ink colours",
    "colour_names": "Colour names",
    "stitches": "Stitches",
    "width_mm": "Width (mm)",
    "height_mm": "Height (mm)",
    "unit_price": "Price per garment",
    "setup": "Setup (once)",
    "design": "Design",
    "notes": "Notes",
}

# The price list's refusals name the API field to type a price in ("type
# items.0.unit_price_cents"): the form names its box instead.
_PRICE_KEY = re.compile(
    r"\b(type|Type) (items\.[0-9]+(?:\.imprints\.[0-9]+)?\.(?:unit_price|setup)_cents)"
)


def _box(found: re.Match[str]) -> str:
    key = found[2]
    part = key.rsplit(".", 1)[1].removesuffix("_cents")
    labels = IMPRINT_LABELS if ".imprints." in key else ITEM_LABELS
    label = labels.get(part, part)
    return f"{found[1]} a price in “{label}”"


def shown_item_errors(
    errors: Mapping[str, list[str]], items: Sequence[dict[str, Any]]
) -> dict[str, list[str]]:
    """Errors keyed `items…` as the form's field names (`items-3-imprints-0-colours`, a size
    cell `items-3-size-XL`, a garment `items-3`), each sentence naming the garment, the imprint
    and the field as the page labels them. Other keys are left out (the caller maps them)."""
    shown: dict[str, list[str]] = {}
    for key, messages in errors.items():
        if key != "items" and not key.startswith("items."):
            continue
        field, where, label = _item_field(key, items)
        shown.setdefault(field, []).extend(
            sentence(key, _PRICE_KEY.sub(_box, message), label, where) for message in messages
        )
    return shown


def _item_field(key: str, items: Sequence[dict[str, Any]]) -> tuple[str, str, str | None]:
    """The form field an `items…` key is about, where it is ("Garment 2, imprint 1") and the
    field's label ("Colours"; None for a whole garment or imprint)."""
    parts = key.split(".", 3)
    if len(parts) < 2 or not parts[1].isdigit():
        return "items", "Garments", None
    k = int(parts[1])
    number = items[k]["number"] if k < len(items) else k
    garment = f"Garment {k + 1}"
    if len(parts) == 2:
        return f"items-{number}", garment, None
    part, rest = parts[2], parts[3] if len(parts) > 3 else ""
    if part == "sizes" and rest:
        return f"items-{number}-size-{rest}", garment, f"Size {rest}"
    if part == "size_upcharges_cents":
        if rest:
            return f"items-{number}-upcharge-{rest}", garment, f"Upcharge for {rest}"
        return f"items-{number}-sizes", garment, "Upcharges"
    if part == "imprints" and rest:
        m_text, _, field = rest.partition(".")
        m = int(m_text) if m_text.isdigit() else 0
        imprints = items[k]["imprints"] if k < len(items) else []
        imprint_number = imprints[m]["number"] if m < len(imprints) else m
        where = f"{garment}, imprint {m + 1}"
        if not field:
            return f"items-{number}-imprints-{imprint_number}", where, None
        name, _, sub = field.partition(".")
        name = name.removesuffix("_cents")
        label = (
            "Each colour name" if name == "colour_names" and sub else IMPRINT_LABELS.get(name, name)
        )
        return f"items-{number}-imprints-{imprint_number}-{name}", where, label
    name = part.removesuffix("_cents")
    return f"items-{number}-{name}", garment, ITEM_LABELS.get(name, name)
