"""Moving an order to another stage, with every side effect in one transaction.

The policy (what is refused) is the table in models/stages.py; this module applies an allowed
move: stage and history, stock consumption (once; refused, with nothing kept, when a SKU has
less on hand than the order needs: models/stock.py), dispatch details and the invoice, the
customer message and the outbox rows. The order row is locked (PostgreSQL) and re-read inside
the transaction, so two simultaneous moves of one order run one after the other. Rows are
locked in the one order (docs/operations.md): a dispatch writes the customer first, then the
order, the SKUs by id (stock consumption), the invoice. The transaction is `db.atomic`'s.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from models import clock, db, messages, stock
from models.actors import Actor
from models.errors import ErrorCode, InvalidFields, NotFoundError, RuleRefused
from models.filters import MAX_ID
from models.invoices import issuing
from models.orders.queries import Precondition, check_precondition
from models.stages import API_TARGET_STAGES, Move, consumes_stock, refusal
from models.tables import Artwork, Customer, Order, StageChange, Workspace
from models.webhooks import events as outbox
from models.webhooks.names import EventName

# The webhook event each target stage causes (docs/webhooks.md).
EVENT_FOR_TARGET = {stage: EventName.ORDER_STAGE_CHANGED for stage in API_TARGET_STAGES} | {
    "dispatched": EventName.ORDER_DISPATCHED
}


async def _locked_order(workspace_id: int, order_id: int) -> dict[str, Any]:
    if not 0 < order_id <= MAX_ID:
        raise NotFoundError("Order not found")
    query = Order.select(
        Order.id,
        Order.number,
        Order.stage,
        Order.due_by,
        Order.carrier,
        Order.tracking_number,
        Order.stock_consumed,
        Order.total_cents,
        Order.currency,
        Order.customer.id.as_alias("customer_id"),
        Order.customer.name.as_alias("customer_name"),
        Order.customer.slug.as_alias("customer_slug"),
        Order.customer.default_carrier.as_alias("default_carrier"),
    ).where(Order.workspace == workspace_id, Order.id == order_id)
    if db.is_postgres():
        query = query.lock_rows("NO KEY UPDATE", of=(Order,))
    order = await query.first()
    if order is None:
        raise NotFoundError("Order not found")
    return order


async def touch_customer(workspace_id: int, order_id: int, now: dt.datetime) -> None:
    """The order's customer's `updated_at` moves (its open_orders change), written before the
    order is locked: every write locks the customer before its orders (docs/operations.md).
    An order's customer never changes, so it is read without a lock."""
    if not 0 < order_id <= MAX_ID:
        return
    order = await (
        Order.select(Order.customer)
        .where(Order.workspace == workspace_id, Order.id == order_id)
        .first()
    )
    if order is not None:
        await Customer.update({Customer.updated_at: now}).where(Customer.id == order["customer"])


async def _move(order: dict[str, Any], workspace: dict[str, Any], to_stage: str) -> Move:
    artwork = await Artwork.select(Artwork.status).where(Artwork.order == order["id"]).first()
    return Move(
        number=order["number"],
        current=order["stage"],
        target=to_stage,
        artwork_approved=artwork is not None and artwork["status"] == "approved",
        require_artwork_approval=workspace["require_artwork_approval"],
        strict_sequence=workspace["strict_sequence"],
    )


async def advance_order(
    *,
    workspace_id: int,
    order_id: int,
    to_stage: str,
    carrier: str | None = None,
    tracking_number: str | None = None,
    actor: Actor,
    precondition: Precondition | None = None,
) -> None:
    """Move the order to `to_stage`, recording `actor` as who moved it, or raise NotFoundError
    / InvalidFields / StaleError (the order fails `precondition`, checked under the order's
    lock before the move's rules) / RuleRefused (nothing written then)."""
    if to_stage not in API_TARGET_STAGES:
        raise InvalidFields({"to_stage": ["The selected to_stage is invalid."]})
    now = clock.now()

    async def move() -> None:
        dispatch = to_stage == "dispatched"
        if dispatch:
            await touch_customer(workspace_id, order_id, now)
        order = await _locked_order(workspace_id, order_id)
        workspace = await (
            Workspace.select(
                Workspace.require_artwork_approval, Workspace.strict_sequence, Workspace.timezone
            )
            .where(Workspace.id == workspace_id)
            .first()
        )
        if workspace is None:
            raise NotFoundError("Order not found")
        if precondition is not None:
            await check_precondition(precondition, workspace_id, order_id, workspace["timezone"])
        reason = refusal(await _move(order, workspace, to_stage))
        if reason is not None:
            raise RuleRefused(reason, code=ErrorCode.STAGE_MOVE_REFUSED)

        values: dict[Any, Any] = {Order.stage: to_stage, Order.updated_at: now}
        if consumes_stock(to_stage) and not order["stock_consumed"]:
            await stock.consume(
                await stock.order_quantities(order_id), now, order_id=order_id, actor=actor
            )
            values[Order.stock_consumed] = True
        if dispatch:
            order["carrier"] = carrier or order["carrier"] or order["default_carrier"] or None
            order["tracking_number"] = tracking_number or order["tracking_number"]
            values[Order.dispatched_at] = now
            values[Order.carrier] = order["carrier"]
            values[Order.tracking_number] = order["tracking_number"]
        await Order.update(values).where(Order.id == order_id)
        await StageChange(
            workspace=workspace_id,
            order=order_id,
            from_stage=order["stage"],
            to_stage=to_stage,
            actor_kind=actor.kind,
            user=actor.user_id,
            token=actor.token_id,
            at=now,
        ).save()
        await messages.queue_stage_message(
            workspace_id=workspace_id,
            order_id=order_id,
            customer_id=order["customer_id"],
            number=order["number"],
            to_stage=to_stage,
            now=now,
            carrier=order["carrier"] if dispatch else None,
            tracking_number=order["tracking_number"] if dispatch else None,
        )
        await outbox.record_event(
            workspace_id=workspace_id,
            name=EVENT_FOR_TARGET[to_stage],
            fields=outbox.order_fields(
                order_id=order_id,
                order_number=order["number"],
                from_stage=order["stage"],
                to_stage=to_stage,
                customer={
                    "id": order["customer_id"],
                    "name": order["customer_name"],
                    "slug": order["customer_slug"],
                },
                due_by=order["due_by"],
                timezone=workspace["timezone"],
                dispatch=(order["carrier"], order["tracking_number"]) if dispatch else None,
            ),
            order_id=order_id,
            customer_id=order["customer_id"],
            occurred_at=now,
        )
        if dispatch:
            await issuing.issue_invoice(
                workspace_id=workspace_id,
                order_id=order_id,
                customer_id=order["customer_id"],
                order_number=order["number"],
                total_cents=order["total_cents"],
                currency=order["currency"],
                timezone=workspace["timezone"],
                now=now,
            )

    return await db.atomic(move)
