"""Cancelling an order (operators and owners only; the API cannot)."""

from __future__ import annotations

from models import clock, db, messages, stock
from models.actors import Actor
from models.errors import ErrorCode, NotFoundError, RuleRefused
from models.filters import MAX_ID
from models.orders.stage_moves import touch_customer
from models.stages import CANCEL_REFUSALS, Move, refusal
from models.tables import Order, StageChange
from models.webhooks import events as outbox
from models.webhooks.names import EventName


async def cancel_order(*, workspace_id: int, order_id: int, actor: Actor) -> None:
    """Operator cancel (`pressline order cancel`, an owner in the admin): stage `cancelled`,
    recorded as made by `actor`, unconsumed reservations released, `order.cancelled` recorded."""
    now = clock.now()

    async def cancel() -> None:
        await touch_customer(workspace_id, order_id, now)  # the customer, then its order
        query = Order.select(
            Order.id,
            Order.number,
            Order.stage,
            Order.customer,
            Order.stock_consumed,
            Order.revision,
            Order.external_ref,
            Order.total_cents,
            Order.currency,
            Order.customer.name,
            Order.customer.slug,
        ).where(Order.workspace == workspace_id, Order.id == order_id)
        if db.is_postgres():
            query = query.lock_rows("NO KEY UPDATE", of=(Order,))
        order = await query.first() if 0 < order_id <= MAX_ID else None
        if order is None:
            raise NotFoundError("Order not found")
        move = Move(
            number=order["number"],
            current=order["stage"],
            target="cancelled",
            artwork_approved=False,
            require_artwork_approval=False,
            strict_sequence=False,
        )
        reason = refusal(move, CANCEL_REFUSALS)
        if reason is not None:
            raise RuleRefused(reason, code=ErrorCode.STAGE_MOVE_REFUSED)
        await Order.update({Order.stage: "cancelled", Order.updated_at: now}).where(
            Order.id == order_id
        )
        await StageChange(
            workspace=workspace_id,
            order=order_id,
            from_stage=order["stage"],
            to_stage="cancelled",
            actor_kind=actor.kind,
            user=actor.user_id,
            token=actor.token_id,
            at=now,
        ).save()
        if not order["stock_consumed"]:
            await stock.release(
                await stock.order_quantities(order_id), now, order_id=order_id, actor=actor
            )
        await messages.queue_stage_message(
            workspace_id=workspace_id,
            order_id=order_id,
            customer_id=order["customer"],
            number=order["number"],
            to_stage="cancelled",
            now=now,
        )
        await outbox.record_event(
            workspace_id=workspace_id,
            name=EventName.ORDER_CANCELLED,
            fields=outbox.order_change_fields(
                order_id=order_id,
                order_number=order["number"],
                stage="cancelled",
                revision=order["revision"],
                customer={
                    "id": order["customer"],
                    "name": order["customer.name"],
                    "slug": order["customer.slug"],
                },
                external_ref=order["external_ref"],
                total_cents=order["total_cents"],
                currency=order["currency"],
            ),
            order_id=order_id,
            customer_id=order["customer"],
            occurred_at=now,
        )

    return await db.atomic(cancel)
