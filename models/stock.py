"""Stock rules: SKU status from live levels (docs/api.md §4); reserve, consume and release.

Movements run inside the caller's transaction and touch SKUs in ascending id order, so two
transactions moving the same SKUs always lock them in the same order (no deadlock).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping
from typing import Literal

from models.tables import OrderLine, Sku

SkuStatus = Literal["in_stock", "low_stock", "out_of_stock", "discontinued"]

# `skus.reserved` and `skus.on_hand` are 32-bit columns.
MAX_LEVEL = 2**31 - 1


def sku_status(*, on_hand: int, reserved: int, reorder_point: int, discontinued: bool) -> SkuStatus:
    available = on_hand - reserved
    if discontinued:
        return "discontinued"
    if available <= 0:
        return "out_of_stock"
    if available <= reorder_point:
        return "low_stock"
    return "in_stock"


async def order_quantities(order_id: int) -> Counter[int]:
    """Quantity per SKU id over the order's SKU lines."""
    rows = await OrderLine.select(OrderLine.sku, OrderLine.quantity).where(
        OrderLine.order == order_id, OrderLine.sku.is_not_null()
    )
    totals: Counter[int] = Counter()
    for row in rows:
        totals[row["sku"]] += row["quantity"]
    return totals


async def over_reservation_limit(quantities: Mapping[int, int]) -> set[int]:
    """SKU ids whose `reserved` would overflow its column if these quantities were added."""
    if not quantities:
        return set()
    rows = await Sku.select(Sku.id, Sku.reserved).where(Sku.id.is_in(list(quantities)))
    return {row["id"] for row in rows if row["reserved"] + quantities[row["id"]] > MAX_LEVEL}


async def reserve(quantities: Mapping[int, int], now: dt.datetime) -> None:
    """At create: `reserved += q` (shortages allowed; `available` may go negative)."""
    for sku_id in sorted(quantities):
        q = quantities[sku_id]
        await Sku.update({Sku.reserved: Sku.reserved + q, Sku.updated_at: now}).where(
            Sku.id == sku_id
        )


async def consume(quantities: Mapping[int, int], now: dt.datetime) -> None:
    """Once per order, on reaching production: `on_hand -= q`, `reserved -= q`."""
    for sku_id in sorted(quantities):
        q = quantities[sku_id]
        await Sku.update(
            {Sku.on_hand: Sku.on_hand - q, Sku.reserved: Sku.reserved - q, Sku.updated_at: now}
        ).where(Sku.id == sku_id)


async def release(quantities: Mapping[int, int], now: dt.datetime) -> None:
    """On cancel, for stock not yet consumed: `reserved -= q`."""
    for sku_id in sorted(quantities):
        q = quantities[sku_id]
        await Sku.update({Sku.reserved: Sku.reserved - q, Sku.updated_at: now}).where(
            Sku.id == sku_id
        )
