"""The work order: one order on paper for the shop floor (A4 or Letter), with a
QR code back to the order page at the revision printed, so an outdated printout is noticed."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from litestar import Controller, Request, get
from litestar.params import PathParameter
from litestar.response import Template

from api import links
from api.admin import qr
from api.admin.order_forms import Shown
from api.admin.pages import page
from api.admin.security import PREFIX
from models.errors import NotFoundError
from models.orders.work_order import work_order

OrderRef = Annotated[
    str, PathParameter(description="The order's ORD- number (ORD-2026-0042) or its id")
]


def order_url(request: Request[Any, Any, Any], number: str, revision: int) -> str:
    """The order page's absolute address at `revision`, built as every absolute link is
    (api/links.py: PUBLIC_URL when set, else the address the request was made to)."""
    path = f"{PREFIX}/orders/{quote(number, safe='')}"
    scope = {**request.scope, "path": request.scope.get("root_path", "") + path}
    return f"{links.endpoint_url(scope, request.app.state.get(links.STATE_KEY))}?rev={revision}"


class WorkOrderController(Controller):
    path = "/orders"

    @get("/{ref:str}/work-order")
    async def show_work_order(self, request: Request[Any, Any, Any], ref: OrderRef) -> Template:
        found = await work_order(request.user.workspace_id, ref)
        if found is None:
            raise NotFoundError(f"order {ref} not found")
        order = found.order
        url = order_url(request, order.number, order.revision)
        return page(
            request, "work_order.html", title=f"Work order {order.number}", o=order,
            items=found.items, lines=found.lines, approved=found.approved_proof,
            qr=qr.svg(url, title=f"Order {order.number}, revision {order.revision}"), qr_url=url,
            shown=Shown(request.user.timezone),
        )  # fmt: skip
