"""Order reads: a list page in three statements (count, page, lines), detail in four, all on
one connection; rows come back plain, in the column order given here."""

from __future__ import annotations

import datetime as dt
import functools
from typing import NamedTuple

from models import statements
from models.queries.filters import MAX_ID, cannot_match
from models.statements import Row, Sql

MAX_SLUG = 100  # customers.slug

# Order rows: id, number, stage, substage, due_by, dispatched_at, carrier, tracking_number,
# external_ref, subtotal_cents, tax_cents, total_cents, currency, created_at, updated_at,
# customer id, customer name, customer slug.
ORDER_COLUMNS = """
    o.id, o.number, o.stage, o.substage, o.due_by, UTC_TEXT(o.dispatched_at), o.carrier,
    o.tracking_number, o.external_ref, o.subtotal_cents, o.tax_cents, o.total_cents,
    o.currency, UTC_TEXT(o.created_at), UTC_TEXT(o.updated_at), c.id, c.name, c.slug
"""
ORDER_FROM = "orders o LEFT JOIN customers c ON c.id = o.customer"

# Line rows: order id, description, quantity, unit_price_cents, line_total_cents, SKU code,
# of several orders or of one. The order ids come from a statement scoped to the workspace.
LINES = Sql(
    """
    SELECT l."order", l.description, l.quantity, l.unit_price_cents, l.line_total_cents, s.code
    FROM order_lines l LEFT JOIN skus s ON s.id = l.sku
    WHERE l."order" = ANY($1)
    ORDER BY l."order", l.position
    """
)
ORDER_LINES = Sql(
    """
    SELECT l."order", l.description, l.quantity, l.unit_price_cents, l.line_total_cents, s.code
    FROM order_lines l LEFT JOIN skus s ON s.id = l.sku
    WHERE l."order" = $1
    ORDER BY l.position
    """
)
# The order row followed by its artwork: status, version, approved_at (NULLs without one).
DETAIL = Sql(
    f"""
    SELECT {ORDER_COLUMNS}, a.status, a.version, UTC_TEXT(a.approved_at)
    FROM {ORDER_FROM} LEFT JOIN artwork a ON a."order" = o.id
    WHERE o.workspace = $1 AND o.id = $2
    LIMIT 1
    """  # noqa: S608 - constant fragments
)
# from_stage, to_stage, at
HISTORY = Sql(
    """
    SELECT from_stage, to_stage, UTC_TEXT(at) FROM stage_history
    WHERE "order" = $1 ORDER BY at, id
    """
)
# number, status, total_cents, currency, issued_at, paid_at
INVOICES = Sql(
    """
    SELECT number, status, total_cents, currency, UTC_TEXT(issued_at), UTC_TEXT(paid_at)
    FROM invoices WHERE "order" = $1 ORDER BY id
    """
)


@functools.cache
def _list_statements(stage: bool, customer: bool, updated: bool) -> tuple[Sql, Sql]:
    """COUNT and page for one combination of filters ($1 is always the workspace)."""
    where, n = ["o.workspace = $1"], 1
    if stage:
        n += 1
        where.append(f"o.stage = ${n}")
    if customer:
        # The slug is unique in the workspace: one customer or none.
        n += 1
        where.append(
            f"o.customer = (SELECT id FROM customers WHERE workspace = $1 AND slug = ${n})"  # noqa: S608
        )
    if updated:
        n += 1
        where.append(f"o.updated_at >= ${n}")
    condition = " AND ".join(where)
    count = Sql(f"SELECT COUNT(*) FROM orders o WHERE {condition}")  # noqa: S608 - constant fragments
    page = Sql(
        f"""
        SELECT {ORDER_COLUMNS} FROM {ORDER_FROM} WHERE {condition}
        ORDER BY o.created_at DESC, o.id DESC LIMIT ${n + 1} OFFSET ${n + 2}
        """  # noqa: S608 - constant fragments
    )
    return count, page


async def list_orders(
    workspace_id: int,
    *,
    stage: str | None,
    customer_slug: str | None,
    updated_since: dt.datetime | None,
    limit: int,
    offset: int,
) -> tuple[int, list[Row], list[Row]]:
    """Total, one page of order rows (newest first) and the lines of those orders (by order,
    then position)."""
    if customer_slug is not None and cannot_match(customer_slug, MAX_SLUG):
        return 0, [], []
    count, page = _list_statements(
        stage is not None, customer_slug is not None, updated_since is not None
    )
    args = [
        value for value in (workspace_id, stage, customer_slug, updated_since) if value is not None
    ]
    async with statements.connection() as reader:
        total, rows = await statements.counted_page(reader, count, page, args, limit, offset)
        lines = await reader.rows(LINES, [row[0] for row in rows]) if rows else []
    return total, rows, lines


class OrderRows(NamedTuple):
    """An order's detail: the order row (with its artwork's three columns appended), its
    lines, stage history and invoices."""

    order: Row
    lines: list[Row]
    history: list[Row]
    invoices: list[Row]


async def get_order(workspace_id: int, order_id: int) -> OrderRows | None:
    """The order with everything its detail shows, or None (also for other workspaces)."""
    if not 0 < order_id <= MAX_ID:
        return None
    async with statements.connection() as reader:
        order = await reader.row(DETAIL, workspace_id, order_id)
        if order is None:
            return None
        return OrderRows(
            order=order,
            lines=await reader.rows(ORDER_LINES, order_id),
            history=await reader.rows(HISTORY, order_id),
            invoices=await reader.rows(INVOICES, order_id),
        )
