"""Customer reads: list rows with order counts, and detail with contacts and lifetime value;
rows come back plain, in the column order given here."""

from __future__ import annotations

import datetime as dt
import functools
from typing import NamedTuple

from models import statements
from models.queries.filters import MAX_ID, cannot_match, contains_ci, contains_pattern
from models.stages import OPEN_STAGES
from models.statements import Row, Sql

MAX_NAME = 200  # customers.name

# Customer rows: id, name, slug, payment_terms, default_carrier, updated_at, price list name,
# price list discount_percent (both NULL without a price list).
CUSTOMER_COLUMNS = """
    c.id, c.name, c.slug, c.payment_terms, c.default_carrier, UTC_TEXT(c.updated_at),
    p.name, p.discount_percent
"""
CUSTOMER_FROM = "customers c LEFT JOIN price_lists p ON p.id = c.price_list"

# customer id, stage, number of orders; the customer ids come from a statement scoped to the
# workspace.
ORDER_COUNTS = Sql(
    """
    SELECT customer, stage, COUNT(*) FROM orders
    WHERE customer = ANY($1)
    GROUP BY customer, stage
    """
)
# The customer row followed by its lifetime value (the sum of its paid invoices, or NULL).
DETAIL = Sql(
    f"""
    SELECT {CUSTOMER_COLUMNS},
           (SELECT SUM(i.total_cents) FROM invoices i
            WHERE i.customer = c.id AND i.status = 'paid')
    FROM {CUSTOMER_FROM}
    WHERE c.workspace = $1 AND c.id = $2
    LIMIT 1
    """  # noqa: S608 - constant fragments
)
# name, email, phone, is_primary: the primary contact first, then in the order added.
CONTACTS = Sql(
    """
    SELECT name, email, phone, is_primary FROM contacts
    WHERE customer = $1
    ORDER BY is_primary DESC, id
    """
)


@functools.cache
def _list_statements(search: bool, updated: bool) -> tuple[Sql, Sql]:
    """COUNT and page for one combination of filters ($1 is always the workspace)."""
    where, n = ["c.workspace = $1"], 1
    if search:
        n += 1
        where.append(contains_ci("c.name", f"${n}"))
    if updated:
        n += 1
        where.append(f"c.updated_at >= ${n}")
    condition = " AND ".join(where)
    count = Sql(f"SELECT COUNT(*) FROM customers c WHERE {condition}")  # noqa: S608 - constant fragments
    page = Sql(
        f"""
        SELECT {CUSTOMER_COLUMNS} FROM {CUSTOMER_FROM} WHERE {condition}
        ORDER BY c.name, c.id LIMIT ${n + 1} OFFSET ${n + 2}
        """  # noqa: S608 - constant fragments
    )
    return count, page


async def list_customers(
    workspace_id: int,
    *,
    search: str | None,
    updated_since: dt.datetime | None,
    limit: int,
    offset: int,
) -> tuple[int, list[Row], dict[int, tuple[int, int]]]:
    """Total, one page of customer rows (by name, then id), and customer id → (orders in
    any stage, open orders) for the customers of the page that have orders."""
    search = search or None  # an empty search does not filter
    if search is not None and cannot_match(search, MAX_NAME):
        return 0, [], {}
    count, page = _list_statements(search is not None, updated_since is not None)
    args: list[object] = [workspace_id]
    if search is not None:
        args.append(contains_pattern(search))
    if updated_since is not None:
        args.append(updated_since)
    async with statements.connection() as reader:
        total, rows = await statements.counted_page(reader, count, page, args, limit, offset)
        grouped = await reader.rows(ORDER_COUNTS, [row[0] for row in rows]) if rows else []
    counts: dict[int, tuple[int, int]] = {}
    for customer_id, stage, n in grouped:
        all_orders, open_orders = counts.get(customer_id, (0, 0))
        counts[customer_id] = (
            all_orders + n,
            open_orders + (n if stage in OPEN_STAGES else 0),
        )
    return total, rows, counts


class CustomerRows(NamedTuple):
    """A customer's detail: the customer row (with its lifetime value appended) and its
    contacts."""

    customer: Row
    contacts: list[Row]


async def get_customer(workspace_id: int, customer_id: int) -> CustomerRows | None:
    if not 0 < customer_id <= MAX_ID:
        return None
    async with statements.connection() as reader:
        customer = await reader.row(DETAIL, workspace_id, customer_id)
        if customer is None:
            return None
        return CustomerRows(customer, await reader.rows(CONTACTS, customer_id))
