"""Customer messages: one row per stage move, queued for the customer's primary contact."""

from __future__ import annotations

import datetime as dt

from models.tables import Contact, CustomerMessage

SUBJECTS = {
    "artwork": "Order {number} is back in artwork",
    "print_queue": "Order {number} is queued for printing",
    "in_production": "Order {number} is in production",
    "qc_pack": "Order {number} is being checked and packed",
    "dispatched": "Order {number} has been dispatched",
    "cancelled": "Order {number} has been cancelled",
}


def message_text(
    *, number: str, to_stage: str, carrier: str | None = None, tracking_number: str | None = None
) -> tuple[str, str]:
    """Subject and plain-text body for a move to `to_stage`."""
    subject = SUBJECTS[to_stage].format(number=number)
    body = subject + "."
    if to_stage == "dispatched" and carrier:
        body += f"\nCarrier: {carrier}"
    if to_stage == "dispatched" and tracking_number:
        body += f"\nTracking number: {tracking_number}"
    return subject, body


async def queue_stage_message(
    *,
    workspace_id: int,
    order_id: int,
    customer_id: int,
    number: str,
    to_stage: str,
    now: dt.datetime,
    carrier: str | None = None,
    tracking_number: str | None = None,
) -> None:
    """Queued for the primary contact; with no primary contact the row is kept as `no_contact`
    so the move is still on record for the customer."""
    contact = await (
        Contact.select(Contact.id)
        .where(Contact.customer == customer_id, Contact.is_primary.eq(True))
        .order_by(Contact.id)
        .first()
    )
    subject, body = message_text(
        number=number, to_stage=to_stage, carrier=carrier, tracking_number=tracking_number
    )
    await CustomerMessage(
        workspace=workspace_id,
        order=order_id,
        customer=customer_id,
        contact=contact["id"] if contact else None,
        kind=f"order.{to_stage}",
        subject=subject,
        body=body,
        status="queued" if contact else "no_contact",
        created_at=now,
    ).save()
