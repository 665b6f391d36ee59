"""Order reads: a list page in three statements (count, page, lines), detail in four, all on
one connection. Each SELECT's rows decode into the Struct declared above it (its columns, in
order); `OrderRows` is what an order's detail is built from (api/schemas/orders.py), read here
or made by the create from what it wrote (models/orders/creating.py)."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Awaitable, Callable
from typing import Any, Literal, NamedTuple

import msgspec

from models import statements
from models.errors import NotFoundError
from models.filters import MAX_ID, cannot_match
from models.orders.item_reads import ItemView, items_of
from models.pricing.breakdown import PriceBreakdown, PriceSource
from models.statements import Select, Sql, Stamp

MAX_SLUG = 100  # customers.slug
MAX_EXTERNAL_REF = 100  # orders.external_ref

# What the columns hold (models/stages.py, models/invoices/ and models/artwork.py write them).
Stage = Literal["artwork", "print_queue", "in_production", "qc_pack", "dispatched", "cancelled"]
InvoiceStatus = Literal["draft", "issued", "paid", "void"]
ArtworkStatus = Literal["awaiting_proof", "awaiting_approval", "approved", "changes_requested"]
ApprovalSource = Literal["customer", "recorded"]  # models.artwork.ApprovalSource


class OrderRow(msgspec.Struct, array_like=True, frozen=True):
    """An order with its customer (ORDER_COLUMNS)."""

    id: int
    number: str
    stage: Stage
    substage: str | None
    due_by: Stamp | None  # a datetime (PostgreSQL) or stored text: shown in the workspace zone
    dispatched_at: Stamp | None
    carrier: str | None
    tracking_number: str | None
    external_ref: str | None
    subtotal_cents: int
    tax_cents: int
    total_cents: int
    currency: str
    created_at: Stamp
    updated_at: Stamp
    customer_id: int
    customer_name: str
    customer_slug: str


class OrderDetailRow(OrderRow, array_like=True, frozen=True):
    """The order row followed by its artwork (NULLs without an artwork row)."""

    artwork_status: ArtworkStatus | None
    artwork_version: int | None
    artwork_approved_at: Stamp | None
    artwork_approved_by: str | None = None
    revision: int = 1
    ship_to: str | dict[str, str] | None = None  # JSON (models/orders/ship_to.py)
    artwork_approval_source: ApprovalSource | None = None
    artwork_approval_note: str | None = None
    prices_include_tax: bool = False

    @property
    def artwork(self) -> ArtworkRow | None:
        """The order's artwork, None without an artwork row."""
        if self.artwork_status is None:
            return None
        return ArtworkRow(
            status=self.artwork_status,
            version=self.artwork_version or 0,
            approved_at=self.artwork_approved_at,
            approved_by=self.artwork_approved_by,
            approval_source=self.artwork_approval_source,
            approval_note=self.artwork_approval_note,
        )


class ArtworkRow(msgspec.Struct, array_like=True, frozen=True):
    """An order's artwork row (models/artwork.py)."""

    status: ArtworkStatus
    version: int
    approved_at: Stamp | None
    approved_by: str | None
    approval_source: ApprovalSource | None  # null: approved before sources were recorded
    approval_note: str | None


class LineRow(msgspec.Struct, array_like=True, frozen=True):
    order_id: int
    description: str
    quantity: int
    unit_price_cents: int
    line_total_cents: int
    sku: str | None  # the SKU's code
    item_id: int | None = None  # the item it was made from (models/orders/items.py)
    price_source: PriceSource = PriceSource.TYPED
    price_breakdown: str | dict[str, Any] | PriceBreakdown | None = None  # JSON as stored


class HistoryRow(msgspec.Struct, array_like=True, frozen=True):
    from_stage: Stage | None
    to_stage: Stage
    at: Stamp


class ProofRow(msgspec.Struct, array_like=True, frozen=True):
    """One uploaded proof of an order (models/proofs.py), without its bytes."""

    version: int
    file_name: str
    content_type: str
    size: int
    created_at: Stamp
    customer_comment: str | None


class InvoiceRow(msgspec.Struct, array_like=True, frozen=True):
    id: int
    number: str
    status: InvoiceStatus
    total_cents: int
    currency: str
    issued_at: Stamp | None
    paid_at: Stamp | None


ORDER_COLUMNS = """
    o.id, o.number, o.stage, o.substage, o.due_by, UTC_TEXT(o.dispatched_at), o.carrier,
    o.tracking_number, o.external_ref, o.subtotal_cents, o.tax_cents, o.total_cents,
    o.currency, UTC_TEXT(o.created_at), UTC_TEXT(o.updated_at), c.id, c.name, c.slug
"""
ORDER_FROM = "orders o LEFT JOIN customers c ON c.id = o.customer"

