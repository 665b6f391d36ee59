"""Customer messages: one row per stage move (and per proof, and per invoice emailed), queued for
the customer's primary contact with every part of the email fixed now; the worker sends it
(daemon/mail.py).

Whether a row will be sent is decided here, when it is queued: `muted` when the workspace does
not email this stage, `no_contact` when the customer has no primary contact (the row is still
kept, so the move is on record for the customer)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from models import clock, db, live, money
from models.errors import NotFoundError, RuleRefused
from models.mail.ids import message_id
from models.mail.render import STAGE_WORDS, Rendered, address_lines, due_date, render
from models.mail.stages import parse_mail_stages
from models.mail.status import MessageStatus
from models.tables import Contact, CustomerMessage, Order


async def _facts(workspace_id: int, order_id: int, customer_id: int) -> dict[str, Any]:
    """What every customer email says: shop, order, and the primary contact (or None)."""
    order = await (
        Order.select(
            Order.external_ref,
            Order.due_by,
            Order.ship_to,
            Order.workspace.name.as_alias("shop"),
            Order.workspace.email.as_alias("shop_email"),
            Order.workspace.timezone.as_alias("timezone"),
            Order.workspace.mail_stages.as_alias("mail_stages"),
            Order.workspace.require_artwork_approval.as_alias("approval_required"),
        )
        .where(Order.id == order_id, Order.workspace == workspace_id)
        .first()
    )
    if order is None:
        raise NotFoundError("Order not found")
    contact = await (
        Contact.select(Contact.id, Contact.name, Contact.email)
        .where(Contact.customer == customer_id, Contact.is_primary.eq(True))
        .order_by(Contact.id)
        .first()
    )
    return {"order": order, "contact": contact}


async def _queue(
    *,
    workspace_id: int,
    order_id: int,
    customer_id: int,
    kind: str,
    facts: dict[str, Any],
    rendered: Rendered,
    status: MessageStatus,
    now: dt.datetime,
) -> int:
    contact = facts["contact"]
    order = facts["order"]
    row = CustomerMessage(
        workspace=workspace_id,
        order=order_id,
        customer=customer_id,
        contact=contact["id"] if contact else None,
        kind=kind,
        subject=rendered.subject,
        body=rendered.text,
        body_html=rendered.html,
        status=status if contact else MessageStatus.NO_CONTACT,
        recipient=contact["email"] if contact else "",
        from_name=order["shop"],
        reply_to=order["shop_email"],
        message_id=message_id(),
        next_attempt_at=now,
        created_at=now,
        updated_at=now,
    )
    await row.save()
    return int(row.id)


def _order_context(number: str, facts: dict[str, Any]) -> dict[str, Any]:
    order, contact = facts["order"], facts["contact"]
    return {
        "shop": order["shop"],
        "reply_to": order["shop_email"],
        "number": number,
        "external_ref": order["external_ref"],
        "due": due_date(order["due_by"], order["timezone"]),
        "contact_name": contact["name"] if contact else "",
    }


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
    """The email of a move to `to_stage`, inside the move's transaction."""
    facts = await _facts(workspace_id, order_id, customer_id)
    rendered = render(
        "stage",
        **_order_context(number, facts),
        stage=to_stage,
        stage_words=STAGE_WORDS[to_stage],
        carrier=carrier,
        tracking_number=tracking_number,
        ship_to=address_lines(facts["order"]["ship_to"]) if to_stage == "dispatched" else [],
    )
    emailed = to_stage in parse_mail_stages(facts["order"]["mail_stages"])
    await _queue(
        workspace_id=workspace_id,
        order_id=order_id,
        customer_id=customer_id,
        kind=f"order.{to_stage}",
        facts=facts,
        rendered=rendered,
        status=MessageStatus.QUEUED if emailed else MessageStatus.MUTED,
        now=now,
    )


