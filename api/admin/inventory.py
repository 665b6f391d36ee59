"""Inventory: the SKU list (search, low-stock filter), a SKU's page with its stock movements,
adjusting on hand (signed delta, required reason), the SKU's cost (what the shop pays for
one, `pressline sku update`: models/catalogue.py) and the CSV import by upload, which is
`pressline sku import` (models/catalogue.py: all rows or none, errors by line).

Paths: /admin/inventory (`q`, `status=low`, `page`), /inventory/{code} (`page` of movements),
POST /inventory/{code}/adjust (`delta`, `reason`; also taken without `/adjust`, the shape the
route table shows), POST /inventory/{code}/cost (`cost` in major units, as every amount of the
admin is typed; empty: unknown), POST /inventory/import (multipart `file`, up to MAX_UPLOAD).
A code is one percent-encoded segment, and every SKU also answers at /inventory/id/{id}:
api/admin/sku_urls.py builds and reads these addresses.
Staff and owners alike; each stock change records who made it (models/actors.py).
"""

from __future__ import annotations

import io
from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.datastructures import UploadFile
from litestar.exceptions import HTTPException
from litestar.params import PathParameter
from litestar.response import Redirect, Template
from litestar.status_codes import HTTP_413_REQUEST_ENTITY_TOO_LARGE

from api.admin import flash
from api.admin.customers import page_number
from api.admin.forms import form, in_words, text, whole_number
from api.admin.item_forms import major
from api.admin.order_forms import Shown, money
from api.admin.pages import page
from api.admin.sku_urls import ADJUST, COST, PATH, sku_url, target
from models import accounts, catalogue, stock, stock_movements
from models.actors import Actor
from models.errors import FieldErrors, InvalidFields, NotFoundError
from models.file_names import safe_file_name
from models.queries import inventory_pages as queries

SkuPath = Annotated[str, PathParameter(description="SKU code (percent-encoded) or id/{id}")]
MAX_UPLOAD = 5 * 1024 * 1024  # the documented limit of a CSV import; 20,000 SKUs is ~1.5 MiB
# The multipart form around the file (boundary, part headers, the CSRF field) adds well under
# this; a larger body is refused with the 413 page before it is read.
IMPORT_BODY_LIMIT = MAX_UPLOAD + 64 * 1024
TOO_LARGE = (
    f"The file is larger than {MAX_UPLOAD // 1024 // 1024} MiB, the most one import takes. "
    "Nothing was imported: split it into smaller files and import each."
)
MOVEMENTS_PAGE = 50
ADJUST_LABELS = {"delta": "the change", "reason": "the reason"}  # as refusals name them
COST_LABELS = {"cost": "the cost"}


def too_large(request: Request[Any, Any, Any], _: HTTPException) -> Template:
    """The import's 413 page: a body past IMPORT_BODY_LIMIT is refused before it is read."""
    return page(request, "error.html", status_code=413, title="File too large", message=TOO_LARGE)


def status_of(row: queries.SkuLine) -> str:
    return stock.sku_status(
        on_hand=row.on_hand, reserved=row.reserved, reorder_point=row.reorder_point,
        discontinued=bool(row.discontinued),
    )  # fmt: skip


