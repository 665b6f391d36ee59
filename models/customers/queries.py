"""Customer reads: list rows with order counts, and detail with contacts, addresses and
lifetime value.
Each SELECT's rows decode into the Struct declared above it (its columns, in order)."""

from __future__ import annotations

import datetime as dt
import functools
from decimal import Decimal
from typing import Literal, NamedTuple

import msgspec

from models import emails, statements
from models.filters import MAX_ID, cannot_match, contains_ci, contains_pattern
from models.stages import OPEN_STAGES
from models.statements import Select, Sql, Stamp

MAX_NAME = 200  # customers.name
MAX_EMAIL = 254  # contacts.email
MAX_EXTERNAL_REF = 100  # customers.external_ref
PaymentTerms = Literal["prepaid", "on_receipt", "net_7", "net_15", "net_30", "net_60"]


class CustomerListRow(msgspec.Struct, array_like=True, frozen=True):
    """A customer with its price list (CUSTOMER_COLUMNS; both price list columns NULL
    without one) and its primary contact's email (NULL without one)."""

    id: int
    name: str
    slug: str
    payment_terms: PaymentTerms
    default_carrier: str
    updated_at: Stamp
    price_list: str | None
    discount_percent: Decimal | float | None  # NUMERIC on PostgreSQL, REAL-like on SQLite
    external_ref: str | None
    primary_email: str | None


class CustomerDetailRow(CustomerListRow, array_like=True, frozen=True):
    """The customer row followed by its lifetime value (the sum of its paid invoices) and
    whether it is tax exempt."""

    lifetime_value_cents: int | Decimal | None  # SUM(bigint) is NUMERIC on PostgreSQL
    tax_exempt: bool | int  # SQLite gives 0/1


class OrderCountRow(msgspec.Struct, array_like=True, frozen=True):
    customer_id: int
    stage: str
    orders: int


class ContactRow(msgspec.Struct, array_like=True, frozen=True):
    name: str
    email: str
    phone: str
    is_primary: bool | int  # SQLite gives 0/1


class ContactWithId(ContactRow, array_like=True, frozen=True):
    id: int


class AddressRow(msgspec.Struct, array_like=True, frozen=True):
    id: int
    label: str
    name: str
    company: str
    line1: str
    line2: str
    city: str
    region: str
    postal_code: str
    country: str
    phone: str
    is_default: bool | int  # SQLite gives 0/1


# The primary contact is read in the same statement (a subquery on the contacts' (customer,
# is_primary) index), so a list page costs the same whatever its size.
CUSTOMER_COLUMNS = """
    c.id, c.name, c.slug, c.payment_terms, c.default_carrier, UTC_TEXT(c.updated_at),
    p.name, p.discount_percent, c.external_ref,
    (SELECT pc.email FROM contacts pc WHERE pc.customer = c.id AND pc.is_primary
     ORDER BY pc.id LIMIT 1)
"""
CUSTOMER_FROM = "customers c LEFT JOIN price_lists p ON p.id = c.price_list"

# The customer ids come from a statement scoped to the workspace.
ORDER_COUNTS = Select(
    OrderCountRow,
    """
    SELECT customer, stage, COUNT(*) FROM orders
    WHERE customer = ANY($1)
    GROUP BY customer, stage
    """,
)
DETAIL = Select(
    CustomerDetailRow,
    f"""
    SELECT {CUSTOMER_COLUMNS},
           (SELECT SUM(i.total_cents) FROM invoices i
            WHERE i.customer = c.id AND i.status = 'paid'),
           c.tax_exempt
    FROM {CUSTOMER_FROM}
    WHERE c.workspace = $1 AND c.id = $2
    LIMIT 1
    """,  # noqa: S608 - constant fragments
)
# The primary contact first, then in the order added.
CONTACTS = Select(
    ContactWithId,
    """
    SELECT name, email, phone, is_primary, id FROM contacts
    WHERE customer = $1
    ORDER BY is_primary DESC, id
    """,
)
# The default address first, then in the order added.
ADDRESSES = Select(
    AddressRow,
    """
    SELECT id, label, name, company, line1, line2, city, region, postal_code, country, phone,
           is_default
    FROM addresses
    WHERE customer = $1
    ORDER BY is_default DESC, id
    """,
)
# Customers with a contact of that email ($n, as models/emails.py `key` has it): ASCII letters
# in any case, nothing else folded.
_EMAIL = "EXISTS (SELECT 1 FROM contacts e WHERE e.customer = c.id AND ASCII_LOWER(e.email) = {})"


