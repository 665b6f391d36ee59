"""What the packing slip prints: the shop, the order's number and references, where it ships,
the customer, and what is in the parcel — each garment's sizes and quantities, each other
line's quantity — and no price. Four statements on one connection, whatever the order's size;
every one scoped to the workspace."""

from __future__ import annotations

from typing import NamedTuple

import msgspec

from models import statements
from models.orders.pages import OrderHead, head
from models.statements import Select

_SIZES = msgspec.json.Decoder(dict[str, int])


class Shop(msgspec.Struct, array_like=True, frozen=True):
    name: str
    email: str  # the workspace's reply-to address; "" when none


class Garment(msgspec.Struct, array_like=True, frozen=True):
    description: str
    style: str
    colour: str
    sizes: str | dict[str, int]  # JSON (drivers hand `json` columns back as text)

    def quantities(self) -> dict[str, int]:
        """Each size ordered (a size of 0 left out), in the order stored."""
        sizes = self.sizes if isinstance(self.sizes, dict) else _SIZES.decode(self.sizes)
        return {size: quantity for size, quantity in sizes.items() if quantity}

    @property
    def total(self) -> int:
        return sum(self.quantities().values())


class Line(msgspec.Struct, array_like=True, frozen=True):
    description: str
    sku: str | None
    quantity: int


SHOP = Select(Shop, "SELECT name, email FROM workspaces WHERE id = $1")
GARMENTS = Select(
    Garment,
    """
    SELECT description, style, colour, sizes FROM order_items
    WHERE workspace = $1 AND "order" = $2 ORDER BY position
    """,
)
# The lines not made from a garment (those are the garments' own sizes).
LINES = Select(
    Line,
    """
    SELECT l.description, s.code, l.quantity
    FROM order_lines l LEFT JOIN skus s ON s.id = l.sku
    WHERE l.workspace = $1 AND l."order" = $2 AND l.item IS NULL
    ORDER BY l.position
    """,
)


class PackingSlip(NamedTuple):
    shop: Shop
    order: OrderHead
    garments: list[Garment]
    lines: list[Line]

    @property
    def pieces(self) -> int:
        """Everything in the parcel, counted: the garments' sizes and the lines' quantities."""
        return sum(g.total for g in self.garments) + sum(line.quantity for line in self.lines)


async def packing_slip(workspace_id: int, ref: str) -> PackingSlip | None:
    """The order named by id or number, as its packing slip shows it, or None (also for
    another workspace's)."""
    async with statements.connection() as reader:
        order = await head(reader, workspace_id, ref)
        if order is None:
            return None
        shop = await reader.one(SHOP, workspace_id)
        if shop is None:  # the workspace was deleted meanwhile
            return None
        return PackingSlip(
            shop=shop,
            order=order,
            garments=await reader.all(GARMENTS, workspace_id, order.id),
            lines=await reader.all(LINES, workspace_id, order.id),
        )
