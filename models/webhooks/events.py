"""Recording events: event rows with their exact body bytes, and one delivery per subscription.

Always called inside the transaction of the change that causes the event, so an event exists
exactly when its change committed. The daemon is the only sender.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping, Sequence
from typing import Any
from zoneinfo import ZoneInfo

import msgspec

from models import clock, db, live
from models.tables import WebhookDelivery, WebhookEvent, WebhookSubscription
from models.webhooks.names import EVENT_NAMES, DeliveryStatus, EventName

__all__ = ["EVENT_NAMES", "record_event", "record_test_event"]

NOTIFY_CHANNEL = "pressline_outbox"


def subscribed(events: str, name: str) -> bool:
    """`*` or a comma-separated list of event names (spaces around names are ignored)."""
    wanted = {part.strip() for part in events.split(",")}
    return "*" in wanted or name in wanted


def in_scope(subscription_customer: int | None, event_customer: int | None) -> bool:
    return subscription_customer is None or subscription_customer == event_customer


def encode_body(
    name: str,
    event_id: str,
    occurred_at: dt.datetime,
    fields: Mapping[str, Any],
    *,
    workspace_id: int,
) -> str:
    """The JSON body: `event`, `event_id`, `occurred_at`, `workspace_id` (whose event it is),
    then `fields` in their given order."""
    body = {
        "event": name,
        "event_id": event_id,
        "occurred_at": clock.iso(occurred_at),
        "workspace_id": workspace_id,
        **fields,
    }
    return msgspec.json.encode(body).decode()


def order_fields(
    *,
    order_id: int,
    order_number: str,
    from_stage: str | None,
    to_stage: str,
    customer: Mapping[str, Any],
    due_by: dt.datetime | None,
    timezone: str,
    dispatch: tuple[str | None, str | None] | None = None,
) -> dict[str, Any]:
    """Order events (docs/webhooks.md): `customer` is `{id, name, slug}`; `due_by` as the API shows
    it, with the workspace's offset; `order.dispatched` adds the `dispatch` carrier and tracking
    number (extension: a storefront tells its buyer without reading the order back)."""
    local_due = ZoneInfo(timezone)
    fields = {
        "order_id": order_id,
        "order_number": order_number,
        "from_stage": from_stage,
        "to_stage": to_stage,
        "customer": {"id": customer["id"], "name": customer["name"], "slug": customer["slug"]},
        "due_by": due_by.astimezone(local_due).isoformat(timespec="seconds") if due_by else None,
    }
    if dispatch is not None:
        fields["carrier"], fields["tracking_number"] = dispatch
    return fields


def invoice_fields(
    *,
    order_id: int,
    order_number: str,
    invoice_id: int,
    invoice_number: str,
    invoice_status: str,
    total: int,
    currency: str,
) -> dict[str, Any]:
    """Invoice events: `order_id` and `invoice_id` (extensions) let a receiver fetch the order
    and the invoice, since the API takes no document numbers."""
    return {
        "order_id": order_id,
        "order_number": order_number,
        "invoice_id": invoice_id,
        "invoice_number": invoice_number,
        "invoice_status": invoice_status,
        "total": total,
        "currency": currency,
    }


def order_change_fields(
    *,
    order_id: int,
    order_number: str,
    stage: str,
    revision: int,
    customer: Mapping[str, Any],
    external_ref: str | None,
    total_cents: int,
    currency: str,
    changed: Sequence[str] | None = None,
) -> dict[str, Any]:
    """`order.created`, `order.updated` (with `changed`: the fields the edit changed) and
    `order.cancelled`: the order as it is after the change, with its customer's id."""
    fields: dict[str, Any] = {
        "order_id": order_id,
        "order_number": order_number,
        "customer_id": customer["id"],
        "customer": {"id": customer["id"], "name": customer["name"], "slug": customer["slug"]},
        "stage": stage,
        "revision": revision,
        "external_ref": external_ref,
        "total_cents": total_cents,
        "currency": currency,
    }
    if changed is not None:
        fields["changed"] = list(changed)
    return fields


def customer_fields(
    *, customer_id: int, name: str, slug: str, external_ref: str | None
) -> dict[str, Any]:
    """`customer.created` and `customer.updated`: the customer as it is after the change."""
    return {"customer_id": customer_id, "name": name, "slug": slug, "external_ref": external_ref}


def payment_fields(
    *,
    invoice_id: int,
    invoice_number: str,
    order_id: int,
    order_number: str,
    customer_id: int,
    payment_id: int,
    amount_cents: int,
    method: str,
    reference: str | None,
    paid_cents: int,
    balance_cents: int,
    currency: str,
) -> dict[str, Any]:
    """`invoice.payment_received`: the payment, and the invoice's figures after it."""
    return {
        "invoice_id": invoice_id,
        "invoice_number": invoice_number,
        "order_id": order_id,
        "order_number": order_number,
        "customer_id": customer_id,
        "payment_id": payment_id,
        "amount_cents": amount_cents,
        "method": method,
        "reference": reference,
        "paid_cents": paid_cents,
        "balance_cents": balance_cents,
        "currency": currency,
    }


