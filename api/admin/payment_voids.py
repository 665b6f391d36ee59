"""The invoice actions that take money back or settle it whole, each after a confirmation page
that works without script: voiding a payment (owners only; a reason is required) and marking an
invoice paid (a payment of the whole balance). The void is models/invoices/voiding.py's, the
function `POST /api/v1/payments/{id}/void` calls; marking paid is the invoice page's POST
/admin/invoices/{number}/paid (api/admin/invoices.py).

Paths: GET /admin/invoices/{number}/paid (confirm marking paid), GET and POST
/admin/invoices/{number}/payments/{payment_id}/void (the confirmation with the reason, and the
void: 303 to the invoice, or to its order's page with `back=order`).
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import form, in_words, text
from api.admin.invoices import METHOD_LABELS
from api.admin.order_forms import Shown, money
from api.admin.pages import page
from api.admin.security import PREFIX, owner_only
from models.actors import Actor
from models.errors import InvalidFields, NotFoundError, RuleRefused
from models.invoices import queries, voiding
from models.invoices.queries import InvoiceRows, PaymentRow
from models.invoices.status import InvoiceStatus

InvoiceNumber = Annotated[str, PathParameter(description="Invoice number, e.g. INV-2026-0007")]
PaymentId = Annotated[int, PathParameter(description="Payment id (the invoice's payments)")]
REASON_LABELS = {"reason": "the reason"}
# Where the confirmation was opened from, and so where the browser goes back to.
BACK_TO = ("invoice", "order", "list")


def _back(request: Request[Any, Any, Any], found: InvoiceRows, asked: str | None = None) -> str:
    """The page to go back to: the invoice's (default), its order's or the invoice list."""
    back = asked if asked is not None else request.query_params.get("back", "")
    if back == "order":
        return f"{PREFIX}/orders/{found.invoice.order_number}"
    if back == "list":
        return f"{PREFIX}/invoices"
    return f"{PREFIX}/invoices/{found.invoice.number}"


async def _invoice(request: Request[Any, Any, Any], number: str) -> InvoiceRows:
    found = await queries.get_invoice(request.user.workspace_id, number)
    if found is None:
        raise NotFoundError(f"invoice {number} not found")
    return found


def _payment(found: InvoiceRows, payment_id: int) -> PaymentRow:
    payment = next((p for p in found.payments if p.id == payment_id), None)
    if payment is None:
        raise NotFoundError(f"payment {payment_id} not found")
    return payment


class PaymentConfirmController(Controller):
    path = "/invoices"

    @get("/{number:str}/paid")
    async def confirm_mark_paid(
        self, request: Request[Any, Any, Any], number: InvoiceNumber
    ) -> Template:
        found = await _invoice(request, number)
        back = request.query_params.get("back", "")
        return page(
            request, "invoice_mark_paid.html", here="invoices",
            title=f"Mark {found.invoice.number} paid", i=found.invoice,
            balance=found.invoice.total_cents - found.invoice.paid_cents, money=money,
            back_url=_back(request, found), next_url=_back(request, found, back or "invoice"),
        )  # fmt: skip

    @get("/{number:str}/payments/{payment_id:int}/void", guards=[owner_only])
    async def confirm_void(
        self, request: Request[Any, Any, Any], number: InvoiceNumber, payment_id: PaymentId
    ) -> Template:
        return await self._confirmation(request, number, payment_id)

    async def _confirmation(
        self,
        request: Request[Any, Any, Any],
        number: str,
        payment_id: int,
        *,
        reason: str = "",
        back: str | None = None,
        errors: dict[str, list[str]] | None = None,
        message: str = "",
    ) -> Template:
        found = await _invoice(request, number)
        payment = _payment(found, payment_id)
        invoice = found.invoice
        refused = bool(errors or message)
        return page(
            request, "payment_void.html", status_code=422 if refused else 200, here="invoices",
            title=f"Void a payment on {invoice.number}", i=invoice, p=payment,
            balance=invoice.total_cents - invoice.paid_cents, money=money,
            shown=Shown(request.user.timezone), methods=METHOD_LABELS,
            paid=invoice.status == InvoiceStatus.PAID,
            voidable=invoice.status in (InvoiceStatus.ISSUED, InvoiceStatus.PAID),
            back=back if back is not None else request.query_params.get("back", ""),
            back_url=_back(request, found, back), reason=reason, errors=errors or {},
            message=message, max_reason=voiding.MAX_REASON,
        )  # fmt: skip

    @post("/{number:str}/payments/{payment_id:int}/void", guards=[owner_only], status_code=303)
    async def void_payment(
        self, request: Request[Any, Any, Any], number: InvoiceNumber, payment_id: PaymentId
    ) -> Template | Redirect:
        found = await _invoice(request, number)
        _payment(found, payment_id)  # a payment of this invoice, in this workspace
        fields = await form(request)
        reason, back = text(fields, "reason"), text(fields, "back")
        back = back if back in BACK_TO else ""
        try:
            voided = await voiding.void_payment(
                workspace_id=request.user.workspace_id, payment_id=payment_id, reason=reason,
                actor=Actor.user(request.user.user_id),
            )  # fmt: skip
        except InvalidFields as invalid:
            return await self._confirmation(
                request, number, payment_id, reason=reason, back=back,
                errors=in_words(invalid.errors, REASON_LABELS),
            )  # fmt: skip
        except RuleRefused as refused:  # voided meanwhile, or the invoice's status
            return await self._confirmation(
                request, number, payment_id, reason=reason, back=back, message=refused.message
            )
        amount = money(voided.amount_cents, voided.currency)
        left = money(voided.balance_cents, voided.currency)
        notice = f"The payment of {amount} was voided: {left} to pay on {voided.number}."
        if voided.reopened:
            notice += " The invoice is no longer paid."
        return await flash.redirect(request, _back(request, found, back), notice)
