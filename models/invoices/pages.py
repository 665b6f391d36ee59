"""The admin's invoice list: newest first, filtered by status, with the workspace's outstanding
total (issued and not yet paid), per currency."""

from __future__ import annotations

import functools
from decimal import Decimal
from enum import StrEnum

import msgspec

from models import statements
from models.statements import Select, Sql, Stamp

PAGE = 50


class InvoiceStatus(StrEnum):
    ISSUED = "issued"  # sent with the dispatched order, not yet paid
    PAID = "paid"


class InvoiceLine(msgspec.Struct, array_like=True, frozen=True):
    id: int
    number: str
    status: str
    total_cents: int
    currency: str
    issued_at: Stamp | None
    paid_at: Stamp | None
    order_number: str
    customer_id: int
    customer_name: str


class Outstanding(msgspec.Struct, array_like=True, frozen=True):
    currency: str
    invoices: int
    total_cents: int | Decimal


@functools.cache
def list_statements(status: bool) -> tuple[Sql, Select[InvoiceLine]]:
    where = "i.workspace = $1" + (" AND i.status = $2" if status else "")
    n = 2 if status else 1
    count = Sql(f"SELECT COUNT(*) FROM invoices i WHERE {where}")  # noqa: S608 - constants
    page = Select(
        InvoiceLine,
        f"""
        SELECT i.id, i.number, i.status, i.total_cents, i.currency, UTC_TEXT(i.issued_at),
               UTC_TEXT(i.paid_at), o.number, c.id, c.name
        FROM invoices i
        JOIN orders o ON o.id = i."order"
        JOIN customers c ON c.id = i.customer
        WHERE {where}
        ORDER BY i.created_at DESC, i.id DESC LIMIT ${n + 1} OFFSET ${n + 2}
        """,  # noqa: S608 - constant fragments
    )
    return count, page


OUTSTANDING = Select(
    Outstanding,
    """
    SELECT currency, COUNT(*), SUM(total_cents) FROM invoices
    WHERE workspace = $1 AND status = 'issued'
    GROUP BY currency ORDER BY currency
    """,
)


class InvoiceListPage(msgspec.Struct, frozen=True):
    total: int
    rows: list[InvoiceLine]
    outstanding: list[Outstanding]


async def invoice_list(
    workspace_id: int, *, status: InvoiceStatus | None, offset: int
) -> InvoiceListPage:
    count, page = list_statements(status is not None)
    args: list[object] = [workspace_id] + ([status.value] if status is not None else [])
    async with statements.connection() as reader:
        total, rows = await statements.counted_page(reader, count, page, args, PAGE, offset)
        outstanding = await reader.all(OUTSTANDING, workspace_id)
    return InvoiceListPage(total=total, rows=rows, outstanding=outstanding)