class InventoryController(Controller):
    path = "/inventory"

    @get("/")
    async def list_skus(self, request: Request[Any, Any, Any]) -> Template:
        return await self._list(request)

    async def _list(
        self,
        request: Request[Any, Any, Any],
        *,
        import_errors: dict[str, list[str]] | None = None,
        message: str = "",
        status_code: int = 422,
    ) -> Template:
        search = request.query_params.get("q", "")[:500]
        low = request.query_params.get("status") == "low"
        number = page_number(request)
        total, rows = await queries.sku_list(
            request.user.workspace_id, search=search, low=low, offset=(number - 1) * queries.PAGE
        )
        failed = import_errors is not None or bool(message)
        return page(
            request, "inventory.html", status_code=status_code if failed else 200, here="inventory",
            title="Inventory", rows=rows, total=total, q=search, low=low,
            page_number=number, more=number * queries.PAGE < total, status_of=status_of,
            sku_url=sku_url, money=money,
            import_errors=import_errors or {}, message=message,
            notice="" if failed else (await flash.take(request)).notice,
        )  # fmt: skip

    @get("/{code:path}")
    async def show_sku(self, request: Request[Any, Any, Any], code: SkuPath) -> Template:
        named = target(request.scope)
        if named is None or named.action:
            raise NotFoundError(code)
        return await self._show(request, named.sku)

    async def _show(
        self,
        request: Request[Any, Any, Any],
        ref: int | str,
        *,
        typed: dict[str, str] | None = None,
        errors: dict[str, list[str]] | None = None,
    ) -> Template:
        workspace_id = request.user.workspace_id
        row = await queries.sku(workspace_id, ref)
        if row is None:
            raise NotFoundError(f"SKU {ref} not found")
        number = page_number(request)
        total, movements = await stock_movements.for_sku(
            workspace_id, row.id, limit=MOVEMENTS_PAGE, offset=(number - 1) * MOVEMENTS_PAGE
        )
        cost = "" if row.cost_cents is None else major(row.cost_cents)
        return page(
            request, "sku.html", status_code=422 if errors else 200, here="inventory",
            title=f"SKU {row.code}", sku=row, status=status_of(row), movements=movements,
            movement_total=total, page_number=number,
            more=number * MOVEMENTS_PAGE < total, who=Shown.actor, sku_url=sku_url,
            money=money, typed={"delta": "", "reason": "", "cost": cost, **(typed or {})},
            errors=errors or {}, notice="" if errors else (await flash.take(request)).notice,
        )  # fmt: skip

    @post("/{code:path}", status_code=303)
    async def adjust(self, request: Request[Any, Any, Any], code: SkuPath) -> Template | Redirect:
        """`POST …/{code}/adjust`; the route table's shape, `POST …/{code}`, adjusts too.
        `POST …/{code}/cost` sets the cost (`_set_cost`)."""
        named = target(request.scope)
        if named is not None and named.action == COST:
            return await self._set_cost(request, named.sku)
        if named is None or named.action not in ("", ADJUST):
            raise NotFoundError(code)
        fields = await form(request)
        typed = {"delta": text(fields, "delta").strip(), "reason": text(fields, "reason")}
        delta = whole_number(typed["delta"].removeprefix("+"))  # None: refused by stock.adjust
        try:
            done = await stock.adjust(
                workspace_id=request.user.workspace_id, sku=named.sku, delta=delta,
                reason=typed["reason"], actor=Actor.user(request.user.user_id),
            )  # fmt: skip
        except InvalidFields as invalid:
            errors = in_words(invalid.errors, ADJUST_LABELS)
            return await self._show(request, named.sku, typed=typed, errors=errors)
        return await flash.redirect(
            request, sku_url(done.code, done.sku_id), f"On hand {delta:+,}: now {done.on_hand:,}."
        )

    async def _set_cost(
        self, request: Request[Any, Any, Any], ref: int | str
    ) -> Template | Redirect:
        """The SKU's cost, typed in major units (`2.51`); empty: unknown. The same domain
        function as `pressline sku update --cost-cents`."""
        fields = await form(request)
        typed = {"cost": text(fields, "cost").strip()}
        workspace_id = request.user.workspace_id
        try:
            refused = FieldErrors()
            cents = catalogue.typed_cost(refused, "cost", typed["cost"], request.user.currency)
            refused.check()
            done = await catalogue.update_sku(workspace_id, ref, cost_cents=cents)
        except InvalidFields as invalid:
            errors = in_words(invalid.errors, COST_LABELS, {"cost_cents": "cost"})
            return await self._show(request, ref, typed=typed, errors=errors)
        notice = "Cost now unknown."
        if done.cost_cents is not None:
            currency = (await accounts.get_workspace(workspace_id)).currency
            notice = f"Cost now {money(done.cost_cents, currency)}."
        return await flash.redirect(request, sku_url(done.code, done.id), notice)

    @post(
        "/import",
        status_code=303,
        request_max_body_size=IMPORT_BODY_LIMIT,
        exception_handlers={HTTP_413_REQUEST_ENTITY_TOO_LARGE: too_large},
    )
    async def import_file(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        data = await request.form()
        upload = data.get("file")
        if not isinstance(upload, UploadFile) or not upload.filename:
            return await self._list(request, message="Choose a CSV file to import.")
        content = await upload.read(MAX_UPLOAD + 1)
        if len(content) > MAX_UPLOAD:
            return await self._list(request, message=TOO_LARGE, status_code=413)
        try:
            # utf-8-sig: spreadsheet exports often start with a byte-order mark.
            lines = io.StringIO(content.decode("utf-8-sig"), newline="").readlines()
        except UnicodeDecodeError:
            return await self._list(request, message="The file is not UTF-8 text (CSV).")
        try:
            ids = await catalogue.import_skus(
                request.user.workspace_id, lines, actor=Actor.user(request.user.user_id)
            )
        except InvalidFields as invalid:
            return await self._list(request, import_errors=invalid.errors)
        name = safe_file_name(upload.filename)  # only shown, in the notice
        return await flash.redirect(
            request, PATH,
            f"Imported {len(ids):,} SKU{'' if len(ids) == 1 else 's'} from {name}.",
        )  # fmt: skip
