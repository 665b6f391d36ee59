"""Moved to models/webhooks/events.py; this name stays while callers move over."""

from models.webhooks.events import (
    EVENT_NAMES,
    NOTIFY_CHANNEL,
    artwork_fields,
    encode_body,
    invoice_fields,
    order_fields,
    record_event,
    record_test_event,
)

__all__ = [
    "EVENT_NAMES",
    "NOTIFY_CHANNEL",
    "artwork_fields",
    "encode_body",
    "invoice_fields",
    "order_fields",
    "record_event",
    "record_test_event",
]
