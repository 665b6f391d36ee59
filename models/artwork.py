"""Artwork of an order: a proof starts a new version; approval emits `artwork.approved`."""

from __future__ import annotations

from typing import Any

from models import clock, db
from models.errors import NotFoundError, RuleRefused
from models.queries.filters import MAX_ID
from models.stages import TERMINAL_STAGES
from models.tables import Artwork, Order
from models.webhooks import events as outbox


async def _locked_order(workspace_id: int, order_id: int) -> dict[str, Any]:
    """The order's number and stage with its row locked (PostgreSQL) for this transaction."""
    if not 0 < order_id <= MAX_ID:
        raise NotFoundError("Order not found")
    query = Order.select(Order.id, Order.number, Order.stage, Order.customer).where(
        Order.workspace == workspace_id, Order.id == order_id
    )
    if db.is_postgres():
        query = query.lock_rows("NO KEY UPDATE")
    order = await query.first()
    if order is None:
        raise NotFoundError("Order not found")
    if order["stage"] in TERMINAL_STAGES:
        raise RuleRefused(
            f"Order {order['number']} is {order['stage']}; its artwork can no longer change."
        )
    return order


async def _artwork(order_id: int) -> dict[str, Any]:
    row = (
        await Artwork.select(Artwork.id, Artwork.status, Artwork.version)
        .where(Artwork.order == order_id)
        .first()
    )
    # Every order gets its row at create; an order inserted some other way starts fresh.
    return row or {"id": None, "status": "awaiting_proof", "version": 0}


async def send_proof(*, workspace_id: int, order_id: int) -> None:
    """Send a new proof: version + 1, awaiting the customer's approval (again)."""
    now = clock.now()
    async with db.transaction():
        order = await _locked_order(workspace_id, order_id)
        artwork = await _artwork(order_id)
        if artwork["id"] is None:
            await Artwork(workspace=workspace_id, order=order["id"]).save()
        await Artwork.update(
            {
                Artwork.status: "awaiting_approval",
                Artwork.version: artwork["version"] + 1,
                Artwork.approved_at: None,
                Artwork.updated_at: now,
            }
        ).where(Artwork.order == order_id)
        await Order.update({Order.updated_at: now}).where(Order.id == order_id)


async def approve_artwork(*, workspace_id: int, order_id: int) -> None:
    """The customer approved the current proof; records `artwork.approved`."""
    now = clock.now()
    async with db.transaction():
        order = await _locked_order(workspace_id, order_id)
        artwork = await _artwork(order_id)
        if artwork["status"] != "awaiting_approval":
            raise RuleRefused(
                f"Order {order['number']} has no proof awaiting approval "
                f"(artwork is {artwork['status']}); send a proof first."
            )
        await Artwork.update(
            {Artwork.status: "approved", Artwork.approved_at: now, Artwork.updated_at: now}
        ).where(Artwork.order == order_id)
        await Order.update({Order.updated_at: now}).where(Order.id == order_id)
        await outbox.record_event(
            workspace_id=workspace_id,
            name="artwork.approved",
            fields=outbox.artwork_fields(
                order_id=order_id, order_number=order["number"], artwork_version=artwork["version"]
            ),
            order_id=order_id,
            customer_id=order["customer"],
            occurred_at=now,
        )
