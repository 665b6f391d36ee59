"""Stock rules: SKU status from live levels (docs/api.md §4); reserve, consume and release.

Movements run inside the caller's transaction and touch SKUs in ascending id order, so two
transactions moving the same SKUs always lock them in the same order (no deadlock).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping
from typing import Literal

from models import statements
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


def over_reservation_limit(reserved: Mapping[int, int], quantities: Mapping[int, int]) -> set[int]:
    """SKU ids whose `reserved` (as read) would overflow its column if these were added."""
    return {sku_id for sku_id, q in quantities.items() if reserved[sku_id] + q > MAX_LEVEL}


_RESERVE = statements.Sql(
    "UPDATE skus SET reserved = reserved + $2, updated_at = $3 WHERE id = $1 AND reserved <= $4"
    " RETURNING id"
)


async def reserve(quantities: Mapping[int, int], now: dt.datetime) -> set[int]:
    """At create: `reserved += q` (shortages allowed; `available` may go negative).

    Returns the SKU ids left alone because `reserved` would overflow its column: the caller
    must then roll back.
    """
    refused: set[int] = set()
    async with statements.connection() as conn:
        for sku_id in sorted(quantities):
            q = quantities[sku_id]
            if await conn.row(_RESERVE, sku_id, q, now, MAX_LEVEL - q) is None:
                refused.add(sku_id)
    return refused


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
