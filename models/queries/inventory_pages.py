"""The admin's inventory pages: the SKU list (search over code, style, brand and colour; the
low-stock filter of the API: available at or below the reorder point, discontinued excluded)
and one SKU with its levels, by id or code. The SKU's movements come from
models/stock_movements.py."""

from __future__ import annotations

import functools

from models import statements
from models.filters import MAX_ID, cannot_match, contains_ci, contains_pattern
from models.queries.inventory import LOW, MAX_CODE, SKU_COLUMNS, SkuRow
from models.statements import Select, Sql

PAGE = 50


class SkuLine(SkuRow, array_like=True, frozen=True):
    """The API's SKU row (SKU_COLUMNS) followed by its id (the SKU's movements are read by
    id) and the workspace's currency (its cost is shown in it)."""

    id: int
    currency: str

    @property
    def available(self) -> int:
        return self.on_hand - self.reserved


COLUMNS = f"{SKU_COLUMNS}, s.id, w.currency"
FROM = "skus s JOIN workspaces w ON w.id = s.workspace"
_SEARCHED = ("s.code", "s.style", "s.brand", "s.colour")


@functools.cache
def list_statements(search: bool, low: bool) -> tuple[Sql, Select[SkuLine]]:
    where, n = ["s.workspace = $1"], 1
    if search:
        n += 1
        where.append("(" + " OR ".join(contains_ci(col, f"${n}") for col in _SEARCHED) + ")")
    if low:
        where.append(LOW)
    condition = " AND ".join(where)
    count = Sql(f"SELECT COUNT(*) FROM skus s WHERE {condition}")  # noqa: S608 - constants
    page = Select(
        SkuLine,
        f"""
        SELECT {COLUMNS} FROM {FROM} WHERE {condition}
        ORDER BY s.code, s.id LIMIT ${n + 1} OFFSET ${n + 2}
        """,  # noqa: S608 - constant fragments
    )
    return count, page


async def sku_list(
    workspace_id: int, *, search: str, low: bool, offset: int
) -> tuple[int, list[SkuLine]]:
    search = search.strip()
    if search and cannot_match(search, 100):  # the longest searched column
        return 0, []
    count, page = list_statements(bool(search), low)
    args: list[object] = [workspace_id] + ([contains_pattern(search)] if search else [])
    async with statements.connection() as reader:
        return await statements.counted_page(reader, count, page, args, PAGE, offset)


BY_CODE = Select(
    SkuLine,
    f"SELECT {COLUMNS} FROM {FROM} WHERE s.workspace = $1 AND s.code = $2",  # noqa: S608
)
BY_ID = Select(
    SkuLine,
    f"SELECT {COLUMNS} FROM {FROM} WHERE s.workspace = $1 AND s.id = $2",  # noqa: S608
)


async def sku(workspace_id: int, ref: int | str) -> SkuLine | None:
    """The workspace's SKU with this id (an int) or code (a str; exact, any characters)."""
    if isinstance(ref, int) and not 0 < ref <= MAX_ID:
        return None
    if isinstance(ref, str) and (not ref or cannot_match(ref, MAX_CODE)):
        return None
    async with statements.connection() as reader:
        return await reader.one(BY_ID if isinstance(ref, int) else BY_CODE, workspace_id, ref)
