"""Voiding a payment: money recorded that did not arrive or went back (a bounced cheque, a
refunded charge, a payment typed against the wrong invoice).

A voided payment keeps its row — with when, by whom and why — and stops counting: the
invoice's balance comes back, and an invoice the payment had settled is `issued` again (its
`paid_at` cleared; the order's and the customer's `updated_at` move, as when it was paid).
`payment.voided` is recorded in the same transaction. The invoice is locked as a payment locks
it (models/invoices/payments.py `lock_invoice`), so two voids of one payment at once are
taken one after the other: the second finds it voided and is refused. Only owners may void;
the API and the admin check the role before calling here.
"""

from __future__ import annotations

import datetime as dt

import msgspec

from models import clock, db, statements
from models.actors import Actor
from models.errors import ErrorCode, FieldErrors, NotFoundError, RuleRefused
from models.filters import MAX_ID
from models.invoices.payments import Locked, lock_invoice
from models.invoices.status import InvoiceStatus
from models.statements import Select, Sql, Stamp, when
from models.tables import Customer, Invoice, Order, Payment
from models.webhooks import events as outbox
from models.webhooks.names import EventName

MAX_REASON = 500  # payments.void_reason
NOT_FOUND = "Payment not found"

_INVOICE_OF = Sql("SELECT invoice FROM payments WHERE workspace = $1 AND id = $2")


class _Voidable(msgspec.Struct, array_like=True, frozen=True):
    amount_cents: int
    method: str
    reference: str | None
    voided_at: Stamp | None


# Read after the invoice's lock: no other void or payment of that invoice runs meanwhile.
_PAYMENT = Select(
    _Voidable,
    "SELECT amount_cents, method, reference, UTC_TEXT(voided_at) FROM payments WHERE id = $1",
)


class Voided(msgspec.Struct, frozen=True):
    """What a void left: the payment, and its invoice's figures after it (`reopened`: the
    invoice was paid and is issued again)."""

    invoice_id: int
    number: str
    payment_id: int
    amount_cents: int
    status: InvoiceStatus
    paid_cents: int
    balance_cents: int
    currency: str
    reopened: bool


def checked_reason(reason: str) -> str:
    """The reason trimmed: one line of 1 to MAX_REASON characters (InvalidFields `reason`)."""
    errors = FieldErrors()
    reason = errors.text("reason", reason, MAX_REASON)
    errors.check()
    return reason


async def void_payment(*, workspace_id: int, payment_id: int, reason: str, actor: Actor) -> Voided:
    """Void the workspace's payment `payment_id` for `reason`; raises InvalidFields (the
    reason), NotFoundError, or RuleRefused (already voided: PAYMENT_ALREADY_VOIDED; its
    invoice neither issued nor paid)."""
    reason = checked_reason(reason)
    if not 0 < workspace_id <= MAX_ID or not 0 < payment_id <= MAX_ID:
        raise NotFoundError(NOT_FOUND)
    now = clock.now()

    async def void() -> Voided:
        async with statements.connection() as conn:
            owner = await conn.row(_INVOICE_OF, workspace_id, payment_id)
        if owner is None:
            raise NotFoundError(NOT_FOUND)
        invoice = await lock_invoice(workspace_id, int(owner[0]))
        async with statements.connection() as conn:
            payment = await conn.one(_PAYMENT, payment_id)
        if payment is None:  # removed with its invoice meanwhile
            raise NotFoundError(NOT_FOUND)
        if payment.voided_at is not None:
            voided = when(payment.voided_at)
            raise RuleRefused(
                f"Payment {payment_id} was already voided on {voided:%Y-%m-%d at %H:%M} UTC; "
                "it no longer counts towards the invoice.",
                code=ErrorCode.PAYMENT_ALREADY_VOIDED,
                details={"payment_id": payment_id},
            )
        if invoice.status not in (InvoiceStatus.ISSUED, InvoiceStatus.PAID):
            raise RuleRefused(
                f"Invoice {invoice.number} is {invoice.status}; its payments cannot be voided."
            )
        await Payment.update(
            {Payment.voided_at: now, Payment.voided_by: actor.user_id, Payment.void_reason: reason}
        ).where(Payment.id == payment_id)
        return await _give_back(invoice, workspace_id, payment_id, payment, reason, now)

    return await db.atomic(void)


async def _give_back(
    invoice: Locked,
    workspace_id: int,
    payment_id: int,
    payment: _Voidable,
    reason: str,
    now: dt.datetime,
) -> Voided:
    """The invoice without the payment: its paid amount, its status, and the event."""
    paid = invoice.paid_cents - payment.amount_cents
    reopened = invoice.status == InvoiceStatus.PAID
    status = InvoiceStatus.ISSUED if reopened else InvoiceStatus(invoice.status)
    changes: dict[object, object] = {Invoice.paid_cents: paid, Invoice.updated_at: now}
    if reopened:
        changes |= {Invoice.status: status.value, Invoice.paid_at: None}
    await Invoice.update(changes).where(Invoice.id == invoice.id)  # type: ignore[arg-type]
    if reopened:  # the order shows its invoice unpaid, the customer's lifetime value drops
        await Order.update({Order.updated_at: now}).where(Order.id == invoice.order_id)
        await Customer.update({Customer.updated_at: now}).where(Customer.id == invoice.customer_id)
    balance = invoice.total_cents - paid
    await outbox.record_event(
        workspace_id=workspace_id,
        name=EventName.PAYMENT_VOIDED,
        fields=outbox.voided_fields(
            invoice_id=invoice.id,
            invoice_number=invoice.number,
            invoice_status=status.value,
            order_id=invoice.order_id,
            order_number=invoice.order_number,
            customer_id=invoice.customer_id,
            payment_id=payment_id,
            amount_cents=payment.amount_cents,
            method=payment.method,
            reference=payment.reference,
            reason=reason,
            paid_cents=paid,
            balance_cents=balance,
            currency=invoice.currency,
        ),
        order_id=invoice.order_id,
        customer_id=invoice.customer_id,
        occurred_at=now,
    )
    return Voided(
        invoice_id=invoice.id,
        number=invoice.number,
        payment_id=payment_id,
        amount_cents=payment.amount_cents,
        status=status,
        paid_cents=paid,
        balance_cents=balance,
        currency=invoice.currency,
        reopened=reopened,
    )
