"""Operators' acts and reads on orders, invoices and customers (`pressline`), naming rows the
way people do: an order by id or `ORD-` number, an invoice by id or `INV-` number.

Ids are unique in the deployment; numbers only within a workspace, so a number that exists
in several workspaces needs the workspace (refused otherwise, naming them). The acts
themselves are the same domain functions the API and the demo use.
"""

from __future__ import annotations

from typing import Any

import msgspec

from models import accounts, artwork, statements
from models.actors import OPERATOR
from models.customers import queries as customer_queries
from models.errors import InvalidFields, NotFoundError, RuleRefused
from models.filters import MAX_ID, cannot_match
from models.invoices import payments
from models.orders import cancelling, stage_moves
from models.orders import queries as order_queries
from models.stages import STAGES
from models.tables import Artwork, Invoice, Order

ORDER_PREFIX = "ORD-"
INVOICE_PREFIX = "INV-"
MAX_NUMBER = 32  # the numbers' column width
MAX_LIST = 500


class OrderRef(msgspec.Struct, frozen=True):
    id: int
    workspace_id: int
    number: str
    timezone: str


class InvoiceRef(msgspec.Struct, frozen=True):
    id: int
    workspace_id: int
    number: str


def _named(table: Any, field: str, prefix: str, ref: str) -> tuple[Any, str]:
    """The condition selecting the row `ref` names (an id, or a number with `prefix`), and
    the name as shown in messages."""
    text = ref.strip()
    if cannot_match(text, MAX_NUMBER):  # NUL, or longer than any id or number
        raise NotFoundError(f"{field} not found: no id or {prefix} number is that long")
    if text.isascii() and text.isdigit():
        row_id = int(text)
        return table.id == (row_id if 0 < row_id <= MAX_ID else 0), text
    if text.upper().startswith(prefix) and len(text) <= MAX_NUMBER:
        return table.number == text.upper(), text.upper()
    raise InvalidFields({field: [f"give an {field} id or an {prefix} number"]})


async def _one(
    table: Any, field: str, prefix: str, ref: str, workspace_id: int | None, *extra: Any
) -> Any:
    """The one row `ref` names (within `workspace_id` when given), with its id, workspace,
    number and the `extra` columns; or why not."""
    where, text = _named(table, field, prefix, ref)
    if workspace_id is not None:
        where &= table.workspace == workspace_id
    rows = (
        await table.select(table.id, table.workspace, table.number, *extra)
        .where(where)
        .order_by(table.workspace)
    )
    if not rows:
        scope = "" if workspace_id is None else f" in workspace {workspace_id}"
        raise NotFoundError(f"{field} {text} not found{scope}")
    if len(rows) > 1:
        spaces = ", ".join(str(row["workspace"]) for row in rows)
        raise RuleRefused(
            f"{field} {text} exists in workspaces {spaces}: give --workspace to choose one"
        )
    return rows[0]


async def find_order(ref: str, workspace_id: int | None = None) -> OrderRef:
    """The order named by id or ORD- number, optionally only within one workspace."""
    row = await _one(Order, "order", ORDER_PREFIX, ref, workspace_id, Order.workspace.timezone)
    return OrderRef(
        id=row["id"],
        workspace_id=row["workspace"],
        number=row["number"],
        timezone=row["workspace.timezone"],
    )


async def find_invoice(ref: str, workspace_id: int | None = None) -> InvoiceRef:
    """The invoice named by id or INV- number, optionally only within one workspace."""
    row = await _one(Invoice, "invoice", INVOICE_PREFIX, ref, workspace_id)
    return InvoiceRef(id=row["id"], workspace_id=row["workspace"], number=row["number"])


# --- acts --------------------------------------------------------------------------------


class ArtworkState(msgspec.Struct, frozen=True):
    order_id: int
    order_number: str
    status: str
    version: int
    approved_at: str | None


async def _artwork_state(order: OrderRef) -> ArtworkState:
    row = (
        await Artwork.select(Artwork.status, Artwork.version, Artwork.approved_at)
        .where(Artwork.order == order.id)
        .first()
    ) or {"status": "awaiting_proof", "version": 0, "approved_at": None}
    return ArtworkState(
        order_id=order.id,
        order_number=order.number,
        status=row["status"],
        version=row["version"],
        approved_at=statements.iso_or_none(row["approved_at"]),
    )


async def send_proof(ref: str, workspace_id: int | None = None) -> ArtworkState:
    """A new proof of the order's artwork (version + 1, awaiting approval)."""
    order = await find_order(ref, workspace_id)
    await artwork.send_proof(workspace_id=order.workspace_id, order_id=order.id)
    return await _artwork_state(order)


async def approve_artwork(ref: str, workspace_id: int | None = None) -> ArtworkState:
    """The customer's approval of the current proof (records artwork.approved)."""
    order = await find_order(ref, workspace_id)
    await artwork.approve_artwork(workspace_id=order.workspace_id, order_id=order.id)
    return await _artwork_state(order)


