"""The finite sets of the webhook domain, as names msgspec and the OpenAPI schema understand."""

from __future__ import annotations

from enum import StrEnum


class EventName(StrEnum):
    """Every event a subscription can receive, plus the operator's test event."""

    ORDER_STAGE_CHANGED = "order.stage_changed"
    ORDER_DISPATCHED = "order.dispatched"
    INVOICE_ISSUED = "invoice.issued"
    INVOICE_PAID = "invoice.paid"
    ARTWORK_APPROVED = "artwork.approved"
    # every change an integrator writes or reads back.
    ORDER_CREATED = "order.created"
    ORDER_UPDATED = "order.updated"
    ORDER_CANCELLED = "order.cancelled"
    CUSTOMER_CREATED = "customer.created"
    CUSTOMER_UPDATED = "customer.updated"
    INVOICE_PAYMENT_RECEIVED = "invoice.payment_received"
    PAYMENT_VOIDED = "payment.voided"
    ARTWORK_PROOF_SENT = "artwork.proof_sent"
    ARTWORK_CHANGES_REQUESTED = "artwork.changes_requested"
    WEBHOOK_TEST = "webhook.test"


# The events a subscription lists (`*` means these); `webhook.test` is sent on request only.
SUBSCRIBABLE: tuple[EventName, ...] = tuple(e for e in EventName if e is not EventName.WEBHOOK_TEST)
EVENT_NAMES: tuple[str, ...] = tuple(str(e) for e in SUBSCRIBABLE)


class DeliveryStatus(StrEnum):
    """`pending` → `succeeded` | `failed`; `skipped` while its subscription was inactive."""

    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"


DELIVERY_STATUSES: tuple[str, ...] = tuple(str(s) for s in DeliveryStatus)
