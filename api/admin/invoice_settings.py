"""Settings → Invoices: what the workspace's invoices say of the shop (legal name, address, tax
number and label, bank details, footer, logo), owners edit, staff read; saved by the domain's
one checker and writer, models/invoices/letterhead.py. The logo is served to staff here, and to
customers from an invoice's own page (api/invoice_links.py).

Paths: /admin/settings/invoices (GET, POST: a multipart form, as the logo is a file) and
/admin/settings/invoices/logo."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import UploadFile
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import form, in_words, text
from api.admin.pages import page
from api.admin.security import HEADERS, PREFIX, owner_only
from models.errors import InvalidFields, NotFoundError
from models.invoices import letterhead
from models.invoices.letterhead import Letterhead, LetterheadInput

URL = f"{PREFIX}/settings/invoices"
TEXT_FIELDS = (*letterhead.LENGTHS, "bank_details", "footer")
# Each field as a refusal names it (settings_invoices.html's labels, as a sentence says them).
LABELS = {
    "legal_name": "the legal name",
    "address_line1": "address line 1",
    "address_line2": "address line 2",
    "city": "the town or city",
    "postcode": "the postcode",
    "country": "the country",
    "tax_number": "the tax number",
    "tax_label": "the tax label",
    "bank_details": "the bank details",
    "footer": "the footer",
    "logo": "the logo",
}
SAVED = "The invoice settings were saved: every invoice shows them from now on."


def logo_response(found: tuple[str, bytes], headers: dict[str, str]) -> Response[bytes]:
    """The logo's bytes as the image they were told to be when uploaded, never sniffed as
    anything else nor kept by a shared cache (the admin's and the customer's pages alike)."""
    content_type, data = found
    return Response(
        content=data,
        media_type=content_type,
        headers={
            **headers,
            "Cache-Control": "private, no-cache",
            "Content-Security-Policy": "default-src 'none'",
        },
    )


class InvoiceSettingsController(Controller):
    path = "/settings/invoices"

    async def _page(
        self,
        request: Request[Any, Any, Any],
        *,
        status_code: int = 200,
        typed: Letterhead | None = None,
        errors: dict[str, list[str]] | None = None,
        notice: str = "",
    ) -> Template:
        stored = await letterhead.read(request.user.workspace_id)
        return page(
            request, "settings_invoices.html", status_code=status_code, here="settings",
            title="Invoices", typed=typed or stored, stored=stored, errors=errors or {},
            notice=notice, bank=letterhead.BANK_DETAILS, footer=letterhead.FOOTER,
            lengths=letterhead.LENGTHS,
        )  # fmt: skip

    @get("/")
    async def show_invoice_settings(self, request: Request[Any, Any, Any]) -> Template:
        shown = await flash.take(request)
        return await self._page(request, notice=shown.notice)

    @post(
        "/",
        status_code=303,
        guards=[owner_only],
        request_max_body_size=letterhead.UPLOAD_BODY_BYTES,
    )
    async def save_invoice_settings(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        """A file input left empty sends a part without a name: the logo is kept."""
        fields = await form(request)
        upload = (await request.form()).get("logo")
        chosen = isinstance(upload, UploadFile) and bool(upload.filename)
        typed = LetterheadInput(
            **{field: text(fields, field) for field in TEXT_FIELDS},
            logo=await upload.read() if chosen and isinstance(upload, UploadFile) else None,
            remove_logo="remove_logo" in fields,
        )
        try:
            await letterhead.save(request.user.workspace_id, typed)
        except InvalidFields as invalid:
            stored = await letterhead.read(request.user.workspace_id)
            shown = Letterhead(
                **{field: getattr(typed, field) for field in TEXT_FIELDS},
                logo_type=stored.logo_type,
                logo_sha256=stored.logo_sha256,
            )
            errors = in_words(invalid.errors, LABELS)
            return await self._page(request, status_code=422, typed=shown, errors=errors)
        return await flash.redirect(request, URL, SAVED)

    @get("/logo")
    async def invoice_logo(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        found = await letterhead.logo(request.user.workspace_id)
        if found is None:
            raise NotFoundError("no logo")
        return logo_response(found, HEADERS)
