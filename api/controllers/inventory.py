"""SKUs with live stock levels (by code, 100 a page)."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get

from api.auth import Principal
from api.openapi import COMMON_RESPONSES
from api.pagination import offset, page_envelope
from api.params import query_operation
from api.schemas.common import Page
from api.schemas.inventory import Sku, SkuListQuery, sku_bodies
from api.validation import parse_query
from models.queries import inventory as queries

PER_PAGE = 100


class InventoryController(Controller):
    path = "/inventory"
    tags = ["Inventory"]

    @get(
        summary="List SKUs with live stock, ordered by code",
        responses=COMMON_RESPONSES,
        operation_class=query_operation(SkuListQuery),
    )
    async def list_inventory(self, request: Request[Principal, int, Any]) -> Page[Sku]:
        query = parse_query(request.query_params, SkuListQuery)
        total, rows = await queries.list_skus(
            request.user.workspace_id,
            search=query.search,
            low=query.low_only,
            updated_since=query.updated_since,
            limit=PER_PAGE,
            offset=offset(query.page, PER_PAGE),
        )
        return page_envelope(
            request, sku_bodies(rows), page=query.page, per_page=PER_PAGE, total=total
        )