@functools.cache
def list_statements(
    search: bool, updated: bool, email: bool = False, external_ref: bool = False
) -> tuple[Sql, Select[CustomerListRow]]:
    """COUNT and page for one combination of filters ($1 is always the workspace)."""
    where, n = ["c.workspace = $1"], 1
    if search:
        n += 1
        where.append(contains_ci("c.name", f"${n}"))
    if updated:
        n += 1
        where.append(f"c.updated_at >= ${n}")
    if email:
        n += 1
        where.append(_EMAIL.format(f"${n}"))
    if external_ref:
        n += 1
        where.append(f"c.external_ref = ${n}")
    condition = " AND ".join(where)
    count = Sql(f"SELECT COUNT(*) FROM customers c WHERE {condition}")  # noqa: S608 - constant fragments
    page = Select(
        CustomerListRow,
        f"""
        SELECT {CUSTOMER_COLUMNS} FROM {CUSTOMER_FROM} WHERE {condition}
        ORDER BY c.name, c.id LIMIT ${n + 1} OFFSET ${n + 2}
        """,  # noqa: S608 - constant fragments
    )
    return count, page


async def list_customers(
    workspace_id: int,
    *,
    search: str | None,
    updated_since: dt.datetime | None,
    limit: int,
    offset: int,
    email: str | None = None,
    external_ref: str | None = None,
) -> tuple[int, list[CustomerListRow], dict[int, tuple[int, int]]]:
    """Total, one page of customer rows (by name, then id), and customer id → (orders in
    any stage, open orders) for the customers of the page that have orders. `email` and
    `external_ref` match exactly (the email's ASCII letters in any case)."""
    search = search or None  # an empty search does not filter
    if search is not None and cannot_match(search, MAX_NAME):
        return 0, [], {}
    if (email is not None and cannot_match(email, MAX_EMAIL)) or (
        external_ref is not None and len(external_ref) > MAX_EXTERNAL_REF
    ):
        return 0, [], {}  # NUL, or longer than the column: nothing can match
    count, page = list_statements(
        search is not None, updated_since is not None, email is not None, external_ref is not None
    )
    args: list[object] = [workspace_id]
    if search is not None:
        args.append(contains_pattern(search))
    if updated_since is not None:
        args.append(updated_since)
    if email is not None:
        args.append(emails.key(email))
    if external_ref is not None:
        args.append(external_ref)
    async with statements.connection() as reader:
        total, rows = await statements.counted_page(reader, count, page, args, limit, offset)
        grouped = await reader.all(ORDER_COUNTS, [row.id for row in rows]) if rows else []
    return total, rows, order_counts(grouped)


def order_counts(grouped: list[OrderCountRow]) -> dict[int, tuple[int, int]]:
    """Customer id → (orders in any stage, open orders), from ORDER_COUNTS."""
    counts: dict[int, tuple[int, int]] = {}
    for row in grouped:
        all_orders, open_orders = counts.get(row.customer_id, (0, 0))
        counts[row.customer_id] = (
            all_orders + row.orders,
            open_orders + (row.orders if row.stage in OPEN_STAGES else 0),
        )
    return counts


class CustomerRows(NamedTuple):
    """A customer's detail: the customer row (with its lifetime value), its contacts and its
    addresses."""

    customer: CustomerDetailRow
    contacts: list[ContactWithId]
    addresses: list[AddressRow]


async def get_customer(workspace_id: int, customer_id: int) -> CustomerRows | None:
    if not 0 < customer_id <= MAX_ID:
        return None
    async with statements.connection() as reader:
        customer = await reader.one(DETAIL, workspace_id, customer_id)
        if customer is None:
            return None
        contacts = await reader.all(CONTACTS, customer_id)
        return CustomerRows(customer, contacts, await reader.all(ADDRESSES, customer_id))
