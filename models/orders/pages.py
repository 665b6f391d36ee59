"""The admin's order pages: the list (filters, 50 a page) and one order's page (the board is
models/orders/board.py). Each page is a fixed number of statements on one connection, whatever
the number of rows (tests/admin/test_orders.py counts them). Every statement is scoped to the
workspace: an order of another workspace is simply not found."""

from __future__ import annotations

import datetime as dt
import functools
from typing import NamedTuple

import msgspec

from models import statements
from models.filters import MAX_ID, cannot_match
from models.orders import search as order_search
from models.orders import ship_to
from models.orders.item_reads import ItemView, items_of
from models.orders.queries import (
    ORDER_COLUMNS,
    ORDER_FROM,
    ORDER_LINES,
    ArtworkStatus,
    LineRow,
    OrderRow,
    Stage,
)
from models.orders.search import Search
from models.orders.timeline import Invoice, Timeline, timeline
from models.stages import OPEN_LIST, STAGES
from models.statements import Reader, Select, Sql, Stamp

PER_PAGE = 50
MAX_SEARCH = 200  # customers.name, the longest column `q` looks in
ORDER_PREFIX = "ORD-"
MAX_NUMBER = 32  # orders.number
DUE_FILTERS = ("overdue", "week")


# --- the list ----------------------------------------------------------------------------------


class ListRow(msgspec.Struct, array_like=True, frozen=True):
    id: int
    number: str
    stage: Stage
    due_by: Stamp | None
    total_cents: int
    currency: str
    updated_at: Stamp
    customer_id: int
    customer_name: str
    artwork_status: ArtworkStatus | None


class SearchRow(ListRow, array_like=True, frozen=True):
    """A row of a search's page, with the number of matches (one statement for both)."""

    matches: int


class Filters(msgspec.Struct, frozen=True):
    """The list's filters as given (None: not filtering); `stage` is a stage or `open`."""

    stage: str | None = None
    customer_id: int | None = None
    q: str | None = None
    due: str | None = None


_LIST_COLUMNS = """
    SELECT o.id, o.number, o.stage, o.due_by, o.total_cents, o.currency,
           UTC_TEXT(o.updated_at), c.id, c.name, a.status
"""
_LIST_JOINS = 'JOIN customers c ON c.id = o.customer LEFT JOIN artwork a ON a."order" = o.id'


def _condition(stage: str | None, customer: bool, due: str | None) -> tuple[str, int]:
    """The filters' WHERE over `orders o` and its last placeholder ($1 is always the
    workspace; then each filter's values, in the order of `list_orders`)."""
    where, n = ["o.workspace = $1"], 1
    if stage == "open":
        where.append(f"o.stage IN ({OPEN_LIST})")
    elif stage is not None:
        n += 1
        where.append(f"o.stage = ${n}")
    if customer:
        n += 1
        where.append(f"o.customer = ${n}")
    if due == "overdue":  # still open after the day it was due
        n += 1
        where.append(f"o.stage IN ({OPEN_LIST}) AND o.due_by < ${n}")
    elif due == "week":  # due today or in the next six days
        n += 2
        where.append(f"o.due_by >= ${n - 1} AND o.due_by < ${n}")
    return " AND ".join(where), n


@functools.cache
def _list_statements(
    stage: str | None, customer: bool, due: str | None
) -> tuple[Sql, Select[ListRow]]:
    """COUNT and page for one combination of filters (LIMIT and OFFSET last)."""
    condition, n = _condition(stage, customer, due)
    count = Sql(f"SELECT COUNT(*) FROM orders o WHERE {condition}")  # noqa: S608 - constant fragments
    page = Select(
        ListRow,
        f"""{_LIST_COLUMNS} FROM orders o {_LIST_JOINS} WHERE {condition}
        ORDER BY o.created_at DESC, o.id DESC LIMIT ${n + 1} OFFSET ${n + 2}""",
    )
    return count, page


@functools.cache
def _search_statements(
    stage: str | None, customer: bool, due: str | None, search: Search
) -> tuple[Sql, Select[SearchRow]]:
    """COUNT and page of a search with these filters (the term's values after the filters'):
    both read only the matches (models/orders/search.py), never the workspace's
    orders. The page carries the count, so a page is one statement; COUNT alone is for a
    page past the last."""
    condition, n = _condition(stage, customer, due)
    hits = order_search.matching(condition, search, n + 1)
    n += order_search.PLACEHOLDERS[search]
    count = Sql(f"SELECT COUNT(*) FROM ({hits}) AS hits")  # noqa: S608 - constant fragments
    page = Select(  # the orders are read for the page's 50 ids only
        SearchRow,
        f"""WITH hits AS ({hits})
        {_LIST_COLUMNS}, (SELECT COUNT(*) FROM hits)
        FROM (
            SELECT id, created_at FROM hits
            ORDER BY created_at DESC, id DESC LIMIT ${n + 1} OFFSET ${n + 2}
        ) AS hit JOIN orders o ON o.id = hit.id {_LIST_JOINS}
        WHERE o.workspace = $1
        ORDER BY hit.created_at DESC, hit.id DESC""",  # noqa: S608 - constant fragments
    )
    return count, page


