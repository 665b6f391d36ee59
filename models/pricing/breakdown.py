"""What a line's price is made of, stored with the line and shown by every reader: where
each part came from (typed, or the price list's matrix row and column) and what it came to."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import msgspec


class PriceSource(StrEnum):
    TYPED = "typed"  # as given; kept on every edit
    PRICE_LIST = "price_list"  # computed; computed again when the order's content changes


class ImprintPrice(msgspec.Struct, kw_only=True, frozen=True):
    location: str
    method: str
    design: str | None
    source: PriceSource
    quantity: Annotated[
        int, msgspec.Meta(description="Garments the price break was read at (the design's)")
    ]
    matrix_row: Annotated[
        int | None, msgspec.Meta(description="The row's min_quantity; null when typed")
    ]
    column: Annotated[
        int | None,
        msgspec.Meta(description="The column: colours, stitch ceiling or cm²; null when typed"),
    ]
    cents: Annotated[int, msgspec.Meta(description="Per garment, after the discount")]


class SetupPrice(msgspec.Struct, kw_only=True, frozen=True):
    location: str
    method: str
    design: str | None
    source: PriceSource
    colours: Annotated[int | None, msgspec.Meta(description="Screens charged (screen only)")]
    rule_cents: Annotated[
        int | None,
        msgspec.Meta(description="The price list's per colour or per design charge"),
    ]
    cents: int


class PriceBreakdown(msgspec.Struct, kw_only=True, frozen=True):
    """A garment line's parts (`setup` null), or a setup line's (`setup` set, the rest null
    or empty)."""

    garment: Annotated[int | None, msgspec.Meta(description="Per garment, after the discount")]
    garment_source: PriceSource | None
    cost_cents: Annotated[
        int | None, msgspec.Meta(description="The SKU's cost it was marked up from")
    ]
    markup_percent: int | None
    upcharge: Annotated[int | None, msgspec.Meta(description="This size's upcharge")]
    imprints: list[ImprintPrice]
    discount_percent: Annotated[
        str | None,
        msgspec.Meta(
            description="The customer's price-list discount on computed prices, e.g. 10.00"
        ),
    ]
    setup: SetupPrice | None


def source_of(*sources: PriceSource) -> PriceSource:
    """A line's source: the price list's when any part of it came from the price list."""
    return PriceSource.PRICE_LIST if PriceSource.PRICE_LIST in sources else PriceSource.TYPED


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(PriceBreakdown)


def encode(breakdown: PriceBreakdown | None) -> str | None:
    return None if breakdown is None else _ENCODER.encode(breakdown).decode()


def decode(stored: str | dict[str, object] | None) -> PriceBreakdown | None:
    if stored is None:
        return None
    if isinstance(stored, dict):
        return msgspec.convert(stored, PriceBreakdown)
    return _DECODER.decode(stored)