def voided_fields(
    *,
    invoice_id: int,
    invoice_number: str,
    invoice_status: str,
    order_id: int,
    order_number: str,
    customer_id: int,
    payment_id: int,
    amount_cents: int,
    method: str,
    reference: str | None,
    reason: str,
    paid_cents: int,
    balance_cents: int,
    currency: str,
) -> dict[str, Any]:
    """`payment.voided`: the payment voided, why, and the invoice's figures after it."""
    return {
        "invoice_id": invoice_id,
        "invoice_number": invoice_number,
        "invoice_status": invoice_status,
        "order_id": order_id,
        "order_number": order_number,
        "customer_id": customer_id,
        "payment_id": payment_id,
        "amount_cents": amount_cents,
        "method": method,
        "reference": reference,
        "reason": reason,
        "paid_cents": paid_cents,
        "balance_cents": balance_cents,
        "currency": currency,
    }


def artwork_fields(
    *, order_id: int, order_number: str, artwork_version: int, comment: str | None = None
) -> dict[str, Any]:
    """`artwork.approved` and `artwork.proof_sent`: `order_id` (extension) as in the invoice
    events, and the version; `artwork.changes_requested` adds the customer's `comment`."""
    fields: dict[str, Any] = {
        "order_id": order_id,
        "order_number": order_number,
        "artwork_version": artwork_version,
    }
    if comment is not None:
        fields["comment"] = comment
    return fields


async def record_event(
    *,
    workspace_id: int,
    name: str,
    fields: Mapping[str, Any],
    order_id: int | None = None,
    customer_id: int | None = None,
    occurred_at: dt.datetime | None = None,
) -> str:
    """Write the event and its deliveries in the caller's transaction; returns the event_id.

    Every subscription of the workspace that lists the event (or `*`) and is unscoped or
    scoped to `customer_id` gets a delivery: `pending` (due now) when active, `skipped` when
    not, so an operator can replay it after re-enabling.
    """
    if name not in EVENT_NAMES:
        raise ValueError(f"unknown event {name!r}")
    now = occurred_at or clock.now()
    event_id = str(uuid.uuid4())
    async with db.transaction():
        event = WebhookEvent(
            workspace=workspace_id,
            event_id=event_id,
            name=name,
            order=order_id,
            customer=customer_id,
            body=encode_body(name, event_id, now, fields, workspace_id=workspace_id),
            created_at=now,
        )
        await event.save()
        if order_id is not None:  # the admin's open pages (models/live.py)
            live.announce(
                workspace_id=workspace_id, event_id=event.id, order_id=order_id, name=name
            )
        subscriptions = await WebhookSubscription.select(
            WebhookSubscription.id,
            WebhookSubscription.events,
            WebhookSubscription.customer,
            WebhookSubscription.is_active,
        ).where(WebhookSubscription.workspace == workspace_id)
        deliveries = [
            WebhookDelivery(
                workspace=workspace_id,
                event=event.id,
                subscription=sub["id"],
                status=DeliveryStatus.PENDING if sub["is_active"] else DeliveryStatus.SKIPPED,
                next_attempt_at=now,
                created_at=now,
                updated_at=now,
            )
            for sub in sorted(subscriptions, key=lambda s: s["id"])
            if subscribed(sub["events"], name) and in_scope(sub["customer"], customer_id)
        ]
        if deliveries:
            await WebhookDelivery.insert(*deliveries)
        if any(d.status == DeliveryStatus.PENDING for d in deliveries):
            await _wake_worker()
    return event_id


async def _wake_worker() -> None:
    if db.is_postgres():
        # A wake-up only (empty payload), delivered to the daemon when this commits. Raw
        # SQL: Piccolo has no NOTIFY, and the channel is a constant, never input.
        await WebhookEvent.raw(f"NOTIFY {NOTIFY_CHANNEL}")


async def record_test_event(workspace_id: int, subscription_id: int) -> tuple[str, int]:
    """`webhook.test` for one subscription, whatever its event filter: recorded as an event
    with one pending delivery, sent like any other; its result neither counts towards nor
    resets the failure count (daemon/record.py). Returns the event_id and the delivery id."""
    now = clock.now()
    event_id = str(uuid.uuid4())
    name = EventName.WEBHOOK_TEST

    async def write() -> int:
        event = WebhookEvent(
            workspace=workspace_id,
            event_id=event_id,
            name=str(name),
            body=encode_body(
                name, event_id, now, {"subscription_id": subscription_id}, workspace_id=workspace_id
            ),
            created_at=now,
        )
        await event.save()
        delivery = WebhookDelivery(
            workspace=workspace_id,
            event=event.id,
            subscription=subscription_id,
            status=DeliveryStatus.PENDING,
            next_attempt_at=now,
            created_at=now,
            updated_at=now,
        )
        await delivery.save()
        await _wake_worker()
        return delivery.id

    return event_id, await db.atomic(write)
