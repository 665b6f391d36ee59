"""SKUs with live stock levels (by code, 100 a page)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get
from litestar.params import QueryParameter

from api.auth import Principal
from api.errors import ValidationFailed
from api.openapi import COMMON_RESPONSES
from api.pagination import PageNumber, offset, page_envelope
from api.params import Search, UpdatedSince, parse_updated_since
from api.schemas.common import Page
from api.schemas.inventory import Sku, sku_bodies
from models.queries import inventory as queries

PER_PAGE = 100
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}


def parse_low(value: str | None) -> bool | None:
    if value is None:
        return None
    try:
        return _BOOLEANS[value]
    except KeyError:
        raise ValidationFailed({"low": ["low must be one of true, false, 1, 0."]}) from None


class InventoryController(Controller):
    path = "/inventory"
    tags = ["Inventory"]

    @get(summary="List SKUs with live stock, ordered by code", responses=COMMON_RESPONSES)
    async def list_inventory(
        self,
        request: Request[Principal, int, Any],
        search: Search = None,
        low: Annotated[
            str | None,
            QueryParameter(
                description=(
                    "Only SKUs whose available stock is at or under their reorder point "
                    "(discontinued SKUs excluded): true or 1. false or 0 (the default) "
                    "does not filter. Any other value (also `TRUE`, `yes`) is a 422."
                ),
                schema_extra={"enum": ["true", "false", "1", "0"]},
            ),
        ] = None,
        updated_since: UpdatedSince = None,
        page: PageNumber = 1,
    ) -> Page[Sku]:
        total, rows = await queries.list_skus(
            request.user.workspace_id,
            search=search,
            low=parse_low(low),
            updated_since=parse_updated_since(updated_since),
            limit=PER_PAGE,
            offset=offset(page, PER_PAGE),
        )
        return page_envelope(request, sku_bodies(rows), page=page, per_page=PER_PAGE, total=total)
