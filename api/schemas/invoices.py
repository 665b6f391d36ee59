"""Invoices as the API shows them (list rows, detail with payments), the payment request body
and the `GET /invoices` query parameters."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, ClassVar, Literal

import msgspec

from api.params import PageNumber, UpdatedSince
from models.field_rules import NOT_BLANK, ONE_LINE
from models.filters import MAX_ID
from models.invoices.payments import MAX_REFERENCE
from models.invoices.queries import InvoiceRow, InvoiceRows, PaymentRow
from models.invoices.status import InvoiceStatus, PaymentMethod
from models.invoices.voiding import MAX_REASON
from models.schemas.common import Timestamp, UpdatedAt
from models.schemas.orders import CustomerRef
from models.statements import iso, iso_or_none
from models.structs import Input, Schema

MAX_AMOUNT_CENTS = 2**63 - 1  # the money columns' range
StatusName = Literal["draft", "issued", "paid", "void"]


class InvoiceListQuery(Schema):
    """`GET /invoices` parameters (docs/api.md §4.14)."""

    status: (
        Annotated[StatusName, msgspec.Meta(description="Only invoices in this status")] | None
    ) = None
    customer: (
        Annotated[
            str, msgspec.Meta(description="Customer slug; an unknown slug gives an empty list")
        ]
        | None
    ) = None
    order: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=MAX_ID,
                description="Only the invoices of this order (its numeric id); an order of "
                "another workspace, or none, gives an empty list",
            ),
        ]
        | None
    ) = None
    updated_since: UpdatedSince = None
    page: PageNumber = 1


class OrderRef(Schema):
    id: Annotated[int, msgspec.Meta(description="Numeric order id, used in paths")]
    number: str


class Payment(Schema):
    id: int
    amount_cents: Annotated[int, msgspec.Meta(description="Minor units of the invoice's currency")]
    method: PaymentMethod
    reference: Annotated[
        str | None, msgspec.Meta(description="The payer's or the bank's reference, or null")
    ]
    paid_at: Annotated[Timestamp, msgspec.Meta(description="When the money was received")]
    voided_at: (
        Annotated[
            Timestamp,
            msgspec.Meta(
                description="When an owner voided it (it no longer counts towards paid_cents); "
                "null while it counts"
            ),
        ]
        | None
    )
    void_reason: Annotated[
        str | None, msgspec.Meta(description="Why it was voided, as typed; null while it counts")
    ]


class InvoiceSummary(Schema):
    id: Annotated[int, msgspec.Meta(description="Numeric id, used in paths")]
    number: Annotated[
        str,
        msgspec.Meta(
            description="INV-<year>-<sequence>, per workspace and year, gapless. Not accepted "
            "in paths"
        ),
    ]
    status: InvoiceStatus
    order: OrderRef
    customer: CustomerRef
    total_cents: int
    paid_cents: Annotated[
        int, msgspec.Meta(description="The sum of the payments, voided ones left out")
    ]
    balance_cents: Annotated[
        int,
        msgspec.Meta(description="total_cents minus paid_cents: what a payment may be, at most"),
    ]
    currency: str
    issued_at: Timestamp | None
    # The description on the timestamp, not on the union: a Meta around `Timestamp | None`
    # would replace the timestamp's own schema (its date-time format) instead of adding to it.
    due_at: (
        Annotated[
            Timestamp,
            msgspec.Meta(
                description="issued_at plus the customer's payment terms when it was issued "
                "(prepaid and on_receipt: issued_at; net_N: N days later)"
            ),
        ]
        | None
    )
    paid_at: (
        Annotated[
            Timestamp,
            msgspec.Meta(description="When the payment that brought the balance to 0 was made"),
        ]
        | None
    )
    created_at: Timestamp
    updated_at: UpdatedAt


class InvoiceDetail(InvoiceSummary):
    payments: Annotated[list[Payment], msgspec.Meta(description="Oldest first (by paid_at)")]


class PaymentReceipt(Schema):
    """The answer to a payment: the payment made, and the invoice after it."""

    payment: Payment
    invoice: InvoiceDetail


class PaymentCreate(Input):
    amount_cents: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            le=MAX_AMOUNT_CENTS,
            description="Minor units, from 1 to the invoice's balance_cents (more is a 422 "
            "naming the balance)",
        ),
    ]
    method: PaymentMethod
    reference: (
        Annotated[
            str,
            msgspec.Meta(max_length=MAX_REFERENCE, pattern=ONE_LINE, description="Up to 100"),
        ]
        | None
    ) = None
    paid_at: (
        Annotated[
            dt.datetime,
            msgspec.Meta(
                description="When the money was received (ISO 8601; without an offset, UTC); "
                "default now. Not in the future"
            ),
        ]
        | None
    ) = None


class PaymentVoid(Input):
    """`POST /payments/{id}/void`: why the payment is voided."""

    noun: ClassVar[str] = "a void"

    reason: Annotated[
        str,
        msgspec.Meta(
            max_length=MAX_REASON,
            pattern=NOT_BLANK,
            description="Why (a bounced cheque, a refunded charge, the wrong invoice): one "
            "line, 1 to 500 characters; spaces around it are trimmed",
        ),
    ]


def invoice_body(row: InvoiceRow) -> InvoiceSummary:
    return InvoiceSummary(
        id=row.id,
        number=row.number,
        status=InvoiceStatus(row.status),
        order=OrderRef(id=row.order_id, number=row.order_number),
        customer=CustomerRef(id=row.customer_id, name=row.customer_name, slug=row.customer_slug),
        total_cents=row.total_cents,
        paid_cents=row.paid_cents,
        balance_cents=row.total_cents - row.paid_cents,
        currency=row.currency,
        issued_at=iso_or_none(row.issued_at),
        due_at=iso_or_none(row.due_at),
        paid_at=iso_or_none(row.paid_at),
        created_at=iso(row.created_at),
        updated_at=iso(row.updated_at),
    )


def invoice_bodies(rows: list[InvoiceRow]) -> list[InvoiceSummary]:
    return [invoice_body(row) for row in rows]


def payment_body(row: PaymentRow) -> Payment:
    return Payment(
        id=row.id,
        amount_cents=row.amount_cents,
        method=PaymentMethod(row.method),
        reference=row.reference,
        paid_at=iso(row.paid_at),
        voided_at=iso_or_none(row.voided_at),
        void_reason=row.void_reason,
    )


def invoice_detail_body(rows: InvoiceRows) -> InvoiceDetail:
    return InvoiceDetail(
        **msgspec.structs.asdict(invoice_body(rows.invoice)),
        payments=[payment_body(payment) for payment in rows.payments],
    )
