"""Payments against an invoice: a part or the whole of its balance, never more.

One function records every payment — the API's, the admin's form, and "mark paid" (a payment
of the balance) from the admin and `pressline invoice pay`. The invoice's row is locked
(PostgreSQL, after its customer's and order's rows, in the one lock order; SQLite's write
transaction already serialises writers), so two payments racing for the same balance are
checked one after the other: never paid twice, never below 0. Each
payment records `invoice.payment_received`; the one that brings the balance to 0 makes the
invoice `paid` and records `invoice.paid`, both in the payment's transaction.
"""

from __future__ import annotations

import datetime as dt

import msgspec

from models import clock, db, statements
from models.actors import OPERATOR, Actor
from models.errors import ErrorCode, InvalidFields, NotFoundError, RuleRefused
from models.filters import MAX_ID
from models.invoices import queries
from models.invoices.status import InvoiceStatus, PaymentMethod
from models.statements import Select
from models.tables import Customer, Invoice, Order, Payment
from models.webhooks import events as outbox
from models.webhooks.names import EventName

MAX_REFERENCE = 100
# A payment may be dated a little ahead of this server's clock (another machine's clock).
FUTURE_SLACK = dt.timedelta(minutes=5)
EARLIEST = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)  # no payment is older than the service


class Overpaid(InvalidFields):
    """The amount is more than the invoice's balance (`balance_cents`, which may be 0)."""

    def __init__(self, balance_cents: int, currency: str) -> None:
        self.balance_cents = balance_cents
        self.currency = currency
        super().__init__(
            {
                "amount_cents": [
                    "The amount_cents field must not be greater than the balance, "
                    f"{balance_cents} ({currency} minor units)."
                ]
            },
            code=ErrorCode.OVERPAYMENT,
            details={"balance_cents": balance_cents},
        )


class PaidInFuture(InvalidFields):
    def __init__(self) -> None:
        super().__init__({"paid_at": ["The paid_at field must not be in the future."]})


class PaidTooEarly(InvalidFields):
    def __init__(self) -> None:
        super().__init__({"paid_at": ["The paid_at field must not be before 1970-01-01."]})


class Locked(msgspec.Struct, array_like=True, frozen=True):
    """An invoice as a payment or a void (models/invoices/voiding.py) reads it, locked."""

    id: int
    number: str
    status: str
    total_cents: int
    paid_cents: int
    currency: str
    order_id: int
    order_number: str
    customer_id: int


_COLUMNS = """
    SELECT i.id, i.number, i.status, i.total_cents, i.paid_cents, i.currency, i."order",
        o.number, i.customer
    FROM invoices i JOIN orders o ON o.id = i."order"
"""
LOCK_BY_ID = Select(
    Locked, f"{_COLUMNS} WHERE i.workspace = $1 AND i.id = $2 FOR NO KEY UPDATE OF i"
)
LOCK_BY_NUMBER = Select(
    Locked, f"{_COLUMNS} WHERE i.workspace = $1 AND i.number = $2 FOR NO KEY UPDATE OF i"
)
# Before the invoice, its customer's and its order's rows (a settling payment writes both):
# every write locks customer, order, then invoice (docs/operations.md).
_OWNERS_BY_ID = statements.Sql(
    'SELECT customer, "order" FROM invoices WHERE workspace = $1 AND id = $2'
)
_OWNERS_BY_NUMBER = statements.Sql(
    'SELECT customer, "order" FROM invoices WHERE workspace = $1 AND number = $2'
)
_LOCK_CUSTOMER = statements.Sql("SELECT id FROM customers WHERE id = $1 FOR NO KEY UPDATE")
_LOCK_ORDER = statements.Sql("SELECT id FROM orders WHERE id = $1 FOR NO KEY UPDATE")


class Recorded(msgspec.Struct, frozen=True):
    """What a payment left: its id (None when mark-paid found nothing left to pay) and the
    invoice's figures after it."""

    invoice_id: int
    number: str
    payment_id: int | None
    status: InvoiceStatus
    paid_cents: int
    balance_cents: int
    currency: str


async def lock_invoice(workspace_id: int, invoice: int | str) -> Locked:
    """The invoice (by id or number), locked until the transaction ends: every write of its
    money (payments and voids) takes this lock first."""
    if not 0 < workspace_id <= MAX_ID or not queries.can_exist(invoice):
        raise NotFoundError("Invoice not found")
    by_id = isinstance(invoice, int)
    async with statements.connection() as conn:
        if db.is_postgres():  # SQLite's write transaction already serialises writers
            owners = await conn.row(
                _OWNERS_BY_ID if by_id else _OWNERS_BY_NUMBER, workspace_id, invoice
            )
            if owners is not None:  # an invoice's customer and order never change
                await conn.row(_LOCK_CUSTOMER, owners[0])
                await conn.row(_LOCK_ORDER, owners[1])
        row = await conn.one(LOCK_BY_ID if by_id else LOCK_BY_NUMBER, workspace_id, invoice)
    if row is None:
        raise NotFoundError("Invoice not found")
    return row


async def record_payment(
    *,
    workspace_id: int,
    invoice: int | str,
    amount_cents: int,
    method: PaymentMethod,
    reference: str | None = None,
    paid_at: dt.datetime | None = None,
    actor: Actor,
) -> Recorded:
    """Record a payment of `amount_cents` (1 to the balance) against the invoice named by id
    or INV- number; raises NotFoundError, RuleRefused (not an issued invoice), Overpaid,
    PaidInFuture or PaidTooEarly."""
    now = clock.now()

    async def pay() -> Recorded:
        row = await lock_invoice(workspace_id, invoice)
        return await _pay(row, workspace_id, amount_cents, method, reference, paid_at, actor, now)

    return await db.atomic(pay)


