"""The order forms' running total: `POST /admin/prices/preview` takes the new-order or edit
form as it is (htmx posts it as it is typed: templates/_order_form.html) and answers a
fragment with each line priced, marked "price list" or "typed", and the totals; or, while the
order cannot be priced yet, why, in the words a save would use.

The form is read by the functions the save uses (api/admin/order_forms.py) and priced by
`models.orders.creating.preview`, the create run in a transaction that is rolled back: what
is shown is what saving would make. Editing has no preview of its own, so the edit form is
previewed as a create of its content for the same customer (its lines, garments and "prices
include tax"; its reference is left out, as it is the order's own): the same pricing an edit
runs, since both price content from the price list with the customer's discount."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from litestar import Controller, Request, post
from litestar.response import Template

from api.admin import ship_to_forms
from api.admin.forms import form, whole_number
from api.admin.order_forms import (
    filled,
    form_errors,
    money,
    order_request,
    typed_order,
    update_request,
)
from api.admin.pages import page
from models.actors import Actor
from models.errors import DomainError, ErrorCode, InvalidFields
from models.orders import creating, garment_options
from models.orders.editing import Keep
from models.orders.garment_options import OrderContent
from models.orders.queries import LineRow, OrderRows

ADD_CONTENT = "Add a garment or a line to see prices."
CHOOSE_CUSTOMER = "Choose a customer to see prices."
TYPE_SIZES = "Type sizes to see prices."
# An edit previewed as a create counts one more open order than saving it would.
AT_LIMIT = (
    "Prices cannot be worked out here while the workspace is at its limit of open orders; "
    "saving this edit is not affected."
)
MAX_PROBLEMS = 8  # shown under the running total; the save shows every one beside its field


@dataclass(frozen=True)
class Preview:
    """What the running total shows: the lines and totals, or why not yet (`waiting`: a
    field still empty; `problems`: what stops the order being priced, as sentences)."""

    rows: OrderRows | None = None
    waiting: str = ""
    problems: Sequence[str] = field(default_factory=list)
    more: int = 0  # problems past MAX_PROBLEMS

    @property
    def lines(self) -> list[LineRow]:
        return [] if self.rows is None else list(self.rows.lines)

    @property
    def priced(self) -> bool:
        return self.rows is not None


def _has_sizes(item: dict[str, Any]) -> bool:
    """Something is typed in a size box (0 or blank is nothing yet)."""
    typed = [*item["sizes"].values(), item["other_quantity"]]
    return any(value and whole_number(value) != 0 for value in typed)


def _filled_line(line: dict[str, Any]) -> bool:
    return any(line[part] for part in ("description", "sku", "quantity", "unit_price"))


async def price_preview(
    request: Request[Any, Any, Any], typed: dict[str, Any], content: OrderContent | None
) -> Preview:
    """The running total of the form typed (`content`: the order the edit form edits, None
    for the new-order form). The ship-to is left out: it changes no price."""
    typed = filled(ship_to_forms.without_choice(typed))
    items = typed["items"]
    if not items and not any(_filled_line(line) for line in typed["lines"]):
        return Preview(waiting=ADD_CONTENT)
    if content is None and not typed["customer"]:
        return Preview(waiting=CHOOSE_CUSTOMER)
    if any(not _has_sizes(item) for item in items):
        return Preview(waiting=TYPE_SIZES)
    user = request.user
    actor = Actor.user(user.user_id)
    try:
        if content is None:  # exactly what the save passes to `creating.create`
            body = order_request(typed, user.currency)
            rows = await creating.preview(
                workspace_id=user.workspace_id, customer_id=body.customer_id,
                lines=body.new_lines(), items=body.new_items(), due_by=body.due_by,
                notes=body.notes or "", external_ref=body.external_ref,
                prices_include_tax=body.prices_include_tax, actor=actor,
            )  # fmt: skip
        else:
            edit = update_request(typed, user.currency).edit()
            inclusive = edit.prices_include_tax
            rows = await creating.preview(
                workspace_id=user.workspace_id, customer_id=content.order.customer_id,
                lines=edit.lines or (), items=edit.items or (),
                prices_include_tax=bool(content.order.prices_include_tax)
                if isinstance(inclusive, Keep) else inclusive,
                actor=actor,
            )  # fmt: skip
    except InvalidFields as invalid:
        shown = form_errors(invalid.errors, typed)
        problems = [message for messages in shown.values() for message in messages]
        return Preview(problems=problems[:MAX_PROBLEMS], more=max(0, len(problems) - MAX_PROBLEMS))
    except DomainError as refused:  # the plan's open-order limit
        if content is not None and refused.code == ErrorCode.PLAN_LIMIT:
            return Preview(problems=[AT_LIMIT])
        return Preview(problems=[refused.message])
    return Preview(rows=rows)


class PricePreviewController(Controller):
    path = "/prices"

    @post("/preview", status_code=200)
    async def preview_prices(self, request: Request[Any, Any, Any]) -> Template:
        """The form's fields as posted; `?order=ORD-…` for the edit form of that order. Always
        200 (htmx swaps only a success): what cannot be priced is said in the fragment."""
        ref = request.query_params.get("order", "")
        content = None
        if ref:
            content = await garment_options.order_content(request.user.workspace_id, ref)
            if content is None:
                missing = Preview(problems=[f"Order {ref} was not found."])
                return fragment(request, missing)
        typed = typed_order(await form(request))
        return fragment(request, await price_preview(request, typed, content))


def fragment(request: Request[Any, Any, Any], preview: Preview) -> Template:
    """The running total as htmx swaps it in (with the total for the form's foot)."""
    return page(request, "_price_preview.html", preview=preview, money=money, fragment=True)