async def list_orders(
    workspace_id: int, filters: Filters, *, today: dt.datetime, page: int
) -> tuple[int, list[ListRow]]:
    """The total and one page (PER_PAGE, newest first) of the orders matching `filters`;
    `today` is 00:00 of today in the workspace's zone (due dates are stored as 00:00 of
    theirs, so an order due today is not overdue). What `q` matches: order_search.py."""
    q = filters.q or None
    if q is not None and cannot_match(q, MAX_SEARCH):
        return 0, []
    customer_id = filters.customer_id
    if customer_id is not None and not 0 < customer_id <= MAX_ID:
        return 0, []
    stage = filters.stage if filters.stage in (*STAGES, "open") else None
    due = filters.due if filters.due in DUE_FILTERS else None
    args: list[object] = [workspace_id]
    if stage is not None and stage != "open":
        args.append(stage)
    if customer_id is not None:
        args.append(customer_id)
    if due == "overdue":
        args.append(today)
    elif due == "week":
        args += [today, today + dt.timedelta(days=7)]
    offset = (page - 1) * PER_PAGE
    async with statements.connection() as reader:
        if q is None:
            count, rows = _list_statements(stage, customer_id is not None, due)
            return await statements.counted_page(reader, count, rows, args, PER_PAGE, offset)
        search = order_search.kind(q)
        args += order_search.parameters(q, search)
        count, found = _search_statements(stage, customer_id is not None, due, search)
        shown = await reader.all(found, *args, PER_PAGE, offset)
        if shown:
            return shown[0].matches, list(shown)
        counted = await reader.row(count, *args) if offset else None  # past the last page
        return (counted[0] if counted else 0), []


# --- one order -----------------------------------------------------------------------------------


class OrderHead(OrderRow, array_like=True, frozen=True):
    """The order with its customer (ORDER_COLUMNS), then its notes, the customer's default
    carrier and primary contact, and the artwork (NULLs without an artwork row)."""

    notes: str
    default_carrier: str
    contact_name: str | None
    contact_email: str | None
    contact_phone: str | None
    artwork_status: ArtworkStatus | None
    artwork_version: int | None
    artwork_approved_at: Stamp | None
    revision: int
    stock_consumed: bool
    ship_to: str | dict[str, str] | None  # JSON (models/orders/ship_to.py)
    prices_include_tax: bool = False  # line prices are gross

    def shipping(self) -> dict[str, str] | None:
        """The ship-to address copied onto the order, or None."""
        return ship_to.decode(self.ship_to)


_HEAD = f"""
    SELECT {ORDER_COLUMNS}, o.notes, c.default_carrier, p.name, p.email, p.phone,
           a.status, a.version, UTC_TEXT(a.approved_at), o.revision, o.stock_consumed,
           o.ship_to, o.prices_include_tax
    FROM {ORDER_FROM}
    LEFT JOIN contacts p ON p.id = (
        SELECT id FROM contacts WHERE customer = c.id AND is_primary ORDER BY id LIMIT 1
    )
    LEFT JOIN artwork a ON a."order" = o.id
    WHERE o.workspace = $1 AND {{key}} = $2
"""  # noqa: S608 - constant fragments
HEAD_BY_ID = Select(OrderHead, _HEAD.format(key="o.id"))
HEAD_BY_NUMBER = Select(OrderHead, _HEAD.format(key="o.number"))


class OrderPage(NamedTuple):
    """Everything the order's page shows, one read function (one statement, the timeline one
    per source) per part."""

    order: OrderHead
    lines: list[LineRow]
    invoices: list[Invoice]  # oldest first, read with the timeline
    items: list[ItemView]
    timeline: Timeline


def named(ref: str) -> tuple[Select[OrderHead], int | str] | None:
    """How `ref` names an order (an id, or an ORD- number in any case), or None (NUL, which
    PostgreSQL refuses, or more characters than any number: never sent to the database)."""
    text = ref.strip()
    if cannot_match(text, MAX_NUMBER):
        return None
    if text.isascii() and text.isdigit():
        order_id = int(text)
        return (HEAD_BY_ID, order_id) if 0 < order_id <= MAX_ID else None
    if text.upper().startswith(ORDER_PREFIX) and len(text) <= MAX_NUMBER:
        return HEAD_BY_NUMBER, text.upper()
    return None


async def head(reader: Reader, workspace_id: int, ref: str) -> OrderHead | None:
    """The order `ref` names in this workspace, or None."""
    found = named(ref)
    if found is None:
        return None
    select, key = found
    return await reader.one(select, workspace_id, key)


async def order_page(workspace_id: int, ref: str) -> OrderPage | None:
    """The order named by id or number with every part of its page, or None."""
    async with statements.connection() as reader:
        order = await head(reader, workspace_id, ref)
        if order is None:
            return None
        story = await timeline(reader, workspace_id, order.id)
        return OrderPage(
            order=order,
            lines=await reader.all(ORDER_LINES, order.id),
            invoices=story.invoices,
            items=await items_of(reader, workspace_id, order.id),
            timeline=story,
        )


async def find(workspace_id: int, ref: str) -> OrderHead | None:
    """Only the order `ref` names (for the pages that act on it)."""
    async with statements.connection() as reader:
        return await head(reader, workspace_id, ref)
