"""The admin's customer pages: the list (with primary contact, open orders and lifetime value)
and a customer's page (fields, contacts, addresses, orders). A fixed number of statements per page,
whatever the number of rows: figures for a page's customers come grouped in one statement each.

Lifetime value is the sum of the customer's paid invoices, as the API's customer detail says.
"""

from __future__ import annotations

import functools
from decimal import Decimal

import msgspec

from models import statements
from models.customers.queries import (
    CUSTOMER_COLUMNS,
    CUSTOMER_FROM,
    AddressRow,
    ContactRow,
    CustomerListRow,
)
from models.filters import MAX_ID, cannot_match, contains_ci, contains_pattern
from models.stages import OPEN_LIST
from models.statements import Select, Sql, Stamp

MAX_NAME = 200  # customers.name
PAGE = 50
ORDERS_SHOWN = 50  # on a customer's page; the order list filtered by customer has the rest


class CustomerLine(msgspec.Struct, array_like=True, frozen=True):
    id: int
    name: str
    slug: str
    payment_terms: str
    price_list: str | None
    contact_name: str | None
    contact_email: str | None


class CustomerFigures(msgspec.Struct, array_like=True, frozen=True):
    customer_id: int
    orders: int
    open_orders: int


class CustomerValue(msgspec.Struct, array_like=True, frozen=True):
    customer_id: int
    paid_cents: int | Decimal  # SUM(bigint) is NUMERIC on PostgreSQL


@functools.cache
def list_statements(search: bool) -> tuple[Sql, Select[CustomerLine]]:
    where = "c.workspace = $1" + (f" AND {contains_ci('c.name', '$2')}" if search else "")
    n = 2 if search else 1
    count = Sql(f"SELECT COUNT(*) FROM customers c WHERE {where}")  # noqa: S608 - constants
    page = Select(
        CustomerLine,
        f"""
        SELECT c.id, c.name, c.slug, c.payment_terms, p.name, ct.name, ct.email
        FROM customers c
        LEFT JOIN price_lists p ON p.id = c.price_list
        LEFT JOIN contacts ct ON ct.customer = c.id AND ct.is_primary
        WHERE {where}
        ORDER BY c.name, c.id LIMIT ${n + 1} OFFSET ${n + 2}
        """,  # noqa: S608 - constant fragments
    )
    return count, page


FIGURES = Select(
    CustomerFigures,
    f"""
    SELECT customer, COUNT(*), SUM(CASE WHEN stage IN ({OPEN_LIST}) THEN 1 ELSE 0 END)
    FROM orders WHERE workspace = $1 AND customer = ANY($2)
    GROUP BY customer
    """,  # noqa: S608 - constant fragments
)
VALUES = Select(
    CustomerValue,
    """
    SELECT customer, SUM(total_cents) FROM invoices
    WHERE workspace = $1 AND customer = ANY($2) AND status = 'paid'
    GROUP BY customer
    """,
)
CURRENCY = Sql("SELECT currency FROM workspaces WHERE id = $1")


class CustomerListPage(msgspec.Struct, frozen=True):
    total: int
    rows: list[CustomerLine]
    figures: dict[int, CustomerFigures]
    paid: dict[int, int]
    currency: str


async def _currency(reader: statements.Reader, workspace_id: int) -> str:
    row = await reader.row(CURRENCY, workspace_id)
    return str(row[0]) if row else "GBP"


async def customer_list(workspace_id: int, *, search: str, offset: int) -> CustomerListPage:
    search = search.strip()
    async with statements.connection() as reader:
        currency = await _currency(reader, workspace_id)
        if search and cannot_match(search, MAX_NAME):
            return CustomerListPage(0, [], {}, {}, currency)
        count, page = list_statements(bool(search))
        args: list[object] = [workspace_id] + ([contains_pattern(search)] if search else [])
        total, rows = await statements.counted_page(reader, count, page, args, PAGE, offset)
        ids = [row.id for row in rows]
        figures = await reader.all(FIGURES, workspace_id, ids) if ids else []
        values = await reader.all(VALUES, workspace_id, ids) if ids else []
    return CustomerListPage(
        total=total,
        rows=rows,
        figures={row.customer_id: row for row in figures},
        paid={row.customer_id: int(row.paid_cents) for row in values},
        currency=currency,
    )


