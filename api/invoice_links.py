"""The customer's invoice page, `/i/{token}`: no login, the emailed link is the key
(models/invoices/links.py). The same sheet as the admin's invoice page (its template without the
staff's parts), made to print, with the shop's logo at `/i/{token}/logo`. An unknown, altered or
expired token answers the proof links' 404 page."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Response, Router, get
from litestar.params import PathParameter
from litestar.response import Template

from api.admin.invoice_settings import logo_response
from api.admin.invoices import METHOD_LABELS
from api.admin.order_forms import Shown, money
from api.admin.pages import HERE
from api.proofs.render import PAGE_HEADERS, html
from models import clock
from models.invoices import links

PREFIX = "/i"
Token = Annotated[str, PathParameter(description="The link's token, as emailed")]
# The sheet's stylesheet and Print button script, the admin's own files.
ASSETS = {name: (HERE / "static" / name).read_bytes() for name in ("invoice.css", "print.js")}


def _not_found() -> Response[str]:
    return html("missing.html", status_code=404)


def _asset(name: str, media_type: str) -> Response[bytes]:
    return Response(
        content=ASSETS[name],
        media_type=media_type,
        headers={**PAGE_HEADERS, "Cache-Control": "public, max-age=3600"},
    )


@get("/assets/invoice.css", include_in_schema=False)
async def invoice_stylesheet() -> Response[bytes]:
    return _asset("invoice.css", "text/css")


@get("/assets/print.js", include_in_schema=False)
async def print_script() -> Response[bytes]:
    return _asset("print.js", "text/javascript")


@get("/{token:str}", include_in_schema=False)
async def show_invoice(token: Token) -> Template | Response[str]:
    now = clock.now()
    found = await links.open_link(token, now)
    if found is None:
        return _not_found()
    context: dict[str, Any] = {
        "title": f"Invoice {found.invoice.number} · {found.shop_name}",
        "i": found.invoice,
        "found": found,
        "balance": found.balance_cents,
        "money": money,
        "shown": Shown(found.shop.timezone),
        "methods": METHOD_LABELS,
        "overdue": found.overdue(now),
        "staff": False,
        "assets": f"{PREFIX}/assets",
        "logo_url": f"{PREFIX}/{token}/logo",
    }
    return Template(template_name="invoice.html", context=context, headers=PAGE_HEADERS)


@get("/{token:str}/logo", include_in_schema=False)
async def invoice_logo(token: Token) -> Response[Any]:
    found = await links.logo_of(token, clock.now())
    if found is None:
        return _not_found()
    return logo_response(found, PAGE_HEADERS)


def invoice_links_router() -> Router:
    return Router(
        path=PREFIX,
        route_handlers=[invoice_stylesheet, print_script, show_invoice, invoice_logo],
        include_in_schema=False,
    )
