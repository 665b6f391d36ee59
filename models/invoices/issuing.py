"""Issuing an invoice: on dispatch, for the order's total, numbered INV-<year>-<seq>, due by the
customer's payment terms, with its `invoice.issued` event in the same transaction."""

from __future__ import annotations

import datetime as dt

from models import db
from models.invoices.status import InvoiceStatus
from models.invoices.terms import due_at
from models.numbering import local_year, next_number
from models.tables import Customer, Invoice
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

    async def write() -> str:
        customer = (
            await Customer.select(Customer.payment_terms).where(Customer.id == customer_id).first()
        )
        terms = customer["payment_terms"] if customer else ""
        number, seq = await next_number(
            workspace_id=workspace_id, kind="invoice", year=local_year(now, timezone)
        )
        invoice = Invoice(
            workspace=workspace_id,
            order=order_id,
            customer=customer_id,
            number=number,
            number_year=local_year(now, timezone),
            number_seq=seq,
            status=InvoiceStatus.ISSUED,
            total_cents=total_cents,
            currency=currency,
            issued_at=now,
            due_at=due_at(now, terms),
            paid_cents=0,
            created_at=now,
            updated_at=now,
        )
        await invoice.save()
        await outbox.record_event(
            workspace_id=workspace_id,
            name=EventName.INVOICE_ISSUED,
            fields=outbox.invoice_fields(
                order_id=order_id,
                order_number=order_number,
                invoice_id=int(invoice.id),
                invoice_number=number,
                invoice_status=InvoiceStatus.ISSUED,
                total=total_cents,
                currency=currency,
            ),
            order_id=order_id,
            customer_id=customer_id,
            occurred_at=now,
        )
        return number

    return await db.atomic(write)
