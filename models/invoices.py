"""Invoices: issued on dispatch (INV- numbers), marked paid by an operator; both emit events."""

from __future__ import annotations

import datetime as dt

from models import clock, db
from models.errors import NotFoundError, RuleRefused
from models.filters import MAX_ID
from models.numbering import local_year, next_number
from models.tables import Customer, Invoice, Order
from models.webhooks import events as outbox
from models.webhooks.names import EventName


async def issue_invoice(
    *,
    workspace_id: int,
    order_id: int,
    customer_id: int,
    order_number: str,
    total_cents: int,
    currency: str,
    timezone: str,
    now: dt.datetime,
) -> str:
    """Issue the order's invoice for its total and record `invoice.issued`; returns the number.

    Runs inside the caller's transaction (the dispatch), which holds the order's lock.
    """
    async with db.transaction():
        number, seq = await next_number(
            workspace_id=workspace_id, kind="invoice", year=local_year(now, timezone)
        )
        await Invoice(
            workspace=workspace_id,
            order=order_id,
            customer=customer_id,
            number=number,
            number_year=local_year(now, timezone),
            number_seq=seq,
            status="issued",
            total_cents=total_cents,
            currency=currency,
            issued_at=now,
            created_at=now,
            updated_at=now,
        ).save()
        await outbox.record_event(
            workspace_id=workspace_id,
            name=EventName.INVOICE_ISSUED,
            fields=outbox.invoice_fields(
                order_id=order_id,
                order_number=order_number,
                invoice_number=number,
                invoice_status="issued",
                total=total_cents,
                currency=currency,
            ),
            order_id=order_id,
            customer_id=customer_id,
            occurred_at=now,
        )
    return number


async def pay_invoice(*, workspace_id: int, number: str) -> None:
    """Mark an issued invoice paid (operator) and record `invoice.paid`, in one transaction."""
    now = clock.now()
    async with db.transaction():
        query = Invoice.select(
            Invoice.id,
            Invoice.status,
            Invoice.order,
            Invoice.customer,
            Invoice.total_cents,
            Invoice.currency,
            Invoice.order.number.as_alias("order_number"),
        ).where(Invoice.workspace == workspace_id, Invoice.number == number)
        if db.is_postgres():
            query = query.lock_rows("NO KEY UPDATE", of=(Invoice,))
        invoice = await query.first() if 0 < workspace_id <= MAX_ID else None
        if invoice is None:
            raise NotFoundError(f"Invoice {number} not found")
        if invoice["status"] != "issued":
            raise RuleRefused(
                f"Invoice {number} is {invoice['status']}; only an issued invoice can be paid."
            )
        await Invoice.update(
            {Invoice.status: "paid", Invoice.paid_at: now, Invoice.updated_at: now}
        ).where(Invoice.id == invoice["id"])
        # The order embeds its invoices; the customer's lifetime value counts paid ones.
        await Order.update({Order.updated_at: now}).where(Order.id == invoice["order"])
        await Customer.update({Customer.updated_at: now}).where(Customer.id == invoice["customer"])
        await outbox.record_event(
            workspace_id=workspace_id,
            name=EventName.INVOICE_PAID,
            fields=outbox.invoice_fields(
                order_id=invoice["order"],
                order_number=invoice["order_number"],
                invoice_number=number,
                invoice_status="paid",
                total=invoice["total_cents"],
                currency=invoice["currency"],
            ),
            order_id=invoice["order"],
            customer_id=invoice["customer"],
            occurred_at=now,
        )
