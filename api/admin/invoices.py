"""Invoices: the workspace's, newest first, filtered by status, with the outstanding balance;
one invoice's page, made to print (the shop as Settings → Invoices names it, the customer, the
order's lines, tax, payments, balance and due date), where staff record a payment, mark it paid
or email it to the customer. Every payment goes through models/invoices/payments.py, as the
API's and `pressline invoice pay` do: the same lock, rules and events.

Paths: /admin/invoices (`status`, `page`), /admin/invoices/{number}, POST
/admin/invoices/{number}/payments (a payment: amount, method, date, reference) and POST
/admin/invoices/{number}/paid (mark paid: a payment of the balance; answers 303 to the list,
or to `next` when it is an admin address) and POST /admin/invoices/{number}/email (the
customer's primary contact is emailed a link to the invoice's own page, models/invoices/links.py).
Staff and owners alike.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.customers import page_number
from api.admin.forms import form, in_words, text
from api.admin.once import Created, create_once, new_token, token_of
from api.admin.order_forms import Shown, money
from api.admin.pages import page
from api.admin.security import PREFIX
from models import clock
from models import money as amounts
from models.actors import Actor
from models.errors import UNSTORABLE_LINE, InvalidFields, NotFoundError, RuleRefused, storable
from models.invoices import links, payments
from models.invoices import pages as queries
from models.invoices.status import PaymentMethod
from models.orders.lines import local_midnight

InvoiceNumber = Annotated[str, PathParameter(description="Invoice number, e.g. INV-2026-0007")]
PAYMENT_FIELDS = ("amount", "method", "date", "reference")
# The payment form's fields as refusals name them (invoice.html).
PAYMENT_LABELS = {"amount": "the amount", "method": "the method", "date": "the date",
                  "reference": "the reference"}  # fmt: skip
METHOD_LABELS = {
    PaymentMethod.BANK_TRANSFER: "Bank transfer",
    PaymentMethod.CARD: "Card",
    PaymentMethod.CASH: "Cash",
    PaymentMethod.CHEQUE: "Cheque",
    PaymentMethod.OTHER: "Other",
}


def _back(target: str) -> str:
    """Where to go after the action: an admin page the form named, else the invoice list."""
    ok = target.startswith(f"{PREFIX}/") and not target.startswith("//") and "\\" not in target
    return target if ok else f"{PREFIX}/invoices"


def _payment(
    typed: dict[str, str], timezone: str, currency: str
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The typed payment (its amount in the workspace's `currency`) as record_payment takes
    it, and every field's refusal in words."""
    errors: dict[str, list[str]] = {}
    amount = amounts.cents(typed["amount"], currency) if typed["amount"].strip() else None
    if not typed["amount"].strip():
        errors["amount"] = ["Type the amount received."]
    elif amount is None:
        errors["amount"] = [amounts.refusal(typed["amount"], currency)]
    elif amount < 1:
        errors["amount"] = ["The amount must be at least 0.01."]
    method = typed["method"] if typed["method"] in set(PaymentMethod) else None
    if method is None:
        errors["method"] = ["Choose the method: how it was paid."]
    paid_at = None
    if typed["date"].strip():
        try:
            day = dt.date.fromisoformat(typed["date"].strip())
        except ValueError:
            errors["date"] = ["Type the date as YYYY-MM-DD, e.g. 2026-11-27."]
        else:  # today: now; another day: its start in the workspace's zone
            today = Shown(timezone).today.date()
            paid_at = None if day == today else local_midnight(day, timezone)
    reference = typed["reference"].strip()
    if not storable(reference):
        errors["reference"] = [f"The reference {UNSTORABLE_LINE}."]
    elif len(reference) > payments.MAX_REFERENCE:
        errors["reference"] = [
            f"The reference must be at most {payments.MAX_REFERENCE} characters."
        ]
    values = {
        "amount_cents": amount,
        "method": PaymentMethod(method) if method else None,
        "reference": reference or None,
        "paid_at": paid_at,
    }
    return values, in_words(errors, PAYMENT_LABELS)


