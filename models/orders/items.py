"""Garments on an order: a style in a colour, a run of sizes, imprints; the rules
between their fields, and their expansion into the order's ordinary lines.

Lines made here are what totals, tax, stock, invoices and every reader already understand; the
item itself is kept beside them so it can be shown and edited as a garment.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from models.garments import (
    STANDARD_SIZES,
    Method,
    NewImprint,
    NewItem,
    StockedSize,
    location_words,
    method_words,
    size_key,
)
from models.orders.lines import NewLine
from models.pricing.compute import ItemPrices


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
    for field, labels in (
        ("sizes", [label for label, _ in item.sizes]),
        ("size_upcharges_cents", [label for label, _ in item.size_upcharges_cents]),
    ):
        errors.update(_one_size_once(labels, f"{path}.{field}"))
    # An upcharge may name a size the item does not order: it is kept for a later edit.
    for index, imprint in enumerate(item.imprints):
        errors.update(imprint_errors(imprint, f"{path}.imprints.{index}"))
    return errors


def _one_size_once(labels: Iterable[str], key: str) -> dict[str, list[str]]:
    """Two labels of one size are refused, naming both as sent."""
    seen: dict[str, list[str]] = {}
    for label in labels:
        seen.setdefault(size_key(label), []).append(label)
    twice = [group for group in seen.values() if len(group) > 1]
    if not twice:
        return {}
    named = "; ".join(" and ".join(f'"{label}"' for label in group) for group in twice)
    return {
        key: [
            f"The {key} field names one size twice: {named} (sizes are the same whatever "
            "their case or surrounding spaces)."
        ]
    }


def trimmed(item: NewItem) -> NewItem:
    """The item with its size labels as stored: without surrounding spaces (after
    `item_errors`, which refuses two labels of one size)."""
    return replace(
        item,
        sizes=tuple((label.strip(), quantity) for label, quantity in item.sizes),
        size_upcharges_cents=tuple(
            (label.strip(), cents) for label, cents in item.size_upcharges_cents
        ),
    )


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
    """As given, else the default for its style and colour."""
    return item.description or default_description(item.style, item.colour, stocked)


def default_description(style: str, colour: str, stocked: Sequence[StockedSize] | None) -> str:
    """ "{brand} {style} {colour}" from the SKUs, else "{style} {colour}"."""
    brand = next((sku.brand for sku in stocked or () if sku.brand), "")
    return " ".join(part for part in (brand, style, colour) if part)


def setup_description(imprint: NewImprint) -> str:
    """A setup line's description, in words: "Setup: left chest, embroidery", "Setup: front,
    screen print, 2 colours (crest-2026)". Lines are stored as made: an order made before
    keeps its words until its garments are edited."""
    parts = [
        location_words(imprint.location, in_sentence=True),
        method_words(imprint.method, in_sentence=True),
    ]
    if imprint.method == Method.SCREEN and imprint.colours is not None:
        parts.append(f"{imprint.colours} colour{'' if imprint.colours == 1 else 's'}")
    text = "Setup: " + ", ".join(parts)
    return f"{text} ({imprint.design})" if imprint.design else text


def expand(
    item: NewItem, position: int, stocked: Sequence[StockedSize] | None, prices: ItemPrices
) -> list[NewLine]:
    """The item's lines, in order: one per size above 0 (stocked: the SKUs' size order; else as
    sent), then its setup lines, each priced as `prices` (models/pricing) says. `stocked` has
    passed `stock_errors`."""
    name = description(item, stocked)
    by_size = {sku.size.casefold(): sku for sku in stocked or ()}
    sizes = [(label, quantity) for label, quantity in item.sizes if quantity > 0]
    if stocked:
        rank = size_rank(sku.size for sku in sized(stocked))
        sizes.sort(key=lambda size: rank[by_size[size[0].casefold()].size])
    lines = [
        NewLine(
            description=f"{name} — {label}",
            quantity=quantity,
            unit_price_cents=prices.sizes[label].unit_price_cents,
            sku=by_size[label.casefold()].code if stocked else None,
            item=position,
            price_source=prices.sizes[label].source,
            breakdown=prices.sizes[label].breakdown,
        )
        for label, quantity in sizes
    ]
    lines += [
        NewLine(
            description=setup_description(setup.imprint),
            quantity=1,
            unit_price_cents=setup.price.unit_price_cents,
            item=position,
            price_source=setup.price.source,
            breakdown=setup.price.breakdown,
        )
        for setup in prices.setups
    ]
    return lines
