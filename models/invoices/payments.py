"""Paying an invoice: an operator marks it paid, recording `invoice.paid` in the same
transaction."""

from __future__ import annotations

from models import clock, db
from models.errors import NotFoundError, RuleRefused
from models.filters import MAX_ID
from models.tables import Customer, Invoice, Order
from models.webhooks import events as outbox
from models.webhooks.names import EventName


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
