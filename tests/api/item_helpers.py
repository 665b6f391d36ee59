"""Shared set-up for the print-job tests: garments and imprints as the API takes
them, a stocked style in a run of sizes, PATCH, and the stock an order holds as rows say it."""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx

from models.tables import OrderLine, Sku, StockMovement, Workspace
from tests import factories


def imprint(**fields: Any) -> dict[str, Any]:
    """A one-colour front screen print, no prices, unless told otherwise."""
    values: dict[str, Any] = {"location": "front", "method": "screen", "colours": 1}
    values.update(fields)
    return values


def item(**fields: Any) -> dict[str, Any]:
    """An unstocked garment (no SKU of the test shops has this style) in two sizes."""
    values: dict[str, Any] = {
        "style": "Crew Tee",
        "colour": "Navy",
        "sizes": {"M": 2, "L": 1},
        "unit_price_cents": 500,
    }
    values.update(fields)
    return values


def items_body(customer_id: int, *items: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A create body of items only (no `lines`)."""
    return {"customer_id": customer_id, "items": list(items), **fields}


async def stocked(
    ws: Workspace,
    style: str = "G5000",
    colour: str = "Black",
    sizes: tuple[str, ...] = ("S", "M", "L", "XL", "2XL"),
    *,
    brand: str = "Gildan",
    on_hand: int = 100,
    prefix: str | None = None,
) -> dict[str, Sku]:
    """One SKU per size of a style in a colour, inserted in the order given; size → SKU.
    Codes are `{prefix}-{size}` (prefix: style and colour)."""
    prefix = prefix or f"{style}-{colour}".upper().replace(" ", "")
    return {
        size: await factories.sku(
            ws,
            f"{prefix}-{size}",
            style=style,
            colour=colour,
            brand=brand,
            size=size,
            on_hand=on_hand,
        )
        for size in sizes
    }


async def patch(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    order_id: int,
    body: dict[str, Any],
    **headers: str,
) -> httpx.Response:
    return await client.patch(f"/api/v1/orders/{order_id}", json=body, headers={**auth, **headers})


async def get(
    client: httpx.AsyncClient, auth: dict[str, str], order_id: int, **headers: str
) -> httpx.Response:
    return await client.get(f"/api/v1/orders/{order_id}", headers={**auth, **headers})


async def reserved(ws: Workspace) -> dict[str, int]:
    """`skus.reserved` by SKU code, for every SKU of the workspace."""
    rows = await Sku.select(Sku.code, Sku.reserved).where(Sku.workspace == ws.id)
    return {row["code"]: row["reserved"] for row in rows}


async def line_quantities(order_id: int) -> Counter[str]:
    """Quantity per SKU code over the order's lines, as stored."""
    rows = await OrderLine.select(OrderLine.sku.code, OrderLine.quantity).where(
        OrderLine.order == order_id, OrderLine.sku.is_not_null()
    )
    totals: Counter[str] = Counter()
    for row in rows:
        totals[row["sku.code"]] += row["quantity"]
    return totals


async def movements(order_id: int) -> list[dict[str, Any]]:
    """The order's stock movements in the order written: kind, SKU code, reserved delta,
    on-hand delta, reason."""
    rows = (
        await StockMovement.select(
            StockMovement.kind,
            StockMovement.sku.code,
            StockMovement.delta_reserved,
            StockMovement.delta_on_hand,
            StockMovement.reason,
        )
        .where(StockMovement.order == order_id)
        .order_by(StockMovement.id)
    )
    return [
        {
            "kind": row["kind"],
            "sku": row["sku.code"],
            "reserved": row["delta_reserved"],
            "on_hand": row["delta_on_hand"],
            "reason": row["reason"],
        }
        for row in rows
    ]


def net_reserved(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Reserved delta per SKU code summed over movement rows (zeros dropped)."""
    totals: Counter[str] = Counter()
    for row in rows:
        totals[row["sku"]] += row["reserved"]
    return {code: delta for code, delta in totals.items() if delta}