class InvoiceController(Controller):
    path = "/invoices"

    @get("/")
    async def list_invoices(self, request: Request[Any, Any, Any]) -> Template:
        return await self._list(request)

    async def _list(self, request: Request[Any, Any, Any], *, message: str = "") -> Template:
        asked = request.query_params.get("status", "")
        status = next((s for s in queries.LISTED if s == asked), None)
        number = page_number(request)
        found = await queries.invoice_list(
            request.user.workspace_id, status=status, offset=(number - 1) * queries.PAGE
        )
        return page(
            request, "invoices.html", status_code=422 if message else 200, here="invoices",
            title="Invoices", found=found, status=status.value if status else "",
            statuses=[s.value for s in queries.LISTED], page_number=number,
            more=number * queries.PAGE < found.total, money=money, message=message,
            shown=Shown(request.user.timezone),
            notice="" if message else (await flash.take(request)).notice,
        )  # fmt: skip

    @get("/{number:str}")
    async def show_invoice(
        self, request: Request[Any, Any, Any], number: InvoiceNumber
    ) -> Template:
        return await self._show(request, number)

    async def _show(
        self,
        request: Request[Any, Any, Any],
        number: str,
        *,
        typed: dict[str, str] | None = None,
        errors: dict[str, list[str]] | None = None,
        message: str = "",
        once: str = "",
    ) -> Template:
        """The invoice; after a refused payment, with what was typed and its form's token."""
        found = await queries.invoice_page(request.user.workspace_id, number)
        if found is None:
            raise NotFoundError(f"invoice {number} not found")
        shown = Shown(request.user.timezone)
        blank = {"amount": "", "method": "", "date": f"{shown.today:%Y-%m-%d}", "reference": ""}
        refused = bool(errors or message)
        return page(
            request, "invoice.html", status_code=422 if refused else 200, here="invoices",
            title=f"Invoice {found.invoice.number}", i=found.invoice, found=found,
            balance=found.balance_cents, money=money, shown=shown, methods=METHOD_LABELS,
            overdue=found.overdue(clock.now()), staff=True, assets=f"{PREFIX}/static",
            logo_url=f"{PREFIX}/settings/invoices/logo",
            typed=typed or blank, errors=errors or {}, message=message, once=once or new_token(),
            notice="" if refused else (await flash.take(request)).notice,
        )  # fmt: skip

    @post("/{number:str}/payments", status_code=303)
    async def record_payment(
        self, request: Request[Any, Any, Any], number: InvoiceNumber
    ) -> Template | Redirect:
        fields = await form(request)
        typed = {name: text(fields, name) for name in PAYMENT_FIELDS}
        values, errors = _payment(typed, request.user.timezone, request.user.currency)

        async def refused(**shown: Any) -> Template:
            return await self._show(request, number, typed=typed, once=token_of(fields), **shown)

        if errors:
            return await refused(errors=errors)
        notice: list[str] = []

        async def record() -> Created:
            recorded = await payments.record_payment(
                workspace_id=request.user.workspace_id,
                invoice=number,
                actor=Actor.user(request.user.user_id),
                **values,
            )
            received = money(values["amount_cents"], recorded.currency)
            left = money(recorded.balance_cents, recorded.currency)
            notice.append(
                f"Payment of {received} recorded: "
                + (
                    f"invoice {recorded.number} is paid."
                    if not recorded.balance_cents
                    else f"{left} to pay."
                )
            )
            url = f"{PREFIX}/invoices/{recorded.number}"
            return Created(url, f"the payment of {received} for {recorded.number}")

        try:  # once per form: a second submit (Back, Record payment) records nothing more
            return await create_once(
                request, fields, record, created=lambda _: notice[0], already="Already recorded"
            )
        except payments.Overpaid as over:
            left = money(over.balance_cents, over.currency)
            words = f"The amount is more than the balance, {left}."
            return await refused(errors={"amount": [words]})
        except payments.PaidInFuture:
            return await refused(errors={"date": ["The date must not be in the future."]})
        except payments.PaidTooEarly:
            return await refused(errors={"date": ["The date must not be before 1970-01-01."]})
        except RuleRefused as refusal:
            return await refused(message=refusal.message)
        except InvalidFields as invalid:  # the domain's own wording, should any other remain
            return await refused(message=invalid.message)

    @post("/{number:str}/paid", status_code=303)
    async def mark_paid(
        self, request: Request[Any, Any, Any], number: InvoiceNumber
    ) -> Template | Redirect:
        fields = await form(request)
        try:
            await payments.pay_invoice(
                workspace_id=request.user.workspace_id,
                number=number,
                actor=Actor.user(request.user.user_id),
            )
        except RuleRefused as refused:
            return await self._list(request, message=refused.message)
        return await flash.redirect(
            request, _back(text(fields, "next")), f"Invoice {number} was marked paid."
        )

    @post("/{number:str}/email", status_code=303)
    async def email_invoice(
        self, request: Request[Any, Any, Any], number: InvoiceNumber
    ) -> Template | Redirect:
        """Email the customer's primary contact a link to the invoice's own page."""
        try:
            emailed = await links.email_invoice(
                workspace_id=request.user.workspace_id, number=number, user_id=request.user.user_id
            )
        except RuleRefused as refused:  # no primary contact (any more)
            return await self._show(request, number, message=refused.message)
        notice = (
            f"Invoice {emailed.number} is being emailed to {emailed.recipient}, with a link to "
            "its own page."
        )
        return await flash.redirect(request, f"{PREFIX}/invoices/{emailed.number}", notice)
