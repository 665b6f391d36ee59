"""Orders: list (newest first, 50 a page) and detail. Create and advance live here too."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get
from litestar.params import PathParameter, QueryParameter

from api.auth import Principal
from api.errors import NotFound
from api.openapi import COMMON_RESPONSES, ONE_RECORD_RESPONSES
from api.pagination import PageNumber, offset, page_envelope
from api.params import UpdatedSince, parse_updated_since
from api.schemas.common import Page
from api.schemas.orders import Order, OrderDetail, Stage, order_body, order_detail_body
from models.queries import orders as queries

PER_PAGE = 50

OrderId = Annotated[
    int,
    PathParameter(description="Numeric order id (document numbers like ORD-… are not accepted)"),
]


class OrderController(Controller):
    path = "/orders"
    tags = ["Orders"]

    @get(summary="List orders, newest first", responses=COMMON_RESPONSES)
    async def list_orders(
        self,
        request: Request[Principal, int, Any],
        stage: Annotated[
            Stage | None, QueryParameter(description="Only orders in this stage")
        ] = None,
        customer: Annotated[
            str | None,
            QueryParameter(description="Customer slug; an unknown slug gives an empty list"),
        ] = None,
        updated_since: UpdatedSince = None,
        page: PageNumber = 1,
    ) -> Page[Order]:
        principal = request.user
        total, rows, lines = await queries.list_orders(
            principal.workspace_id,
            stage=stage,
            customer_slug=customer,
            updated_since=parse_updated_since(updated_since),
            limit=PER_PAGE,
            offset=offset(page, PER_PAGE),
        )
        return page_envelope(
            request,
            [order_body(row, lines.get(row["id"], []), principal.timezone) for row in rows],
            page=page,
            per_page=PER_PAGE,
            total=total,
        )

    @get(
        "/{order_id:int}",
        summary="One order with history, invoices and artwork",
        responses=ONE_RECORD_RESPONSES,
    )
    async def get_order(
        self, request: Request[Principal, int, Any], order_id: OrderId
    ) -> OrderDetail:
        principal = request.user
        row = await queries.get_order(principal.workspace_id, order_id)
        if row is None:
            raise NotFound("Order not found")
        return order_detail_body(row, principal.timezone)
