"""Garments on an order: a style in a colour, a run of sizes, imprints; the rules
between their fields, and their expansion into the order's ordinary lines.

Lines made here are what totals, tax, stock, invoices and every reader already understand; the
item itself is kept beside them so it can be shown and edited as a garment.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from models.garments import STANDARD_SIZES, Method, NewImprint, NewItem, StockedSize
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
    labels = {label for label, _ in item.sizes}
    if len(labels) != len(item.sizes):
        errors[f"{path}.sizes"] = [f"The {path}.sizes field names a size twice."]
    # An upcharge may name a size the item does not order: it is kept for a later edit.
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
    if imprint.design:
        text += f" ({imprint.design})"
    return text


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