async def queue_proof_message(
    *,
    workspace_id: int,
    order_id: int,
    customer_id: int,
    number: str,
    version: int,
    link: str,
    note: str,
    now: dt.datetime,
) -> None:
    """The email of a new proof with the customer's link (always sent: no switch)."""
    facts = await _facts(workspace_id, order_id, customer_id)
    rendered = render(
        "proof",
        **_order_context(number, facts),
        stage_words=None,
        carrier=None,
        tracking_number=None,
        ship_to=[],
        version=version,
        link=link,
        note=note,
        # "Nothing is printed before you approve" is promised only while the rule holds it.
        approval_required=facts["order"]["approval_required"],
    )
    await _queue(
        workspace_id=workspace_id,
        order_id=order_id,
        customer_id=customer_id,
        kind="artwork.proof",
        facts=facts,
        rendered=rendered,
        status=MessageStatus.QUEUED,
        now=now,
    )


NO_CONTACT = (
    "{customer} has no primary contact, so there is nobody to email the invoice to: add a "
    "contact on the customer's page (or make one primary), then email it."
)


async def queue_invoice_message(
    *,
    workspace_id: int,
    order_id: int,
    customer_id: int,
    customer_name: str,
    number: str,
    invoice_number: str,
    total_cents: int,
    balance_cents: int,
    currency: str,
    due_at: dt.datetime | None,
    link: str,
    link_days: int,
    now: dt.datetime,
) -> int:
    """The email of an invoice with the link to its own page ("Email invoice"); returns its
    row's id. Refused (RuleRefused, nothing queued) when the customer has no primary contact:
    unlike a stage move, nothing else is on record for an email nobody receives."""
    facts = await _facts(workspace_id, order_id, customer_id)
    if facts["contact"] is None:
        raise RuleRefused(NO_CONTACT.format(customer=customer_name))
    context = {**_order_context(number, facts), "due": None}  # the payment's date, not the order's
    rendered = render(
        "invoice",
        **context,
        stage_words=None,
        carrier=None,
        tracking_number=None,
        ship_to=[],
        invoice_number=invoice_number,
        total=money.shown(total_cents, currency),
        balance=money.shown(balance_cents, currency) if balance_cents > 0 else None,
        pay_by=due_date(due_at, facts["order"]["timezone"]) or "the date agreed",
        link=link,
        link_days=link_days,
    )
    return await _queue(
        workspace_id=workspace_id,
        order_id=order_id,
        customer_id=customer_id,
        kind="invoice.emailed",
        facts=facts,
        rendered=rendered,
        status=MessageStatus.QUEUED,
        now=now,
    )


async def resend_message(*, workspace_id: int, order_id: int, message_id: int) -> None:
    """Queue a failed message of the order again (same Message-ID, attempts from one)."""
    now = clock.now()

    async def write() -> None:
        row = await (
            CustomerMessage.select(CustomerMessage.order, CustomerMessage.status)
            .where(
                CustomerMessage.id == message_id,
                CustomerMessage.workspace == workspace_id,
                CustomerMessage.order == order_id,
            )
            .first()
        )
        if row is None:
            raise NotFoundError("Message not found")
        if row["status"] != MessageStatus.FAILED:
            raise RuleRefused(
                f"Only a failed message can be sent again; this one is {row['status']}."
            )
        await CustomerMessage.update(
            {
                CustomerMessage.status: MessageStatus.QUEUED,
                CustomerMessage.attempts: 0,
                CustomerMessage.next_attempt_at: now,
                CustomerMessage.lease_expires_at: None,
                CustomerMessage.leased_by: None,
                CustomerMessage.updated_at: now,
            }
        ).where(CustomerMessage.id == message_id)
        live.ping(workspace_id=workspace_id, order_id=order_id, name="email.queued")

    return await db.atomic(write)


async def for_order(workspace_id: int, order_id: int) -> list[dict[str, Any]]:
    """The order's customer messages, oldest first, with how sending went."""
    rows: list[dict[str, Any]] = await (
        CustomerMessage.select(
            CustomerMessage.id,
            CustomerMessage.kind,
            CustomerMessage.subject,
            CustomerMessage.recipient,
            CustomerMessage.status,
            CustomerMessage.attempts,
            CustomerMessage.last_error,
            CustomerMessage.reply,
            CustomerMessage.transport,
            CustomerMessage.sent_at,
            CustomerMessage.created_at,
        )
        .where(CustomerMessage.workspace == workspace_id, CustomerMessage.order == order_id)
        .order_by(CustomerMessage.id)
    )
    return rows
