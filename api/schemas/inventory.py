"""SKUs with live stock levels."""

from __future__ import annotations

from typing import Any

from api.schemas.common import Schema, Timestamp
from models.clock import iso
from models.stock import SkuStatus, sku_status


class Sku(Schema):
    code: str
    style: str
    brand: str
    colour: str
    colour_hex: str
    size: str
    on_hand: int
    reserved: int
    available: int
    reorder_point: int
    status: SkuStatus
    updated_at: Timestamp


def sku_body(row: dict[str, Any]) -> Sku:
    return Sku(
        code=row["code"],
        style=row["style"],
        brand=row["brand"],
        colour=row["colour"],
        colour_hex=row["colour_hex"],
        size=row["size"],
        on_hand=row["on_hand"],
        reserved=row["reserved"],
        available=row["on_hand"] - row["reserved"],
        reorder_point=row["reorder_point"],
        status=sku_status(
            on_hand=row["on_hand"],
            reserved=row["reserved"],
            reorder_point=row["reorder_point"],
            discontinued=row["discontinued"],
        ),
        updated_at=iso(row["updated_at"]),
    )
