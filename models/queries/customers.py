"""Customer reads: list rows with order counts, and detail with contacts and lifetime value."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any

from piccolo.query.functions.aggregate import Count, Sum

from models.queries.filters import MAX_ID, contains_ci
from models.stages import OPEN_STAGES
from models.tables import Contact, Customer, Invoice, Order

CUSTOMER_COLUMNS = (
    Customer.id,
    Customer.name,
    Customer.slug,
    Customer.payment_terms,
    Customer.default_carrier,
    Customer.updated_at,
    Customer.price_list.name.as_alias("price_list_name"),
    Customer.price_list.discount_percent.as_alias("discount_percent"),
)


def _filtered(
    query: Any, workspace_id: int, *, search: str | None, updated_since: dt.datetime | None
) -> Any:
    query = query.where(Customer.workspace == workspace_id)
    if search:
        query = query.where(contains_ci(Customer.name, search))
    if updated_since is not None:
        query = query.where(Customer.updated_at >= updated_since)
    return query


async def list_customers(
    workspace_id: int,
    *,
    search: str | None,
    updated_since: dt.datetime | None,
    limit: int,
    offset: int,
) -> tuple[int, list[dict[str, Any]]]:
    """Total and one page (by name, then id), each row with `orders_count` and `open_orders`."""
    total = await _filtered(
        Customer.count(), workspace_id, search=search, updated_since=updated_since
    )
    if offset >= total:
        return total, []
    rows = await (
        _filtered(
            Customer.select(*CUSTOMER_COLUMNS),
            workspace_id,
            search=search,
            updated_since=updated_since,
        )
        .order_by(Customer.name, Customer.id)
        .limit(limit)
        .offset(offset)
    )
    counts = await order_counts([row["id"] for row in rows])
    for row in rows:
        row["orders_count"], row["open_orders"] = counts.get(row["id"], (0, 0))
    return total, rows


async def order_counts(customer_ids: list[int]) -> dict[int, tuple[int, int]]:
    """customer id → (all orders, open orders), in one grouped statement."""
    if not customer_ids:
        return {}
    grouped = await (
        Order.select(Order.customer, Order.stage, Count(alias="n"))
        .where(Order.customer.is_in(customer_ids))
        .group_by(Order.customer, Order.stage)
    )
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for row in grouped:
        counts[row["customer"]][0] += row["n"]
        if row["stage"] in OPEN_STAGES:
            counts[row["customer"]][1] += row["n"]
    return {key: (value[0], value[1]) for key, value in counts.items()}


async def get_customer(workspace_id: int, customer_id: int) -> dict[str, Any] | None:
    if not 0 < customer_id <= MAX_ID:
        return None
    row = await (
        Customer.select(*CUSTOMER_COLUMNS)
        .where(Customer.workspace == workspace_id, Customer.id == customer_id)
        .first()
    )
    if row is None:
        return None
    row["contacts"] = await (
        Contact.select(Contact.name, Contact.email, Contact.phone, Contact.is_primary)
        .where(Contact.customer == customer_id)
        .order_by(Contact.is_primary, ascending=False)
        .order_by(Contact.id)
    )
    paid = await (
        Invoice.select(Sum(Invoice.total_cents, alias="ltv"))
        .where(Invoice.customer == customer_id, Invoice.status == "paid")
        .first()
    )
    row["lifetime_value_cents"] = int((paid or {}).get("ltv") or 0)
    return row
