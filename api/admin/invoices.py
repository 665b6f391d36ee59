"""Invoices: the workspace's, newest first, filtered by status, with the outstanding total
(issued, not yet paid); marking one paid is `pressline invoice pay` (models/invoices/payments.py:
the same transaction and the same `invoice.paid` event).

Paths: /admin/invoices (`status`, `page`), POST /admin/invoices/{number}/paid (answers 303 to
the list, or to `next` when it is an admin address). Staff and owners alike.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.customers import page_number
from api.admin.forms import form, text
from api.admin.order_forms import money
from api.admin.pages import page
from api.admin.security import PREFIX
from models.errors import RuleRefused
from models.invoices import pages as queries
from models.invoices import payments
from models.invoices.pages import InvoiceStatus

InvoiceNumber = Annotated[str, PathParameter(description="Invoice number, e.g. INV-2026-0007")]


def _back(target: str) -> str:
    """Where to go after the action: an admin page the form named, else the invoice list."""
    ok = target.startswith(f"{PREFIX}/") and not target.startswith("//") and "\\" not in target
    return target if ok else f"{PREFIX}/invoices"


class InvoiceController(Controller):
    path = "/invoices"

    @get("/")
    async def list_invoices(self, request: Request[Any, Any, Any]) -> Template:
        return await self._list(request)

    async def _list(self, request: Request[Any, Any, Any], *, message: str = "") -> Template:
        asked = request.query_params.get("status", "")
        status = InvoiceStatus(asked) if asked in set(InvoiceStatus) else None
        number = page_number(request)
        found = await queries.invoice_list(
            request.user.workspace_id, status=status, offset=(number - 1) * queries.PAGE
        )
        return page(
            request, "invoices.html", status_code=422 if message else 200, here="invoices",
            title="Invoices", found=found, status=status.value if status else "",
            statuses=[s.value for s in InvoiceStatus], page_number=number,
            more=number * queries.PAGE < found.total, money=money, message=message,
            notice="" if message else (await flash.take(request)).notice,
        )  # fmt: skip

    @post("/{number:str}/paid", status_code=303)
    async def mark_paid(
        self, request: Request[Any, Any, Any], number: InvoiceNumber
    ) -> Template | Redirect:
        fields = await form(request)
        try:
            await payments.pay_invoice(workspace_id=request.user.workspace_id, number=number)
        except RuleRefused as refused:
            return await self._list(request, message=refused.message)
        return await flash.redirect(
            request, _back(text(fields, "next")), f"Invoice {number} was marked paid."
        )
