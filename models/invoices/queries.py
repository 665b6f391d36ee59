"""Invoice reads for the API (and the admin's invoice page): a list page in two statements
(count, page), one invoice with its payments in two, on one connection. Every statement is
scoped to the workspace it is given."""

from __future__ import annotations

import datetime as dt
import functools
from typing import NamedTuple

import msgspec

from models import statements
from models.filters import MAX_ID, cannot_match
from models.statements import Select, Sql, Stamp

MAX_SLUG = 100  # customers.slug
MAX_NUMBER = 32  # invoices.number


class InvoiceRow(msgspec.Struct, array_like=True, frozen=True):
    """An invoice with its order and customer (COLUMNS)."""

    id: int
    number: str
    status: str
    total_cents: int
    paid_cents: int
    currency: str
    issued_at: Stamp | None
    due_at: Stamp | None
    paid_at: Stamp | None
    created_at: Stamp
    updated_at: Stamp
    order_id: int
    order_number: str
    customer_id: int
    customer_name: str
    customer_slug: str


class PaymentRow(msgspec.Struct, array_like=True, frozen=True):
    id: int
    amount_cents: int
    method: str
    reference: str | None
    paid_at: Stamp
    created_at: Stamp
    actor_kind: str
    user_name: str | None  # who recorded it: the staff member, or the token's owner
    voided_at: Stamp | None  # a voided payment no longer counts (models/invoices/voiding.py)
    void_reason: str | None
    voided_by_name: str | None  # who voided it; None for an operator

    @property
    def voided(self) -> bool:
        return self.voided_at is not None


COLUMNS = """
    i.id, i.number, i.status, i.total_cents, i.paid_cents, i.currency, UTC_TEXT(i.issued_at),
    UTC_TEXT(i.due_at), UTC_TEXT(i.paid_at), UTC_TEXT(i.created_at), UTC_TEXT(i.updated_at),
    o.id, o.number, c.id, c.name, c.slug
"""
FROM = """invoices i JOIN orders o ON o.id = i."order" JOIN customers c ON c.id = i.customer"""

ONE = Select(
    InvoiceRow,
    f"SELECT {COLUMNS} FROM {FROM} WHERE i.workspace = $1 AND i.id = $2 LIMIT 1",  # noqa: S608
)
ONE_BY_NUMBER = Select(
    InvoiceRow,
    f"SELECT {COLUMNS} FROM {FROM} WHERE i.workspace = $1 AND i.number = $2 LIMIT 1",  # noqa: S608
)
# The invoice id comes from a statement scoped to the workspace.
PAYMENTS = Select(
    PaymentRow,
    """
    SELECT p.id, p.amount_cents, p.method, p.reference, UTC_TEXT(p.paid_at),
        UTC_TEXT(p.created_at), p.actor_kind, u.name, UTC_TEXT(p.voided_at), p.void_reason,
        v.name
    FROM payments p LEFT JOIN users u ON u.id = p."user" LEFT JOIN users v ON v.id = p.voided_by
    WHERE p.invoice = $1
    ORDER BY p.paid_at, p.id
    """,
)


@functools.cache
def list_statements(
    status: bool, customer: bool, updated: bool, order: bool = False
) -> tuple[Sql, Select[InvoiceRow]]:
    """COUNT and page for one combination of filters ($1 is always the workspace)."""
    where, n = ["i.workspace = $1"], 1
    if status:
        n += 1
        where.append(f"i.status = ${n}")
    if customer:
        # The slug is unique in the workspace: one customer or none.
        n += 1
        where.append(
            f"i.customer = (SELECT id FROM customers WHERE workspace = $1 AND slug = ${n})"  # noqa: S608
        )
    if updated:
        n += 1
        where.append(f"i.updated_at >= ${n}")
    if order:
        # With the workspace condition, another workspace's order matches nothing.
        n += 1
        where.append(f'i."order" = ${n}')
    condition = " AND ".join(where)
    count = Sql(f"SELECT COUNT(*) FROM invoices i WHERE {condition}")  # noqa: S608 - constants
    page = Select(
        InvoiceRow,
        f"""
        SELECT {COLUMNS} FROM {FROM} WHERE {condition}
        ORDER BY i.created_at DESC, i.id DESC LIMIT ${n + 1} OFFSET ${n + 2}
        """,  # noqa: S608 - constant fragments
    )
    return count, page


async def list_invoices(
    workspace_id: int,
    *,
    status: str | None,
    customer_slug: str | None,
    updated_since: dt.datetime | None,
    limit: int,
    offset: int,
    order_id: int | None = None,
) -> tuple[int, list[InvoiceRow]]:
    """Total and one page of the workspace's invoices, newest first; `order_id` keeps the
    invoices of that order (none when it is not one of the workspace's)."""
    if customer_slug is not None and cannot_match(customer_slug, MAX_SLUG):
        return 0, []
    count, page = list_statements(
        status is not None,
        customer_slug is not None,
        updated_since is not None,
        order_id is not None,
    )
    given = (workspace_id, status, customer_slug, updated_since, order_id)
    args = [value for value in given if value is not None]
    async with statements.connection() as reader:
        return await statements.counted_page(reader, count, page, args, limit, offset)


def can_exist(invoice: int | str) -> bool:
    """An id in the ids' range, or a number that fits the column (without NUL)."""
    if isinstance(invoice, int):
        return 0 < invoice <= MAX_ID
    return not cannot_match(invoice, MAX_NUMBER)


class InvoiceRows(NamedTuple):
    invoice: InvoiceRow
    payments: list[PaymentRow]


async def get_invoice(workspace_id: int, invoice: int | str) -> InvoiceRows | None:
    """One invoice (by id, or by INV- number) with its payments, oldest first; None when the
    workspace has no such invoice."""
    if not can_exist(invoice):
        return None
    statement = ONE if isinstance(invoice, int) else ONE_BY_NUMBER
    async with statements.connection() as reader:
        row = await reader.one(statement, workspace_id, invoice)
        if row is None:
            return None
        return InvoiceRows(invoice=row, payments=await reader.all(PAYMENTS, row.id))
