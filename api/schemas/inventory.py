"""SKUs with live stock levels."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from api.params import PageNumber, Search, UpdatedSince
from models.queries.inventory import SkuRow
from models.schemas.common import UpdatedAt
from models.statements import iso
from models.stock import SkuStatus, sku_status
from models.structs import Schema


class Sku(Schema):
    code: Annotated[str, msgspec.Meta(description="SKU code, unique in the workspace")]
    style: str
    brand: str
    colour: str
    colour_hex: Annotated[str, msgspec.Meta(description="Hex colour, #RRGGBB")]
    size: str
    on_hand: int
    reserved: Annotated[
        int,
        msgspec.Meta(description="Held by orders' SKU lines (extension), not yet consumed"),
    ]
    available: Annotated[
        int,
        msgspec.Meta(description="on_hand - reserved; negative when more is reserved than held"),
    ]
    reorder_point: int
    cost_cents: Annotated[
        int | None,
        msgspec.Meta(
            description=(
                "What the shop pays for one; null when unknown. "
                "Price lists mark garments up from it"
            )
        ),
    ]
    status: Annotated[
        SkuStatus,
        msgspec.Meta(
            description=(
                "discontinued (set by the shop; wins over the others), out_of_stock "
                "(available <= 0), low_stock (0 < available <= reorder_point), in_stock "
                "(available > reorder_point)"
            )
        ),
    ]
    updated_at: UpdatedAt


def sku_bodies(rows: list[SkuRow]) -> list[Sku]:
    """A list page's SKUs."""
    return [
        Sku(
            code=row.code,
            style=row.style,
            brand=row.brand,
            colour=row.colour,
            colour_hex=row.colour_hex,
            size=row.size,
            on_hand=row.on_hand,
            reserved=row.reserved,
            available=row.on_hand - row.reserved,
            reorder_point=row.reorder_point,
            cost_cents=row.cost_cents,
            status=sku_status(
                on_hand=row.on_hand,
                reserved=row.reserved,
                reorder_point=row.reorder_point,
                discontinued=bool(row.discontinued),
            ),
            updated_at=iso(row.updated_at),
        )
        for row in rows
    ]


LowFilter = Literal["true", "false", "1", "0"]


class SkuListQuery(Schema):
    """`GET /inventory` parameters (docs/api.md §4.8)."""

    search: Search = None
    low: (
        Annotated[
            LowFilter,
            msgspec.Meta(
                description=(
                    "Only SKUs whose available stock is at or under their reorder point "
                    "(discontinued SKUs excluded): true or 1. false or 0 (the default) "
                    "does not filter. Any other value (also `TRUE`, `yes`) is a 422."
                )
            ),
        ]
        | None
    ) = None
    updated_since: UpdatedSince = None
    page: PageNumber = 1

    @property
    def low_only(self) -> bool:
        return self.low in ("true", "1")