# --- one customer --------------------------------------------------------------------------------


class CustomerRecord(CustomerListRow, array_like=True, frozen=True):
    """The API's customer row (CUSTOMER_COLUMNS), then what only the admin shows, and the
    workspace's currency (lifetime value is shown in it)."""

    tax_exempt: bool | int  # SQLite gives 0/1
    created_at: Stamp
    currency: str


class ContactLine(ContactRow, array_like=True, frozen=True):
    """The API's contact row, then its id (the edit and remove links)."""

    id: int


class CustomerOrder(msgspec.Struct, array_like=True, frozen=True):
    id: int
    number: str
    stage: str
    due_by: Stamp | None
    total_cents: int
    currency: str
    created_at: Stamp


RECORD = Select(
    CustomerRecord,
    f"""
    SELECT {CUSTOMER_COLUMNS}, c.tax_exempt, UTC_TEXT(c.created_at), w.currency
    FROM {CUSTOMER_FROM} JOIN workspaces w ON w.id = c.workspace
    WHERE c.workspace = $1 AND c.id = $2
    """,  # noqa: S608 - constant fragments
)
CONTACTS = Select(
    ContactLine,
    """
    SELECT name, email, phone, is_primary, id FROM contacts
    WHERE workspace = $1 AND customer = $2
    ORDER BY is_primary DESC, created_at, id
    """,
)
# The default first, then in the order added (the API's order).
ADDRESSES = Select(
    AddressRow,
    """
    SELECT id, label, name, company, line1, line2, city, region, postal_code, country, phone,
           is_default
    FROM addresses WHERE workspace = $1 AND customer = $2
    ORDER BY is_default DESC, id
    """,
)
ORDERS = Select(
    CustomerOrder,
    """
    SELECT id, number, stage, UTC_TEXT(due_by), total_cents, currency, UTC_TEXT(created_at)
    FROM orders WHERE workspace = $1 AND customer = $2
    ORDER BY created_at DESC, id DESC LIMIT $3
    """,
)


class CustomerPage(msgspec.Struct, frozen=True):
    customer: CustomerRecord
    contacts: list[ContactLine]
    addresses: list[AddressRow]
    orders: list[CustomerOrder]
    figures: CustomerFigures
    paid_cents: int
    currency: str


async def customer_page(workspace_id: int, customer_id: int) -> CustomerPage | None:
    if not 0 < customer_id <= MAX_ID:
        return None
    async with statements.connection() as reader:
        customer = await reader.one(RECORD, workspace_id, customer_id)
        if customer is None:
            return None
        contacts = await reader.all(CONTACTS, workspace_id, customer_id)
        addresses = await reader.all(ADDRESSES, workspace_id, customer_id)
        orders = await reader.all(ORDERS, workspace_id, customer_id, ORDERS_SHOWN)
        figures = await reader.one(FIGURES, workspace_id, [customer_id])
        value = await reader.one(VALUES, workspace_id, [customer_id])
    return CustomerPage(
        customer=customer,
        contacts=contacts,
        addresses=addresses,
        orders=orders,
        figures=figures or CustomerFigures(customer_id, 0, 0),
        paid_cents=int(value.paid_cents) if value else 0,
        currency=customer.currency,
    )


async def customer_record(workspace_id: int, customer_id: int) -> CustomerRecord | None:
    """Only the customer's own fields (the edit form)."""
    if not 0 < customer_id <= MAX_ID:
        return None
    async with statements.connection() as reader:
        return await reader.one(RECORD, workspace_id, customer_id)


async def customer_addresses(workspace_id: int, customer_id: int) -> list[AddressRow]:
    """The customer's addresses, the default first (none for another workspace's customer):
    what an order's ship-to may be chosen from."""
    if not 0 < customer_id <= MAX_ID:
        return []
    async with statements.connection() as reader:
        return await reader.all(ADDRESSES, workspace_id, customer_id)
