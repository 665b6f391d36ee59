"""An invoice's own page for its customer, `/i/{token}`: "Email invoice" issues a link (a token
of models/link_tokens.py, stored only as its digest, valid LINK_DAYS) and queues the email that
carries it to the customer's primary contact, both in one transaction; the page finds its
invoice by the token and notes when the customer first opened it (the order's timeline shows
it beside the email)."""

from __future__ import annotations

import datetime as dt

import msgspec

from models import clock, db, link_tokens, live, messages
from models.errors import NotFoundError
from models.invoices import letterhead, pages
from models.invoices.pages import InvoicePage
from models.invoices.queries import can_exist
from models.mail import links
from models.statements import when
from models.tables import InvoiceLink

LINK_DAYS = 365


class Emailed(msgspec.Struct, frozen=True):
    number: str
    recipient: str  # the primary contact's address


async def email_invoice(*, workspace_id: int, number: str, user_id: int | None) -> Emailed:
    """Queue the invoice's email with a new link to its page. NotFoundError for an invoice the
    workspace does not have; RuleRefused (nothing written) when its customer has no primary
    contact."""
    if not can_exist(number):
        raise NotFoundError(f"invoice {number} not found")
    now = clock.now()

    async def write() -> Emailed:
        found = await pages.invoice_page(workspace_id, number)
        if found is None:
            raise NotFoundError(f"invoice {number} not found")
        invoice, token = found.invoice, link_tokens.new_token()
        message_id = await messages.queue_invoice_message(
            workspace_id=workspace_id,
            order_id=invoice.order_id,
            customer_id=invoice.customer_id,
            customer_name=invoice.customer_name,
            number=invoice.order_number,
            invoice_number=invoice.number,
            total_cents=invoice.total_cents,
            balance_cents=found.balance_cents,
            currency=invoice.currency,
            due_at=when(invoice.due_at) if invoice.due_at else None,
            link=links.link(f"/i/{token}"),
            link_days=LINK_DAYS,
            now=now,
        )
        await InvoiceLink(
            workspace=workspace_id,
            invoice=invoice.id,
            message=message_id,
            token_digest=link_tokens.digest(token),
            created_by=user_id,
            created_at=now,
            expires_at=now + dt.timedelta(days=LINK_DAYS),
        ).save()
        # The order's timeline shows the email: its open pages refresh (models/live.py).
        live.ping(workspace_id=workspace_id, order_id=invoice.order_id, name="invoice.emailed")
        return Emailed(number=invoice.number, recipient=found.contact_email or "")

    return await db.atomic(write)


async def open_link(token: str, now: dt.datetime) -> InvoicePage | None:
    """The invoice `token` opens, as its page shows it; None for an unknown, altered or expired
    token (all answered alike). The first opening is noted."""
    if not link_tokens.plausible(token):
        return None
    row = await (
        InvoiceLink.select(
            InvoiceLink.id,
            InvoiceLink.workspace,
            InvoiceLink.invoice.number.as_alias("number"),
            InvoiceLink.invoice.order.as_alias("order_id"),
            InvoiceLink.opened_at,
        )
        .where(
            InvoiceLink.token_digest == link_tokens.digest(token),
            InvoiceLink.expires_at > now,
        )
        .first()
    )
    if row is None:
        return None
    if row["opened_at"] is None:
        await InvoiceLink.update({InvoiceLink.opened_at: now}).where(
            InvoiceLink.id == row["id"], InvoiceLink.opened_at.is_null()
        )
        # The order's timeline shows it: its open pages refresh (models/live.py).
        live.ping(workspace_id=row["workspace"], order_id=row["order_id"], name="invoice.opened")
    return await pages.invoice_page(row["workspace"], row["number"])


async def logo_of(token: str, now: dt.datetime) -> tuple[str, bytes] | None:
    """The logo of the shop whose invoice `token` opens (None as `open_link` would be)."""
    if not link_tokens.plausible(token):
        return None
    row = await (
        InvoiceLink.select(InvoiceLink.workspace)
        .where(
            InvoiceLink.token_digest == link_tokens.digest(token),
            InvoiceLink.expires_at > now,
        )
        .first()
    )
    if row is None:
        return None
    return await letterhead.logo(row["workspace"])
