"""The packing slip: what goes in an order's parcel, on one sheet for the box (A4 or Letter):
the shop, the order's number and references, the ship-to, the customer, each garment's sizes
and quantities and each other line's quantity — no prices. No navigation; a Print button.

Path: /admin/orders/{number}/packing-slip (the order's number or id). Staff and owners alike.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get
from litestar.params import PathParameter
from litestar.response import Template

from api.admin.order_forms import Shown
from api.admin.pages import page
from models.errors import NotFoundError
from models.orders.packing_slip import packing_slip

OrderRef = Annotated[
    str, PathParameter(description="The order's ORD- number (ORD-2026-0042) or its id")
]


class PackingSlipController(Controller):
    path = "/orders"

    @get("/{ref:str}/packing-slip")
    async def show_packing_slip(self, request: Request[Any, Any, Any], ref: OrderRef) -> Template:
        found = await packing_slip(request.user.workspace_id, ref)
        if found is None:
            raise NotFoundError(f"order {ref} not found")
        return page(
            request, "packing_slip.html", title=f"Packing slip {found.order.number}",
            slip=found, o=found.order, shown=Shown(request.user.timezone),
        )  # fmt: skip
