"""SKU reads with live stock; `low` is available (on_hand - reserved) at or under the
reorder point, discontinued SKUs excluded. Rows decode into SkuRow (its columns, in order)."""

from __future__ import annotations

import datetime as dt
import functools

import msgspec

from models import statements
from models.filters import cannot_match, contains_ci, contains_pattern
from models.statements import Select, Sql, Stamp

MAX_CODE = 64  # skus.code


class SkuRow(msgspec.Struct, array_like=True, frozen=True):
    code: str
    style: str
    brand: str
    colour: str
    colour_hex: str
    size: str
    on_hand: int
    reserved: int
    reorder_point: int
    discontinued: bool | int  # SQLite gives 0/1
    cost_cents: int | None  # what the shop pays for one; None while unknown
    updated_at: Stamp


SKU_COLUMNS = """
    s.code, s.style, s.brand, s.colour, s.colour_hex, s.size, s.on_hand, s.reserved,
    s.reorder_point, s.discontinued, s.cost_cents, UTC_TEXT(s.updated_at)
"""
LOW = "s.on_hand - s.reserved <= s.reorder_point AND NOT s.discontinued"


@functools.cache
def list_statements(search: bool, low: bool, updated: bool) -> tuple[Sql, Select[SkuRow]]:
    """COUNT and page for one combination of filters ($1 is always the workspace)."""
    where, n = ["s.workspace = $1"], 1
    if search:
        n += 1
        where.append(contains_ci("s.code", f"${n}"))
    if low:
        where.append(LOW)
    if updated:
        n += 1
        where.append(f"s.updated_at >= ${n}")
    condition = " AND ".join(where)
    count = Sql(f"SELECT COUNT(*) FROM skus s WHERE {condition}")  # noqa: S608 - constant fragments
    page = Select(
        SkuRow,
        f"""
        SELECT {SKU_COLUMNS} FROM skus s WHERE {condition}
        ORDER BY s.code, s.id LIMIT ${n + 1} OFFSET ${n + 2}
        """,  # noqa: S608 - constant fragments
    )
    return count, page


async def list_skus(
    workspace_id: int,
    *,
    search: str | None,
    low: bool | None,
    updated_since: dt.datetime | None,
    limit: int,
    offset: int,
) -> tuple[int, list[SkuRow]]:
    search = search or None  # an empty search does not filter
    if search is not None and cannot_match(search, MAX_CODE):
        return 0, []
    count, page = list_statements(search is not None, bool(low), updated_since is not None)
    args: list[object] = [workspace_id]
    if search is not None:
        args.append(contains_pattern(search))
    if updated_since is not None:
        args.append(updated_since)
    async with statements.connection() as reader:
        return await statements.counted_page(reader, count, page, args, limit, offset)
