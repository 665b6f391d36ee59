"""The shop floor at a glance, for the admin's overview below what needs attention
(models/orders/attention.py): open orders by stage, low-stock SKUs and the unpaid invoices'
total, read in one statement."""

from __future__ import annotations

import msgspec

from models import statements
from models.queries.inventory import LOW
from models.stages import OPEN, OPEN_LIST
from models.statements import Select


class Figure(msgspec.Struct, array_like=True, frozen=True):
    name: str  # stage | low_stock | unpaid | unpaid_count
    key: str  # the stage, or the unpaid invoices' currency
    value: int


# The same definitions as the pages the overview links to: the order list's `open` filter,
# the inventory's low filter (models/queries/inventory.py), invoices issued and not yet paid.
FIGURES = Select(
    Figure,
    f"""
    SELECT 'stage', stage, COUNT(*) FROM orders
    WHERE workspace = $1 AND stage IN ({OPEN_LIST}) GROUP BY stage
    UNION ALL
    SELECT 'low_stock', '', COUNT(*) FROM skus s WHERE s.workspace = $1 AND {LOW}
    UNION ALL
    SELECT 'unpaid', currency, CAST(SUM(total_cents - paid_cents) AS BIGINT) FROM invoices
    WHERE workspace = $1 AND status = 'issued' GROUP BY currency
    UNION ALL
    SELECT 'unpaid_count', '', COUNT(*) FROM invoices WHERE workspace = $1 AND status = 'issued'
    """,  # noqa: S608 - constant fragments
)


class ShopFigures(msgspec.Struct, frozen=True):
    by_stage: dict[str, int]  # every open stage, in production order
    low_stock: int
    unpaid: dict[str, int]  # currency → total in minor units, of invoices issued and not paid
    unpaid_count: int

    @property
    def open_orders(self) -> int:
        return sum(self.by_stage.values())


async def shop_figures(workspace_id: int) -> ShopFigures:
    async with statements.connection() as reader:
        rows = await reader.all(FIGURES, workspace_id)
    by_stage = dict.fromkeys(OPEN, 0)
    single = {"low_stock": 0, "unpaid_count": 0}
    unpaid: dict[str, int] = {}
    for row in rows:
        if row.name == "stage":
            by_stage[row.key] = row.value
        elif row.name == "unpaid":
            unpaid[row.key] = row.value
        else:
            single[row.name] = row.value
    return ShopFigures(
        by_stage=by_stage,
        low_stock=single["low_stock"],
        unpaid=unpaid,
        unpaid_count=single["unpaid_count"],
    )
