"""Customer organisations: list (by name, 50 a page) and detail."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get
from litestar.params import PathParameter

from api.auth import Principal
from api.errors import NotFound
from api.openapi import COMMON_RESPONSES, ONE_RECORD_RESPONSES
from api.pagination import offset, page_envelope
from api.params import query_operation
from api.schemas.common import Page
from api.schemas.customers import CustomerListQuery
from api.validation import parse_query
from models.customers import queries
from models.schemas.customers import (
    CustomerDetail,
    CustomerRow,
    customer_detail_body,
    customer_row_bodies,
)

PER_PAGE = 50


class CustomerController(Controller):
    path = "/customers"
    tags = ["Customers"]

    @get(
        summary="List customers, ordered by name",
        responses=COMMON_RESPONSES,
        operation_class=query_operation(CustomerListQuery),
    )
    async def list_customers(self, request: Request[Principal, int, Any]) -> Page[CustomerRow]:
        query = parse_query(request.query_params, CustomerListQuery)
        total, rows, order_counts = await queries.list_customers(
            request.user.workspace_id,
            search=query.search,
            updated_since=query.updated_since,
            limit=PER_PAGE,
            offset=offset(query.page, PER_PAGE),
        )
        return page_envelope(
            request,
            customer_row_bodies(rows, order_counts),
            page=query.page,
            per_page=PER_PAGE,
            total=total,
        )

    @get("/{customer_id:int}", summary="One customer", responses=ONE_RECORD_RESPONSES)
    async def get_customer(
        self,
        request: Request[Principal, int, Any],
        customer_id: Annotated[int, PathParameter(description="Numeric customer id")],
    ) -> CustomerDetail:
        row = await queries.get_customer(request.user.workspace_id, customer_id)
        if row is None:
            raise NotFound("Customer not found")
        return customer_detail_body(row)