class Cancelled(msgspec.Struct, frozen=True):
    order_id: int
    order_number: str
    stage: str


async def cancel_order(ref: str, workspace_id: int | None = None) -> Cancelled:
    order = await find_order(ref, workspace_id)
    await cancelling.cancel_order(
        workspace_id=order.workspace_id, order_id=order.id, actor=OPERATOR
    )
    return Cancelled(order_id=order.id, order_number=order.number, stage="cancelled")


async def advance_order(
    ref: str,
    workspace_id: int | None = None,
    *,
    to_stage: str,
    carrier: str | None = None,
    tracking_number: str | None = None,
) -> OrderDetail:
    """Move the order to `to_stage` as POST /orders/{id}/advance does (same rules, events and
    refusals), recorded as an operator's move; returns the order's detail."""
    order = await find_order(ref, workspace_id)
    await stage_moves.advance_order(
        workspace_id=order.workspace_id,
        order_id=order.id,
        to_stage=to_stage,
        carrier=carrier,
        tracking_number=tracking_number,
        actor=OPERATOR,
    )
    return await order_detail(str(order.id), order.workspace_id)


class InvoiceState(msgspec.Struct, frozen=True):
    id: int
    workspace_id: int
    number: str
    order_id: int
    order_number: str
    status: str
    total_cents: int
    currency: str
    issued_at: str | None
    paid_at: str | None


async def pay_invoice(ref: str, workspace_id: int | None = None) -> InvoiceState:
    """Mark an issued invoice paid (records invoice.paid)."""
    invoice = await find_invoice(ref, workspace_id)
    await payments.pay_invoice(workspace_id=invoice.workspace_id, number=invoice.number)
    row = await Invoice.select(
        Invoice.order,
        Invoice.order.number.as_alias("order_number"),
        Invoice.status,
        Invoice.total_cents,
        Invoice.currency,
        Invoice.issued_at,
        Invoice.paid_at,
    ).where(Invoice.id == invoice.id)
    return InvoiceState(
        id=invoice.id,
        workspace_id=invoice.workspace_id,
        number=invoice.number,
        order_id=row[0]["order"],
        order_number=row[0]["order_number"],
        status=row[0]["status"],
        total_cents=row[0]["total_cents"],
        currency=row[0]["currency"],
        issued_at=statements.iso_or_none(row[0]["issued_at"]),
        paid_at=statements.iso_or_none(row[0]["paid_at"]),
    )


# --- reads (the API's own reads; the command line shapes them with the API's builders) ----


class OrderDetail(msgspec.Struct, frozen=True):
    rows: order_queries.OrderRows
    timezone: str


async def order_detail(ref: str, workspace_id: int | None = None) -> OrderDetail:
    order = await find_order(ref, workspace_id)
    rows = await order_queries.get_order(order.workspace_id, order.id)
    if rows is None:  # deleted in between
        raise NotFoundError(f"order {ref} not found")
    return OrderDetail(rows=rows, timezone=order.timezone)


async def _workspace_zone(workspace_id: int) -> str:
    return (await accounts.get_workspace(workspace_id)).timezone


def _limit(limit: int) -> int:
    if not 1 <= limit <= MAX_LIST:
        raise InvalidFields({"limit": [f"must be between 1 and {MAX_LIST}"]})
    return limit


class OrderList(msgspec.Struct, frozen=True):
    total: int
    rows: list[order_queries.OrderRow]
    lines: list[order_queries.LineRow]
    timezone: str


async def list_orders(
    workspace_id: int,
    *,
    stage: str | None = None,
    customer_slug: str | None = None,
    limit: int = 50,
) -> OrderList:
    """A workspace's orders, newest first (as GET /orders), filtered as the API filters."""
    if stage is not None and stage not in STAGES:
        raise InvalidFields({"stage": [f"must be one of {', '.join(STAGES)}"]})
    timezone = await _workspace_zone(workspace_id)
    total, rows, lines = await order_queries.list_orders(
        workspace_id,
        stage=stage,
        customer_slug=customer_slug,
        updated_since=None,
        limit=_limit(limit),
        offset=0,
    )
    return OrderList(total=total, rows=rows, lines=lines, timezone=timezone)


class CustomerList(msgspec.Struct, frozen=True):
    total: int
    rows: list[customer_queries.CustomerListRow]
    order_counts: dict[int, tuple[int, int]]


async def list_customers(
    workspace_id: int, *, search: str | None = None, limit: int = 50
) -> CustomerList:
    """A workspace's customers by name (as GET /customers), optionally searched."""
    await accounts.get_workspace(workspace_id)
    total, rows, counts = await customer_queries.list_customers(
        workspace_id, search=search, updated_since=None, limit=_limit(limit), offset=0
    )
    return CustomerList(total=total, rows=rows, order_counts=counts)