# The lines of several orders, or of one. The order ids come from a statement scoped to the
# workspace.
LINES = Select(
    LineRow,
    """
    SELECT l."order", l.description, l.quantity, l.unit_price_cents, l.line_total_cents, s.code,
        l.item, l.price_source, l.price_breakdown
    FROM order_lines l LEFT JOIN skus s ON s.id = l.sku
    WHERE l."order" = ANY($1)
    ORDER BY l."order", l.position
    """,
)
ORDER_LINES = Select(
    LineRow,
    """
    SELECT l."order", l.description, l.quantity, l.unit_price_cents, l.line_total_cents, s.code,
        l.item, l.price_source, l.price_breakdown
    FROM order_lines l LEFT JOIN skus s ON s.id = l.sku
    WHERE l."order" = $1
    ORDER BY l.position
    """,
)
DETAIL = Select(
    OrderDetailRow,
    f"""
    SELECT {ORDER_COLUMNS}, a.status, a.version, UTC_TEXT(a.approved_at), a.approved_by,
        o.revision, o.ship_to, a.approval_source, a.approval_note, o.prices_include_tax
    FROM {ORDER_FROM} LEFT JOIN artwork a ON a."order" = o.id
    WHERE o.workspace = $1 AND o.id = $2
    LIMIT 1
    """,  # noqa: S608 - constant fragments
)
HISTORY = Select(
    HistoryRow,
    """
    SELECT from_stage, to_stage, UTC_TEXT(at) FROM stage_history
    WHERE "order" = $1 ORDER BY at, id
    """,
)
PROOFS = Select(
    ProofRow,
    """
    SELECT version, file_name, content_type, size, UTC_TEXT(created_at), customer_comment
    FROM artwork_proofs WHERE "order" = $1 ORDER BY version
    """,
)
ORDER_EXISTS = Sql("SELECT 1 FROM orders WHERE workspace = $1 AND id = $2")
# The order's artwork (an order without its row shows none), $1 workspace, $2 order.
ARTWORK = Select(
    ArtworkRow,
    """
    SELECT a.status, a.version, UTC_TEXT(a.approved_at), a.approved_by, a.approval_source,
        a.approval_note
    FROM orders o JOIN artwork a ON a."order" = o.id
    WHERE o.workspace = $1 AND o.id = $2
    LIMIT 1
    """,
)
INVOICES = Select(
    InvoiceRow,
    """
    SELECT id, number, status, total_cents, currency, UTC_TEXT(issued_at), UTC_TEXT(paid_at)
    FROM invoices WHERE "order" = $1 ORDER BY id
    """,
)


@functools.cache
def list_statements(
    stage: bool, customer: bool, updated: bool, external_ref: bool = False
) -> tuple[Sql, Select[OrderRow]]:
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
    if external_ref:  # unique in the workspace: one order or none
        n += 1
        where.append(f"o.external_ref = ${n}")
    condition = " AND ".join(where)
    count = Sql(f"SELECT COUNT(*) FROM orders o WHERE {condition}")  # noqa: S608 - constant fragments
    page = Select(
        OrderRow,
        f"""
        SELECT {ORDER_COLUMNS} FROM {ORDER_FROM} WHERE {condition}
        ORDER BY o.created_at DESC, o.id DESC LIMIT ${n + 1} OFFSET ${n + 2}
        """,  # noqa: S608 - constant fragments
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
    external_ref: str | None = None,
) -> tuple[int, list[OrderRow], list[LineRow]]:
    """Total, one page of order rows (newest first) and the lines of those orders (by order,
    then position)."""
    if customer_slug is not None and cannot_match(customer_slug, MAX_SLUG):
        return 0, [], []
    if external_ref is not None and cannot_match(external_ref, MAX_EXTERNAL_REF):
        return 0, [], []
    count, page = list_statements(
        stage is not None,
        customer_slug is not None,
        updated_since is not None,
        external_ref is not None,
    )
    given = (workspace_id, stage, customer_slug, updated_since, external_ref)
    args = [value for value in given if value is not None]
    async with statements.connection() as reader:
        total, rows = await statements.counted_page(reader, count, page, args, limit, offset)
        lines = await reader.all(LINES, [row.id for row in rows]) if rows else []
    return total, rows, lines


class OrderRows(NamedTuple):
    """An order's detail: the order row (with its artwork), its lines, stage history,
    invoices, proofs and items."""

    order: OrderDetailRow
    lines: list[LineRow]
    history: list[HistoryRow]
    invoices: list[InvoiceRow]
    proofs: list[ProofRow] | tuple[()] = ()  # none at create
    items: list[ItemView] | tuple[()] = ()


# A precondition on the order as it is now (its detail's rows and the workspace's time zone),
# checked under the order's lock by a write (the API's `If-Match`); raises StaleError when it
# does not hold.
Precondition = Callable[[OrderRows, str], Awaitable[None]]


async def check_precondition(
    precondition: Precondition, workspace_id: int, order_id: int, timezone: str
) -> None:
    """Run `precondition` on the order as the write's transaction sees it, once the write holds
    the order's lock: nothing can change it between the check and the write."""
    current = await get_order(workspace_id, order_id)
    if current is None:
        raise NotFoundError("Order not found")
    await precondition(current, timezone)


async def get_order(workspace_id: int, order_id: int) -> OrderRows | None:
    """The order with everything its detail shows, or None (also for other workspaces)."""
    if not 0 < order_id <= MAX_ID:
        return None
    # One snapshot: an edit committed between two of these reads (items, then their
    # imprints) would otherwise show half of it.
    async with statements.snapshot() as reader:
        order = await reader.one(DETAIL, workspace_id, order_id)
        if order is None:
            return None
        return OrderRows(
            order=order,
            lines=await reader.all(ORDER_LINES, order_id),
            history=await reader.all(HISTORY, order_id),
            invoices=await reader.all(INVOICES, order_id),
            proofs=await reader.all(PROOFS, order_id),
            items=await items_of(reader, workspace_id, order_id),
        )


async def get_artwork(
    workspace_id: int, order_id: int
) -> tuple[ArtworkRow | None, list[ProofRow]] | None:
    """The order's artwork row (None without one) and its proofs, oldest first; None for an
    order this workspace does not have. Read on the caller's transaction when there is one, so
    a write's answer shows what it wrote."""
    if not 0 < order_id <= MAX_ID:
        return None
    async with statements.connection() as reader:
        exists = await reader.row(ORDER_EXISTS, workspace_id, order_id)
        if exists is None:
            return None
        artwork = await reader.one(ARTWORK, workspace_id, order_id)
        return artwork, await reader.all(PROOFS, order_id)
