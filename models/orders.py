"""Creating and cancelling orders: numbers, totals and tax, stock reservations, the plan limit.

Everything a create writes happens in one transaction that first locks the workspace row
(PostgreSQL), so concurrent creates in one workspace run one at a time: the open-order
count, the external_ref check and the next number are all read under that lock.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from zoneinfo import ZoneInfo

from models import clock, db, messages, plans, stock
from models.errors import InvalidFields, NotFoundError, RuleRefused
from models.numbering import local_year, next_number
from models.queries.filters import MAX_ID
from models.stages import CANCEL_REFUSALS, OPEN_STAGES, Move, refusal
from models.tables import (
    Artwork,
    Customer,
    Order,
    OrderLine,
    Sku,
    StageChange,
    Workspace,
)

# Money columns are signed 64-bit integers (minor units).
MAX_CENTS = 2**63 - 1


@dataclass(frozen=True)
class NewLine:
    description: str
    quantity: int
    unit_price_cents: int
    sku: str | None = None


@dataclass(frozen=True)
class Totals:
    line_totals: tuple[int, ...]
    subtotal_cents: int
    tax_cents: int
    total_cents: int


def round_half_up(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def compute_totals(lines: Sequence[NewLine], tax_rate: Decimal, tax_exempt: bool) -> Totals:
    """Prices are tax-exclusive; tax = round_half_up(subtotal * rate / 100), 0 when exempt.

    Raises InvalidFields when any amount would not fit the 64-bit money columns.
    """
    line_totals = tuple(line.quantity * line.unit_price_cents for line in lines)
    subtotal = sum(line_totals)
    too_large = InvalidFields(
        {"lines": ["The order total is larger than the largest amount that can be stored."]}
    )
    if subtotal > MAX_CENTS or any(total > MAX_CENTS for total in line_totals):
        raise too_large
    tax = 0 if tax_exempt else round_half_up(Decimal(subtotal) * tax_rate / 100)
    if subtotal + tax > MAX_CENTS:
        raise too_large
    return Totals(line_totals, subtotal, tax, subtotal + tax)


def local_midnight(day: dt.date, timezone: str) -> dt.datetime:
    """`due_by` is stored as 00:00 of its date in the workspace time zone."""
    return dt.datetime.combine(day, dt.time(), tzinfo=ZoneInfo(timezone))


async def _locked_workspace(workspace_id: int) -> dict[str, Any]:
    query = Workspace.select(
        Workspace.id,
        Workspace.plan,
        Workspace.trial_ends_at,
        Workspace.open_order_limit,
        Workspace.tax_rate,
        Workspace.currency,
        Workspace.timezone,
    ).where(Workspace.id == workspace_id)
    if db.is_postgres():
        # NO KEY UPDATE: serialises creates here without blocking inserts that reference it.
        query = query.lock_rows("NO KEY UPDATE")
    workspace = await query.first()
    if workspace is None:
        raise NotFoundError("Workspace not found")
    return workspace


async def _check_fields(
    workspace_id: int, customer_id: int, lines: Sequence[NewLine], external_ref: str | None
) -> tuple[dict[str, Any], dict[str, int]]:
    """The customer row and SKU ids by code; every problem found is raised together."""
    errors: dict[str, list[str]] = {}
    customer = None
    if 0 < customer_id <= MAX_ID:
        customer = await (
            Customer.select(Customer.id, Customer.tax_exempt)
            .where(Customer.workspace == workspace_id, Customer.id == customer_id)
            .first()
        )
    if customer is None:
        errors["customer_id"] = ["The selected customer_id is invalid."]
    if external_ref is not None:
        taken = await (
            Order.select(Order.id)
            .where(Order.workspace == workspace_id, Order.external_ref == external_ref)
            .first()
        )
        if taken is not None:
            errors["external_ref"] = [
                f"The external_ref has already been taken by order {taken['id']}."
            ]
    codes = sorted({line.sku for line in lines if line.sku is not None})
    sku_ids: dict[str, int] = {}
    if codes:
        rows = await Sku.select(Sku.id, Sku.code).where(
            Sku.workspace == workspace_id, Sku.code.is_in(codes)
        )
        sku_ids = {row["code"]: row["id"] for row in rows}
    for index, line in enumerate(lines):
        if line.sku is not None and line.sku not in sku_ids:
            errors[f"lines.{index}.sku"] = [f"The selected lines.{index}.sku is invalid."]
    if errors or customer is None:
        raise InvalidFields(errors)
    return customer, sku_ids


async def _check_open_order_limit(workspace: dict[str, Any], now: dt.datetime) -> None:
    plan = plans.effective_plan(workspace["plan"], workspace["trial_ends_at"], now)
    limit = plans.open_order_limit(plan, workspace["open_order_limit"])
    if limit is None:
        return
    open_orders = await Order.count().where(
        Order.workspace == workspace["id"], Order.stage.is_in(sorted(OPEN_STAGES))
    )
    if open_orders >= limit:
        raise RuleRefused(
            f"The workspace has reached its limit of {limit} open orders ({plan} plan); "
            "dispatch or cancel orders, or upgrade the plan."
        )


async def _check_reservations(
    lines: Sequence[NewLine], sku_ids: dict[str, int], reservations: Counter[int]
) -> None:
    over = await stock.over_reservation_limit(reservations)
    if over:
        raise InvalidFields(
            {
                f"lines.{index}.sku": [
                    f"The lines.{index}.sku reservation would exceed the SKU's stock limits."
                ]
                for index, line in enumerate(lines)
                if line.sku is not None and sku_ids[line.sku] in over
            }
        )


async def create_order(
    *,
    workspace_id: int,
    customer_id: int,
    lines: Sequence[NewLine],
    due_by: dt.date | None = None,
    notes: str = "",
    external_ref: str | None = None,
    user_id: int | None = None,
) -> int:
    """Create an order in `artwork` with its lines, first history entry, artwork row and
    stock reservations; returns its id. Raises InvalidFields or RuleRefused (plan limit)."""
    now = clock.now()
    async with db.transaction():
        workspace = await _locked_workspace(workspace_id)
        customer, sku_ids = await _check_fields(workspace_id, customer_id, lines, external_ref)
        reservations: Counter[int] = Counter()
        for line in lines:
            if line.sku is not None:
                reservations[sku_ids[line.sku]] += line.quantity
        await _check_reservations(lines, sku_ids, reservations)
        totals = compute_totals(lines, workspace["tax_rate"], customer["tax_exempt"])
        await _check_open_order_limit(workspace, now)
        year = local_year(now, workspace["timezone"])
        number, seq = await next_number(workspace_id=workspace_id, kind="order", year=year)
        order = Order(
            workspace=workspace_id,
            customer=customer_id,
            number=number,
            number_year=year,
            number_seq=seq,
            stage="artwork",
            due_by=local_midnight(due_by, workspace["timezone"]) if due_by else None,
            currency=workspace["currency"],
            subtotal_cents=totals.subtotal_cents,
            tax_cents=totals.tax_cents,
            total_cents=totals.total_cents,
            notes=notes,
            external_ref=external_ref,
            created_at=now,
            updated_at=now,
        )
        await order.save()
        await OrderLine.insert(
            *[
                OrderLine(
                    workspace=workspace_id,
                    order=order.id,
                    position=position,
                    description=line.description,
                    quantity=line.quantity,
                    unit_price_cents=line.unit_price_cents,
                    line_total_cents=totals.line_totals[position],
                    sku=sku_ids[line.sku] if line.sku is not None else None,
                )
                for position, line in enumerate(lines)
            ]
        )
        await StageChange(
            workspace=workspace_id,
            order=order.id,
            from_stage=None,
            to_stage="artwork",
            source="api" if user_id is not None else "operator",
            user=user_id,
            at=now,
        ).save()
        await Artwork(workspace=workspace_id, order=order.id, updated_at=now).save()
        await stock.reserve(reservations, now)
        # The customer's orders_count and open_orders changed.
        await Customer.update({Customer.updated_at: now}).where(Customer.id == customer_id)
    return int(order.id)


async def cancel_order(*, workspace_id: int, order_id: int) -> None:
    """Operator cancel: stage `cancelled`, unconsumed reservations released, no webhook event."""
    now = clock.now()
    async with db.transaction():
        query = Order.select(
            Order.id, Order.number, Order.stage, Order.customer, Order.stock_consumed
        ).where(Order.workspace == workspace_id, Order.id == order_id)
        if db.is_postgres():
            query = query.lock_rows("NO KEY UPDATE")
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
            raise RuleRefused(reason)
        await Order.update({Order.stage: "cancelled", Order.updated_at: now}).where(
            Order.id == order_id
        )
        await StageChange(
            workspace=workspace_id,
            order=order_id,
            from_stage=order["stage"],
            to_stage="cancelled",
            source="operator",
            at=now,
        ).save()
        if not order["stock_consumed"]:
            await stock.release(await stock.order_quantities(order_id), now)
        await messages.queue_stage_message(
            workspace_id=workspace_id,
            order_id=order_id,
            customer_id=order["customer"],
            number=order["number"],
            to_stage="cancelled",
            now=now,
        )
        await Customer.update({Customer.updated_at: now}).where(Customer.id == order["customer"])
