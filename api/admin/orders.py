"""Orders on the shop floor: the list, the board, an order's page, creating an
order and moving it through the stages, cancelling for owners. Every change is the domain
function the API (`POST /orders`, `/advance`) or `pressline order cancel` calls: the same rules,
refusals, events and stock effects; the admin adds only who did it (the staff member)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, NamedTuple
from urllib.parse import urlencode

from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin import flash, ship_to_forms
from api.admin.customers import page_number
from api.admin.forms import form, text, whole_number
from api.admin.item_forms import for_display
from api.admin.once import Created, create_once, new_token, token_of
from api.admin.order_forms import (
    PRICES_INCLUDE_TAX,
    STAGE_NAMES,
    Shown,
    after_action,
    expected_revision,
    filled,
    form_errors,
    money,
    move_request,
    only_changes,
    order_request,
    past_due_warning,
    typed_edit,
    typed_move,
    typed_order,
    unconfirmed_past_due,
    update_request,
)
from api.admin.pages import page
from api.admin.price_preview import Preview, price_preview
from api.admin.security import PREFIX, owner_only
from models import accounts
from models.actors import Actor
from models.admin_sessions import AdminUser
from models.errors import DomainError, InvalidFields, NotFoundError, StaleError, summary
from models.filters import MAX_ID
from models.garments import LOCATION_LABELS, METHOD_LABELS
from models.orders import board as order_board
from models.orders import cancelling, creating, editing, garment_options, stage_moves
from models.orders import pages as order_pages
from models.orders.garment_options import OrderContent
from models.orders.pages import DUE_FILTERS, Filters, OrderHead
from models.queries import admin as admin_queries
from models.stages import API_TARGET_STAGES, CONTENT_EDITABLE, OPEN, STAGES

OrderRef = Annotated[
    str, PathParameter(description="The order's ORD- number (ORD-2026-0042) or its id")
]
RETURN_TO = {"board": f"{PREFIX}/orders/board"}  # where a move may send the browser back to
PREVIEW_URL = f"{PREFIX}/prices/preview"  # the forms' running total (api/admin/price_preview.py)
PRICES = "prices"  # the button asking for the running total without script


def _actor(request: Request[Any, Any, Any]) -> Actor:
    return Actor.user(request.user.user_id)


def _url(path: str, **query: Any) -> str:
    kept = {name: value for name, value in query.items() if value not in (None, "")}
    return f"{PREFIX}{path}" + (f"?{urlencode(kept)}" if kept else "")


async def _order(request: Request[Any, Any, Any], ref: str) -> OrderHead:
    found = await order_pages.find(request.user.workspace_id, ref)
    if found is None:
        raise NotFoundError(f"order {ref} not found")
    return found


class OrderController(Controller):
    path = "/orders"

    # --- reading ---------------------------------------------------------------------------

    @get("/")
    async def list_orders(self, request: Request[Any, Any, Any]) -> Template:
        user: AdminUser = request.user
        query = request.query_params
        filters = Filters(
            stage=query.get("stage") if query.get("stage") in (*STAGES, "open") else None,
            customer_id=whole_number(query.get("customer", "")),
            q=query.get("q", "").strip() or None,
            due=query.get("due") if query.get("due") in DUE_FILTERS else None,
        )
        number = page_number(request)
        shown = Shown(user.timezone)
        total, rows = await order_pages.list_orders(
            user.workspace_id, filters, today=shown.today, page=number
        )
        kept = _query(filters)
        return page(
            request, "orders.html", here="orders", title="Orders", rows=rows, total=total,
            filters=filters, shown=shown, stages=STAGES, stage_names=STAGE_NAMES,
            customer_name=rows[0].customer_name if rows and filters.customer_id else None,
            newer=_url("/orders", **kept, page=number - 1) if number > 1 else None,
            older=_url("/orders", **kept, page=number + 1)
            if number * order_pages.PER_PAGE < total else None,
            notice=(await flash.take(request)).notice,
        )  # fmt: skip

    @get("/board")
    async def show_board(self, request: Request[Any, Any, Any]) -> Template:
        return await _board_page(request, notice=(await flash.take(request)).notice)

    @get("/{ref:str}")
    async def show_order(self, request: Request[Any, Any, Any], ref: OrderRef) -> Template:
        """`?rev=N` (a printed work order's QR code) names the revision printed: the page says
        when the order has changed since (other values are ignored)."""
        rev = whole_number(request.query_params.get("rev", ""))
        return await self._order_page(
            request, ref, notice=(await flash.take(request)).notice,
            printed_revision=rev if rev is not None and 0 < rev <= MAX_ID else None,
        )  # fmt: skip

    async def _order_page(
        self, request: Request[Any, Any, Any], ref: str, *, status_code: int = 200, **extra: Any
    ) -> Template:
        """The order's page; `extra` carries a refused move's message, errors and typed values."""
        user: AdminUser = request.user
        found = await order_pages.order_page(user.workspace_id, ref)
        if found is None:
            raise NotFoundError(f"order {ref} not found")
        context: dict[str, Any] = {
            "errors": {}, "message": None, "typed": {}, "printed_revision": None, **extra
        }  # fmt: skip
        return page(
            request, "order.html", status_code=status_code, here="orders",
            title=f"Order {found.order.number}", o=found.order, lines=found.lines,
            invoices=found.invoices, timeline=found.timeline, items=found.items,
            shown=Shown(user.timezone),
            targets=API_TARGET_STAGES, stage_names=STAGE_NAMES, **context,
        )  # fmt: skip

    # --- creating and editing -------------------------------------------------------------

    @get("/new")
    async def new_order(self, request: Request[Any, Any, Any]) -> Template:
        workspace = await accounts.get_workspace(request.user.workspace_id)
        typed = typed_order({
            "customer": request.query_params.get("customer", ""),
            PRICES_INCLUDE_TAX: "1" if workspace.prices_include_tax else "0",
        })  # fmt: skip
        return await self._new_form(request, typed=typed, once=new_token())

    async def _new_form(
        self,
        request: Request[Any, Any, Any],
        *,
        typed: dict[str, Any],
        once: str,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        message: str | None = None,
        focus: str | None = None,
        past_due: dt.date | None = None,
        preview: Preview | None = None,
    ) -> Template:
        return page(
            request, "order_new.html", status_code=status_code, here="orders", title="New order",
            customers=await admin_queries.customers(request.user.workspace_id),
            **await self._form_context(request, typed, errors or {}, focus, past_due),
            form_url=_url("/orders/new"), preview_url=PREVIEW_URL, preview=preview, money=money,
            ship_to=await ship_to_forms.choices(request.user.workspace_id, typed),
            save_label="Create order anyway" if past_due else "Create order",
            back_url=_url("/orders"), back_label="Back to the orders", edited=None,
            message=message, once=once,
        )  # fmt: skip

    async def _form_context(
        self,
        request: Request[Any, Any, Any],
        typed: dict[str, Any],
        errors: dict[str, list[str]],
        focus: str | None,
        past_due: dt.date | None = None,
    ) -> dict[str, Any]:
        """What both order forms show besides the order: the garments with their size columns
        (the SKUs' sizes and stock for the style and colour typed), what to suggest, and the
        warning of a due date in the past with the field that confirms it."""
        workspace_id = request.user.workspace_id
        runs = await garment_options.size_runs(
            workspace_id, [(item["style"], item["colour"]) for item in typed["items"]]
        )
        return {
            "typed": typed,
            "garments": for_display(typed["items"], runs, errors),
            "offered": await garment_options.offered(workspace_id),
            "errors": errors,
            "focus": focus,
            "locations": LOCATION_LABELS,
            "methods": METHOD_LABELS,
            "past_due": past_due_warning(past_due) if past_due else None,
            "confirm_due_by": past_due.isoformat() if past_due else "",
        }

    @post("/", status_code=303)
    async def create_order(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        return await self._create(request)

    @post("/new", status_code=303)
    async def create_order_from_form(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        """The new-order form's own address: its row buttons and its save."""
        return await self._create(request)

    async def _create(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        fields = await form(request)
        typed = typed_order(fields)
        once = token_of(fields)  # kept while the form is shown again: api/admin/once.py
        action = text(fields, "action") or "save"
        if action == PRICES:  # without script: the form again, with its running total
            preview = await price_preview(request, typed, None)
            return await self._new_form(request, typed=typed, once=once, preview=preview)
        if action != "save":  # a row added or removed, sizes shown: the form again
            typed, focus = after_action(action, typed)
            return await self._new_form(request, typed=typed, once=once, focus=focus)
        typed = filled(typed)
        try:
            body = order_request(typed, request.user.currency)
            past = unconfirmed_past_due(typed, body.due_by, request.user.timezone)
            if past is not None:  # a second click saves it
                return await self._new_form(
                    request, typed=typed, once=once, status_code=422, past_due=past
                )

            async def create() -> Created:
                made = await creating.create(
                    workspace_id=request.user.workspace_id, customer_id=body.customer_id,
                    lines=body.new_lines(), items=body.new_items(), due_by=body.due_by,
                    notes=body.notes or "", external_ref=body.external_ref,
                    prices_include_tax=body.prices_include_tax, actor=_actor(request),
                    ship_to=None if body.ship_to is None else body.ship_to.new_address(),
                    ship_to_address_id=body.ship_to_address_id,
                )  # fmt: skip
                number = made.order.number
                return Created(_url(f"/orders/{number}"), number)

            return await create_once(
                request, fields, create, created=lambda order: f"Order {order.name} created."
            )
        except InvalidFields as invalid:
            shown = form_errors(invalid.errors, typed)
            return await self._new_form(
                request, typed=typed, once=once, status_code=422, message=summary(shown),
                errors=shown,
            )  # fmt: skip
        except DomainError as refused:  # the plan's open-order limit
            return await self._new_form(
                request, typed=typed, once=once, status_code=422, message=refused.message
            )

    @get("/{ref:str}/edit")
    async def edit_order_form(self, request: Request[Any, Any, Any], ref: OrderRef) -> Template:
        content = await _content(request, ref)
        return await self._edit_form(
            request, content, typed=typed_edit(content, request.user.timezone)
        )

    async def _edit_form(
        self,
        request: Request[Any, Any, Any],
        content: OrderContent,
        *,
        typed: dict[str, Any],
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        message: str | None = None,
        focus: str | None = None,
        past_due: dt.date | None = None,
        preview: Preview | None = None,
    ) -> Template:
        order = content.order
        editable = order.stage in CONTENT_EDITABLE
        return page(
            request, "order_edit.html", status_code=status_code, here="orders",
            title=f"Edit {order.number}",
            **await self._form_context(request, typed, errors or {}, focus, past_due),
            form_url=_url(f"/orders/{order.number}/edit"),
            save_label="Save anyway" if past_due else "Save changes",
            back_url=_url(f"/orders/{order.number}"), back_label="Back to the order",
            edited=order, content_editable=editable,
            ship_to=await ship_to_forms.choices(
                request.user.workspace_id, typed, editing=True, current=order.ship_to
            ),
            stage_name=STAGE_NAMES.get(order.stage, order.stage), message=message,
            preview_url=f"{PREVIEW_URL}?{urlencode({'order': order.number})}" if editable else None,
            preview=preview, money=money,
        )  # fmt: skip

    @post("/{ref:str}/edit", status_code=303)
    async def save_order_edit(
        self, request: Request[Any, Any, Any], ref: OrderRef
    ) -> Template | Redirect:
        """The edit form's buttons and its save: `edit_order`, the function PATCH calls,
        with the form's revision as the one expected (a change meanwhile refuses the save)."""
        content = await _content(request, ref)
        fields = await form(request)
        typed = typed_order(fields)
        action = text(fields, "action") or "save"
        if action == PRICES:  # without script: the form again, with its running total
            preview = await price_preview(request, typed, content)
            return await self._edit_form(request, content, typed=typed, preview=preview)
        if action != "save":
            typed, focus = after_action(action, typed)
            return await self._edit_form(request, content, typed=typed, focus=focus)
        typed = filled(typed)
        number = content.order.number
        try:
            asked = update_request(typed, request.user.currency).edit()
            edit = only_changes(asked, content, request.user.timezone)
            past = unconfirmed_past_due(typed, edit.due_by, request.user.timezone)
            if past is not None:  # a new due date in the past: a second click saves it
                return await self._edit_form(
                    request, content, typed=typed, status_code=422, past_due=past
                )
            await editing.edit_order(
                workspace_id=request.user.workspace_id, order_id=content.order.id, edit=edit,
                actor=_actor(request), expected_revision=expected_revision(typed),
            )  # fmt: skip
        except InvalidFields as invalid:
            shown = form_errors(invalid.errors, typed)
            return await self._edit_form(
                request, content, typed=typed, status_code=422,
                message=summary(shown), errors=shown,
            )  # fmt: skip
        except NotFoundError:
            raise
        except StaleError as stale:  # someone else saved it meanwhile
            return await self._edit_form(
                request, content, typed=typed, status_code=409,
                message=f"{stale.message} Open the edit page again to start from the order as "
                "it is now.",
            )  # fmt: skip
        except DomainError as refused:  # the order's stage
            return await self._edit_form(
                request, content, typed=typed, status_code=422, message=refused.message
            )
        notice = f"Order {number} saved." if edit.changes_anything else "Nothing was changed."
        return await flash.redirect(request, _url(f"/orders/{number}"), notice)

    # --- moving and cancelling ---------------------------------------------------------------

    @post("/{ref:str}/stage", status_code=303)
    async def move_order(
        self, request: Request[Any, Any, Any], ref: OrderRef
    ) -> Template | Redirect:
        order = await _order(request, ref)
        fields = await form(request)
        typed = typed_move(fields)
        from_board = text(fields, "return_to") == "board"  # a refusal is shown on the board
        try:
            move = move_request(typed)
            await stage_moves.advance_order(
                workspace_id=request.user.workspace_id, order_id=order.id,
                to_stage=move.to_stage, carrier=move.carrier,
                tracking_number=move.tracking_number, actor=_actor(request),
            )  # fmt: skip
        except InvalidFields as invalid:
            if from_board:
                return await _board_page(
                    request, status_code=422,
                    refused=Refused(order.number, invalid.message, invalid.errors, typed),
                )  # fmt: skip
            return await self._order_page(
                request, ref, status_code=422, errors=invalid.errors, message=invalid.message,
                typed=typed,
            )  # fmt: skip
        except NotFoundError:
            raise
        except DomainError as refused:  # the workspace's rules
            if from_board:
                return await _board_page(
                    request, status_code=422,
                    refused=Refused(order.number, refused.message, {}, typed),
                )  # fmt: skip
            return await self._order_page(
                request, ref, status_code=422, message=refused.message, typed=typed
            )
        target = RETURN_TO.get(text(fields, "return_to"), _url(f"/orders/{order.number}"))
        name = STAGE_NAMES[move.to_stage]
        return await flash.redirect(request, target, f"Order {order.number} moved to {name}.")

    @get("/{ref:str}/cancel", guards=[owner_only])
    async def confirm_cancel(self, request: Request[Any, Any, Any], ref: OrderRef) -> Template:
        order = await _order(request, ref)
        return page(
            request, "order_cancel.html", here="orders", title=f"Cancel {order.number}", o=order,
            shown=Shown(request.user.timezone), open_stages=OPEN,
        )  # fmt: skip

    @post("/{ref:str}/cancel", guards=[owner_only], status_code=303)
    async def cancel_order(
        self, request: Request[Any, Any, Any], ref: OrderRef
    ) -> Template | Redirect:
        order = await _order(request, ref)
        try:
            await cancelling.cancel_order(
                workspace_id=request.user.workspace_id, order_id=order.id, actor=_actor(request)
            )
        except NotFoundError:
            raise
        except DomainError as refused:  # a finished order
            return await self._order_page(request, ref, status_code=422, message=refused.message)
        return await flash.redirect(
            request,
            _url(f"/orders/{order.number}"),
            f"Order {order.number} cancelled; its unconsumed stock reservations were released.",
        )


class Refused(NamedTuple):
    """A move the board asked for and the rules refused: shown on the board, on its card."""

    number: str
    message: str
    errors: dict[str, list[str]]
    typed: dict[str, str]


async def _board_page(
    request: Request[Any, Any, Any],
    *,
    status_code: int = 200,
    notice: str = "",
    refused: Refused | None = None,
) -> Template:
    """The board; after a refused move, with its reason and what was typed on its card."""
    user: AdminUser = request.user
    return page(
        request, "board.html", status_code=status_code, here="board", title="Board",
        columns=await order_board.board(user.workspace_id), shown=Shown(user.timezone),
        notice=notice, refused=refused, board_url=RETURN_TO["board"],
    )  # fmt: skip


async def _content(request: Request[Any, Any, Any], ref: str) -> OrderContent:
    found = await garment_options.order_content(request.user.workspace_id, ref)
    if found is None:
        raise NotFoundError(f"order {ref} not found")
    return found


def _query(filters: Filters) -> dict[str, Any]:
    """The list's filters as query parameters (kept by the pager)."""
    return {
        "stage": filters.stage,
        "customer": filters.customer_id,
        "q": filters.q,
        "due": filters.due,
    }
