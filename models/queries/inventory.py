"""SKU reads with live stock; `low` is available (on_hand - reserved) at or under the
reorder point, discontinued SKUs excluded."""

from __future__ import annotations

import datetime as dt
from typing import Any

from piccolo.query.mixins import WhereRaw

from models.queries.filters import contains_ci
from models.tables import Sku

SKU_COLUMNS = (
    Sku.code,
    Sku.style,
    Sku.brand,
    Sku.colour,
    Sku.colour_hex,
    Sku.size,
    Sku.on_hand,
    Sku.reserved,
    Sku.reorder_point,
    Sku.discontinued,
    Sku.updated_at,
)


def _filtered(
    query: Any,
    workspace_id: int,
    *,
    search: str | None,
    low: bool | None,
    updated_since: dt.datetime | None,
) -> Any:
    query = query.where(Sku.workspace == workspace_id)
    if search:
        query = query.where(contains_ci(Sku.code, search))
    if low:
        query = query.where(
            WhereRaw("on_hand - reserved <= reorder_point"), Sku.discontinued.eq(False)
        )
    if updated_since is not None:
        query = query.where(Sku.updated_at >= updated_since)
    return query


async def list_skus(
    workspace_id: int,
    *,
    search: str | None,
    low: bool | None,
    updated_since: dt.datetime | None,
    limit: int,
    offset: int,
) -> tuple[int, list[dict[str, Any]]]:
    total = await _filtered(
        Sku.count(), workspace_id, search=search, low=low, updated_since=updated_since
    )
    if offset >= total:
        return total, []
    rows = await (
        _filtered(
            Sku.select(*SKU_COLUMNS),
            workspace_id,
            search=search,
            low=low,
            updated_since=updated_since,
        )
        .order_by(Sku.code, Sku.id)
        .limit(limit)
        .offset(offset)
    )
    return total, rows
