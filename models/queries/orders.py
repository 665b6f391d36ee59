"""Order reads: a list page in three statements (count, page, lines), detail in five."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any

from piccolo.query.methods.select import Select

from models.queries.filters import MAX_ID, equals
from models.tables import Artwork, Invoice, Order, OrderLine, StageChange

ORDER_COLUMNS = (
    Order.id,
    Order.number,
    Order.stage,
    Order.substage,
    Order.due_by,
    Order.dispatched_at,
    Order.carrier,
    Order.tracking_number,
    Order.external_ref,
    Order.subtotal_cents,
    Order.tax_cents,
    Order.total_cents,
    Order.currency,
    Order.created_at,
    Order.updated_at,
    Order.customer.id.as_alias("customer_id"),
    Order.customer.name.as_alias("customer_name"),
    Order.customer.slug.as_alias("customer_slug"),
)


def _filtered(
    query: Any,
    workspace_id: int,
    *,
    stage: str | None,
    customer_slug: str | None,
    updated_since: dt.datetime | None,
) -> Any:
    query = query.where(Order.workspace == workspace_id)
    if stage is not None:
        query = query.where(Order.stage == stage)
    if customer_slug is not None:
        query = query.where(equals(Order.customer.slug, customer_slug))
    if updated_since is not None:
        query = query.where(Order.updated_at >= updated_since)
    return query


async def list_orders(
    workspace_id: int,
    *,
    stage: str | None,
    customer_slug: str | None,
    updated_since: dt.datetime | None,
    limit: int,
    offset: int,
) -> tuple[int, list[dict[str, Any]], dict[int, list[dict[str, Any]]]]:
    """Total, one page of order rows (newest first) and their lines keyed by order id."""
    total = await _filtered(
        Order.count(),
        workspace_id,
        stage=stage,
        customer_slug=customer_slug,
        updated_since=updated_since,
    )
    if offset >= total:
        return total, [], {}
    page: Select = _filtered(
        Order.select(*ORDER_COLUMNS),
        workspace_id,
        stage=stage,
        customer_slug=customer_slug,
        updated_since=updated_since,
    )
    rows = await (
        page.order_by(Order.created_at, Order.id, ascending=False).limit(limit).offset(offset)
    )
    return total, rows, await lines_by_order([row["id"] for row in rows])


async def lines_by_order(order_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    if not order_ids:
        return {}
    rows = await (
        OrderLine.select(
            OrderLine.order,
            OrderLine.description,
            OrderLine.quantity,
            OrderLine.unit_price_cents,
            OrderLine.line_total_cents,
            OrderLine.sku.code.as_alias("sku"),
        )
        .where(OrderLine.order.is_in(order_ids))
        .order_by(OrderLine.order, OrderLine.position)
    )
    grouped: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[row.pop("order")].append(row)
    return grouped


async def get_order(workspace_id: int, order_id: int) -> dict[str, Any] | None:
    """The order with everything its detail shows, or None (also for other workspaces)."""
    if not 0 < order_id <= MAX_ID:
        return None
    row = await (
        Order.select(*ORDER_COLUMNS)
        .where(Order.workspace == workspace_id, Order.id == order_id)
        .first()
    )
    if row is None:
        return None
    row["lines"] = (await lines_by_order([order_id])).get(order_id, [])
    row["stage_history"] = await (
        StageChange.select(StageChange.from_stage, StageChange.to_stage, StageChange.at)
        .where(StageChange.order == order_id)
        .order_by(StageChange.at, StageChange.id)
    )
    row["invoices"] = await (
        Invoice.select(
            Invoice.number,
            Invoice.status,
            Invoice.total_cents,
            Invoice.currency,
            Invoice.issued_at,
            Invoice.paid_at,
        )
        .where(Invoice.order == order_id)
        .order_by(Invoice.id)
    )
    row["artwork"] = await (
        Artwork.select(Artwork.status, Artwork.version, Artwork.approved_at)
        .where(Artwork.order == order_id)
        .first()
    )
    return row
