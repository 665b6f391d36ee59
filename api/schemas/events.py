"""The events feed's rows, and the webhook bodies they carry (which also document the
`webhooks` section of the OpenAPI schema)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal

import msgspec

from api.params import INSTANT, PageNumber
from api.validation import TextFormat, Unreadable
from models.filters import MAX_ID
from models.orders.queries import InvoiceStatus, Stage
from models.queries.events import EventRow
from models.schemas.common import LocalTimestamp, Timestamp
from models.schemas.orders import CustomerRef
from models.statements import iso
from models.structs import Schema
from models.webhooks.names import EVENT_NAMES

EventType = Literal[
    "order.stage_changed",
    "order.dispatched",
    "invoice.issued",
    "invoice.paid",
    "artwork.approved",
    "order.created",
    "order.updated",
    "order.cancelled",
    "customer.created",
    "customer.updated",
    "invoice.payment_received",
    "payment.voided",
    "artwork.proof_sent",
    "artwork.changes_requested",
]

EventId = Annotated[
    str,
    msgspec.Meta(
        extra_json_schema={
            "description": "The event's id (a UUID): the same as the webhook's `event_id`",
            "extra": {"format": "uuid"},
        }
    ),
]
OccurredAt = Annotated[
    Timestamp, msgspec.Meta(description="When the change happened (UTC, whole seconds)")
]
OrderId = Annotated[
    int,
    msgspec.Meta(description="The order's numeric id, as `GET /api/v1/orders/{order_id}` takes"),
]
WorkspaceId = Annotated[
    int,
    msgspec.Meta(
        description="The workspace (print shop) the event belongs to, by its numeric id; each "
        "webhook request carries it in `X-SVC-Workspace` too"
    ),
]


# --- webhook bodies (models/outbox.py writes them; keys in this order) --------------------


class OrderEvent(Schema, tag_field="event"):
    """`order.stage_changed` and `order.dispatched`: an order moved (API or operator)."""

    event_id: EventId
    occurred_at: OccurredAt
    workspace_id: WorkspaceId
    order_id: OrderId
    order_number: str
    from_stage: Annotated[Stage | None, msgspec.Meta(description="null for the first stage")]
    to_stage: Stage
    customer: CustomerRef
    due_by: LocalTimestamp | None


class OrderStageChanged(OrderEvent, tag="order.stage_changed"):
    """An order moved to any stage other than `dispatched`."""


class OrderDispatched(OrderEvent, tag="order.dispatched"):
    """An order was dispatched."""

    carrier: Annotated[str | None, msgspec.Meta(description="Extension: the carrier, or null")]
    tracking_number: Annotated[
        str | None, msgspec.Meta(description="Extension: the tracking number, or null")
    ]


class InvoiceEvent(Schema, tag_field="event"):
    """`invoice.issued` and `invoice.paid`."""

    event_id: EventId
    occurred_at: OccurredAt
    workspace_id: WorkspaceId
    order_id: Annotated[int, msgspec.Meta(description="Extension: the invoiced order's id")]
    order_number: str
    invoice_id: Annotated[
        int, msgspec.Meta(description="Extension: the invoice's id, as GET /v1/invoices/{id} takes")
    ]
    invoice_number: Annotated[str, msgspec.Meta(description="INV-<year>-<sequence>")]
    invoice_status: InvoiceStatus
    total: Annotated[int, msgspec.Meta(description="Minor units (pence, cents)")]
    currency: str


class InvoiceIssued(InvoiceEvent, tag="invoice.issued"):
    """An invoice was issued (on dispatch, or by an operator)."""


class InvoicePaid(InvoiceEvent, tag="invoice.paid"):
    """An operator marked an invoice paid."""


class ArtworkApproved(Schema, tag_field="event", tag="artwork.approved"):
    """The customer approved the current artwork proof."""

    event_id: EventId
    occurred_at: OccurredAt
    workspace_id: WorkspaceId
    order_id: Annotated[int, msgspec.Meta(description="Extension: the order's id")]
    order_number: str
    artwork_version: Annotated[int, msgspec.Meta(description="The approved proof's version")]


class ArtworkProofSent(Schema, tag_field="event", tag="artwork.proof_sent"):
    """A new artwork proof was sent: the order's artwork awaits the customer's approval of
    this version (emailed to the customer's primary contact when the shop uploaded a file)."""

    event_id: EventId
    occurred_at: OccurredAt
    workspace_id: WorkspaceId
    order_id: Annotated[int, msgspec.Meta(description="Extension: the order's id")]
    order_number: str
    artwork_version: Annotated[int, msgspec.Meta(description="The new proof's version")]


class ArtworkChangesRequested(Schema, tag_field="event", tag="artwork.changes_requested"):
    """The customer asked for changes to the current proof on its page: a new proof is
    needed before the artwork can be approved."""

    event_id: EventId
    occurred_at: OccurredAt
    workspace_id: WorkspaceId
    order_id: Annotated[int, msgspec.Meta(description="Extension: the order's id")]
    order_number: str
    artwork_version: Annotated[
        int, msgspec.Meta(description="The version the customer asked to change")
    ]
    comment: Annotated[
        str, msgspec.Meta(description="What the customer asked for, as typed (1-2,000 characters)")
    ]


class OrderChange(Schema, tag_field="event"):
    """`order.created`, `order.updated`, `order.cancelled`: the order after
    the change."""

    event_id: EventId
    occurred_at: OccurredAt
    workspace_id: WorkspaceId
    order_id: OrderId
    order_number: str
    customer_id: int
    customer: CustomerRef
    stage: Stage
    revision: Annotated[int, msgspec.Meta(description="The order's revision after the change")]
    external_ref: str | None
    total_cents: int
    currency: str


class OrderCreated(OrderChange, tag="order.created"):
    """An order was created (API, admin or command line)."""


class OrderUpdated(OrderChange, tag="order.updated"):
    """An order was edited."""

    changed: Annotated[
        list[Literal["due_by", "notes", "external_ref", "lines", "items", "ship_to"]],
        msgspec.Meta(description="What the edit was given"),
    ]


class OrderCancelled(OrderChange, tag="order.cancelled"):
    """An order was cancelled (by an operator or an owner)."""


class CustomerChange(Schema, tag_field="event"):
    """`customer.created` and `customer.updated`: the customer after the change."""

    event_id: EventId
    occurred_at: OccurredAt
    workspace_id: WorkspaceId
    customer_id: int
    name: str
    slug: str
    external_ref: str | None


class CustomerCreated(CustomerChange, tag="customer.created"):
    """A customer was created."""


class CustomerUpdated(CustomerChange, tag="customer.updated"):
    """A customer's details changed."""


class PaymentReceived(Schema, tag_field="event", tag="invoice.payment_received"):
    """A payment was recorded against an invoice (part or all of its balance)."""

    event_id: EventId
    occurred_at: OccurredAt
    workspace_id: WorkspaceId
    invoice_id: int
    invoice_number: str
    order_id: OrderId
    order_number: str
    customer_id: int
    payment_id: int
    amount_cents: int
    method: str
    reference: str | None
    paid_cents: Annotated[int, msgspec.Meta(description="Paid so far, this payment included")]
    balance_cents: Annotated[int, msgspec.Meta(description="Left to pay")]
    currency: str


class PaymentVoided(Schema, tag_field="event", tag="payment.voided"):
    """An owner voided a payment: it no longer counts, and its invoice's balance came back."""

    event_id: EventId
    occurred_at: OccurredAt
    workspace_id: WorkspaceId
    invoice_id: int
    invoice_number: str
    invoice_status: Annotated[
        InvoiceStatus,
        msgspec.Meta(description="After the void: `issued` again when the invoice was paid"),
    ]
    order_id: OrderId
    order_number: str
    customer_id: int
    payment_id: int
    amount_cents: Annotated[int, msgspec.Meta(description="The voided payment's amount")]
    method: str
    reference: str | None
    reason: Annotated[str, msgspec.Meta(description="Why it was voided, as typed")]
    paid_cents: Annotated[int, msgspec.Meta(description="Paid so far, without this payment")]
    balance_cents: Annotated[int, msgspec.Meta(description="Left to pay")]
    currency: str


WebhookBody = (
    OrderStageChanged
    | OrderDispatched
    | InvoiceIssued
    | InvoicePaid
    | ArtworkApproved
    | OrderCreated
    | OrderUpdated
    | OrderCancelled
    | CustomerCreated
    | CustomerUpdated
    | PaymentReceived
    | PaymentVoided
    | ArtworkProofSent
    | ArtworkChangesRequested
)
WEBHOOK_BODIES: dict[str, type[Schema]] = {
    "order.stage_changed": OrderStageChanged,
    "order.dispatched": OrderDispatched,
    "invoice.issued": InvoiceIssued,
    "invoice.paid": InvoicePaid,
    "artwork.approved": ArtworkApproved,
    "order.created": OrderCreated,
    "order.updated": OrderUpdated,
    "order.cancelled": OrderCancelled,
    "customer.created": CustomerCreated,
    "customer.updated": CustomerUpdated,
    "invoice.payment_received": PaymentReceived,
    "payment.voided": PaymentVoided,
    "artwork.proof_sent": ArtworkProofSent,
    "artwork.changes_requested": ArtworkChangesRequested,
}


# --- the feed ------------------------------------------------------------------------------


class Event(Schema):
    """A recorded event (extension): readable for `WEBHOOK_RETENTION_DAYS` whether or not a
    subscription wanted it."""

    id: EventId
    type: EventType
    occurred_at: OccurredAt
    order_id: Annotated[
        int | None, msgspec.Meta(description="The order the event is about, or null")
    ]
    # The stored bytes spliced in, never decoded and encoded again (see api/openapi.py for
    # the schema documented here: one of the five webhook bodies).
    data: msgspec.Raw


def event_body(row: EventRow) -> Event:
    return Event(
        id=row.event_id,
        type=row.name,  # type: ignore[arg-type]  # stored names are EVENT_NAMES
        occurred_at=iso(row.created_at),
        order_id=row.order_id,
        data=msgspec.Raw(row.body),
    )


def event_bodies(rows: list[EventRow]) -> list[Event]:
    return [event_body(row) for row in rows]


# --- the feed's query -----------------------------------------------------------------------

_NAME = "|".join(re.escape(name) for name in EVENT_NAMES)
# One name or a comma-separated list, spaces allowed around names (the documented pattern).
TYPES_PATTERN = f" *(?:{_NAME}) *(?:, *(?:{_NAME}) *)*"
_TYPES = re.compile(TYPES_PATTERN)


def _event_types(text: str) -> str:
    if _TYPES.fullmatch(text):
        return text
    unknown = sorted({part.strip() for part in text.split(",")} - set(EVENT_NAMES) - {""})
    listed = f" ({', '.join(unknown)})" if unknown else ""
    raise Unreadable(
        f"The selected type is invalid{listed}; use one or more of "
        f"{', '.join(EVENT_NAMES)}, separated by commas."
    )


class EventListQuery(Schema):
    """`GET /events` parameters (docs/api.md, the events feed)."""

    type: (
        Annotated[
            str,
            msgspec.Meta(
                pattern=f"^{TYPES_PATTERN}$",
                description=(
                    "One event name or a comma-separated list: "
                    + ", ".join(EVENT_NAMES)
                    + ". Any other name is a 422."
                ),
                examples=["invoice.issued,invoice.paid"],
                extra={"rule": TextFormat(_event_types, "a list of event names")},
            ),
        ]
        | None
    ) = None
    since: (
        Annotated[
            dt.datetime,
            msgspec.Meta(
                description=(
                    "Only events that occurred at or after this ISO 8601 date-time, e.g. "
                    "2026-11-22T10:15:00+00:00; without an offset the value is UTC."
                ),
                extra={"rule": INSTANT},
            ),
        ]
        | None
    ) = None
    order: (
        Annotated[
            int, msgspec.Meta(ge=1, le=MAX_ID, description="Only events about this order (its id)")
        ]
        | None
    ) = None
    page: PageNumber = 1

    @property
    def names(self) -> tuple[str, ...]:
        """The names asked for, sorted, without repeats; empty for every event."""
        if self.type is None:
            return ()
        return tuple(sorted({part.strip(" ") for part in self.type.split(",")}))
