"""What the work order prints: the order page's reads, the plain lines apart from
the ones made from garments, and the approved proof."""

from __future__ import annotations

from typing import Any, NamedTuple

from models import proofs, statements
from models.orders.item_reads import ItemView, items_of
from models.orders.pages import OrderHead, head
from models.orders.queries import ORDER_LINES, LineRow


class WorkOrder(NamedTuple):
    order: OrderHead
    items: list[ItemView]
    lines: list[LineRow]  # the plain lines: the garments' own lines are their size grids
    approved_proof: dict[str, Any] | None  # models/proofs.py SUMMARY, when artwork is approved


async def work_order(workspace_id: int, ref: str) -> WorkOrder | None:
    """The order named by id or number, as the floor needs it, or None (also for another
    workspace's). The approved proof is the version the artwork was approved at (an operator
    may approve without a proof: then there is none)."""
    async with statements.connection() as reader:  # the order page's reads, not its timeline
        order = await head(reader, workspace_id, ref)
        if order is None:
            return None
        lines = await reader.all(ORDER_LINES, order.id)
        items = await items_of(reader, workspace_id, order.id)
    approved = None
    if order.artwork_status == "approved" and order.artwork_version:
        every = await proofs.for_order(workspace_id, order.id)
        approved = next((p for p in every if p["version"] == order.artwork_version), None)
    return WorkOrder(
        order=order,
        items=items,
        lines=[line for line in lines if line.item_id is None],
        approved_proof=approved,
    )
