"""Artwork of an order: a proof starts a new version; approval emits `artwork.approved`.

A proof may carry its file (an upload in the admin): it is kept as that version
(models/proofs.py) and the customer's primary contact is emailed a link to approve it or ask
for changes (models/proof_answers.py), all in the proof's transaction."""

from __future__ import annotations

from typing import Any

from models import clock, db, messages, proofs
from models.errors import NotFoundError, RuleRefused
from models.filters import MAX_ID
from models.mail import links
from models.stages import TERMINAL_STAGES
from models.tables import Artwork, Order
from models.webhooks import events as outbox
from models.webhooks.names import EventName


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


async def send_proof(
    *,
    workspace_id: int,
    order_id: int,
    file: proofs.ProofFile | None = None,
    user_id: int | None = None,
) -> int:
    """Send a new proof: version + 1, awaiting the customer's approval (again). With `file`
    (checked by proofs.check_file) it is stored and emailed to the primary contact with the
    link to the customer's page. Returns the new version."""
    now = clock.now()

    async def write() -> int:
        order = await _locked_order(workspace_id, order_id)
        artwork = await _artwork(order_id)
        version = artwork["version"] + 1
        if artwork["id"] is None:
            await Artwork(workspace=workspace_id, order=order["id"]).save()
        await Artwork.update(
            {
                Artwork.status: "awaiting_approval",
                Artwork.version: version,
                Artwork.approved_at: None,
                Artwork.approved_by: None,
                Artwork.updated_at: now,
            }
        ).where(Artwork.order == order_id)
        await Order.update({Order.updated_at: now}).where(Order.id == order_id)
        if file is not None:
            token = await proofs.store(
                workspace_id=workspace_id,
                order_id=order_id,
                version=version,
                file=file,
                user_id=user_id,
                now=now,
            )
            await messages.queue_proof_message(
                workspace_id=workspace_id,
                order_id=order_id,
                customer_id=order["customer"],
                number=order["number"],
                version=version,
                link=links.link(f"/proofs/{token}"),
                note=file.note,
                now=now,
            )
        return int(version)

    return await db.atomic(write)


async def approve_artwork(
    *, workspace_id: int, order_id: int, approved_by: str = "operator"
) -> None:
    """The customer approved the current proof; records `artwork.approved`. `approved_by`:
    the name the customer gave on the proof page, or who recorded it."""
    now = clock.now()

    async def write() -> None:
        order = await _locked_order(workspace_id, order_id)
        artwork = await _artwork(order_id)
        if artwork["status"] != "awaiting_approval":
            raise RuleRefused(
                f"Order {order['number']} has no proof awaiting approval "
                f"(artwork is {artwork['status']}); send a proof first."
            )
        await Artwork.update(
            {
                Artwork.status: "approved",
                Artwork.approved_at: now,
                Artwork.approved_by: approved_by,
                Artwork.updated_at: now,
            }
        ).where(Artwork.order == order_id)
        await Order.update({Order.updated_at: now}).where(Order.id == order_id)
        await outbox.record_event(
            workspace_id=workspace_id,
            name=EventName.ARTWORK_APPROVED,
            fields=outbox.artwork_fields(
                order_id=order_id, order_number=order["number"], artwork_version=artwork["version"]
            ),
            order_id=order_id,
            customer_id=order["customer"],
            occurred_at=now,
        )

    return await db.atomic(write)


async def request_changes(*, workspace_id: int, order_id: int) -> None:
    """The customer asked for changes to the current proof: `changes_requested` until the
    next proof (the comment is kept with the proof, models/proof_answers.py)."""
    now = clock.now()

    async def write() -> None:
        order = await _locked_order(workspace_id, order_id)
        artwork = await _artwork(order_id)
        if artwork["status"] != "awaiting_approval":
            raise RuleRefused(
                f"Order {order['number']} has no proof awaiting approval "
                f"(artwork is {artwork['status']})."
            )
        await Artwork.update({Artwork.status: "changes_requested", Artwork.updated_at: now}).where(
            Artwork.order == order_id
        )
        await Order.update({Order.updated_at: now}).where(Order.id == order_id)

    return await db.atomic(write)
