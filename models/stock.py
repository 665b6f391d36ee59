"""Stock rules: SKU status from live levels (DECISIONS 2)."""

from __future__ import annotations


def sku_status(*, on_hand: int, reserved: int, reorder_point: int, discontinued: bool) -> str:
    available = on_hand - reserved
    if discontinued:
        return "discontinued"
    if available <= 0:
        return "out_of_stock"
    if available <= reorder_point:
        return "low_stock"
    return "in_stock"