async def _pay(
    row: Locked,
    workspace_id: int,
    amount_cents: int,
    method: PaymentMethod,
    reference: str | None,
    paid_at: dt.datetime | None,
    actor: Actor,
    now: dt.datetime,
) -> Recorded:
    balance = row.total_cents - row.paid_cents
    if row.status not in (InvoiceStatus.ISSUED, InvoiceStatus.PAID):
        raise RuleRefused(
            f"Invoice {row.number} is {row.status}; only an issued invoice takes payments.",
            code=ErrorCode.INVOICE_NOT_PAYABLE,
        )
    if amount_cents < 1:
        raise InvalidFields({"amount_cents": ["The amount_cents field must be at least 1."]})
    if row.status == InvoiceStatus.PAID or amount_cents > balance:
        raise Overpaid(0 if row.status == InvoiceStatus.PAID else balance, row.currency)
    when = now if paid_at is None else _utc(paid_at)
    if when > now + FUTURE_SLACK:
        raise PaidInFuture
    if when < EARLIEST:
        raise PaidTooEarly
    reference = (reference or "").strip() or None
    payment = Payment(
        workspace=workspace_id,
        invoice=row.id,
        amount_cents=amount_cents,
        method=method.value,
        reference=reference,
        paid_at=when,
        created_at=now,
        actor_kind=actor.kind.value,
        user=actor.user_id,
        token=actor.token_id,
    )
    await payment.save()
    paid = row.paid_cents + amount_cents
    settled = paid == row.total_cents
    changes: dict[object, object] = {Invoice.paid_cents: paid, Invoice.updated_at: now}
    if settled:
        changes |= {Invoice.status: InvoiceStatus.PAID.value, Invoice.paid_at: when}
    await Invoice.update(changes).where(Invoice.id == row.id)  # type: ignore[arg-type]
    await outbox.record_event(
        workspace_id=workspace_id,
        name=EventName.INVOICE_PAYMENT_RECEIVED,
        fields=outbox.payment_fields(
            invoice_id=row.id,
            invoice_number=row.number,
            order_id=row.order_id,
            order_number=row.order_number,
            customer_id=row.customer_id,
            payment_id=payment.id,
            amount_cents=amount_cents,
            method=method.value,
            reference=reference,
            paid_cents=paid,
            balance_cents=row.total_cents - paid,
            currency=row.currency,
        ),
        order_id=row.order_id,
        customer_id=row.customer_id,
        occurred_at=now,
    )
    if settled:
        await _settled(row, workspace_id, now)
    return Recorded(
        invoice_id=row.id,
        number=row.number,
        payment_id=payment.id,
        status=InvoiceStatus.PAID if settled else InvoiceStatus.ISSUED,
        paid_cents=paid,
        balance_cents=row.total_cents - paid,
        currency=row.currency,
    )


def _utc(value: dt.datetime) -> dt.datetime:
    """A date-time without an offset is UTC, as everywhere in the API."""
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    try:
        return value.astimezone(dt.UTC)
    except OverflowError:  # 0001-01-01 in an offset east of UTC: before any date there is
        raise PaidTooEarly from None


async def _settled(row: Locked, workspace_id: int, now: dt.datetime) -> None:
    """The balance reached 0: the order shows its invoice paid and the customer's lifetime
    value counts it, so both move; `invoice.paid` is recorded once, here."""
    await Order.update({Order.updated_at: now}).where(Order.id == row.order_id)
    await Customer.update({Customer.updated_at: now}).where(Customer.id == row.customer_id)
    await outbox.record_event(
        workspace_id=workspace_id,
        name=EventName.INVOICE_PAID,
        fields=outbox.invoice_fields(
            order_id=row.order_id,
            order_number=row.order_number,
            invoice_id=row.id,
            invoice_number=row.number,
            invoice_status=InvoiceStatus.PAID,
            total=row.total_cents,
            currency=row.currency,
        ),
        order_id=row.order_id,
        customer_id=row.customer_id,
        occurred_at=now,
    )


async def pay_invoice(
    *,
    workspace_id: int,
    number: str,
    method: PaymentMethod = PaymentMethod.OTHER,
    reference: str | None = None,
    paid_at: dt.datetime | None = None,
    actor: Actor = OPERATOR,
) -> Recorded:
    """Mark an issued invoice paid: a payment of its whole balance, recorded as any other
    (a balance already 0, as for an invoice of nothing, just makes it paid)."""
    now = clock.now()

    async def pay() -> Recorded:
        row = await lock_invoice(workspace_id, number)
        if row.status != InvoiceStatus.ISSUED:
            raise RuleRefused(
                f"Invoice {number} is {row.status}; only an issued invoice can be paid.",
                code=ErrorCode.INVOICE_NOT_PAYABLE,
            )
        balance = row.total_cents - row.paid_cents
        if balance > 0:
            return await _pay(row, workspace_id, balance, method, reference, paid_at, actor, now)
        await Invoice.update(
            {
                Invoice.status: InvoiceStatus.PAID.value,
                Invoice.paid_at: now,
                Invoice.updated_at: now,
            }
        ).where(Invoice.id == row.id)
        await _settled(row, workspace_id, now)
        return Recorded(
            invoice_id=row.id,
            number=row.number,
            payment_id=None,
            status=InvoiceStatus.PAID,
            paid_cents=row.paid_cents,
            balance_cents=0,
            currency=row.currency,
        )

    return await db.atomic(pay)
