"""Stock rules: SKU status from live levels (DECISIONS 2)."""

from __future__ import annotations

from typing import Literal

SkuStatus = Literal["in_stock", "low_stock", "out_of_stock", "discontinued"]


def sku_status(*, on_hand: int, reserved: int, reorder_point: int, discontinued: bool) -> SkuStatus:
    available = on_hand - reserved
    if discontinued:
        return "discontinued"
    if available <= 0:
        return "out_of_stock"
    if available <= reorder_point:
        return "low_stock"
    return "in_stock"
