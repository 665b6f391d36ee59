"""Gapless document numbers (ORD-, INV-) per workspace and year, unique under concurrency.

The counter row is incremented with `UPDATE … RETURNING` inside the caller's transaction (and
created first when the year has none): on PostgreSQL the row lock serialises concurrent
writers until commit, on SQLite the transaction already holds the write lock (BEGIN
IMMEDIATE). A rollback undoes the increment, so a failed create or dispatch never consumes a
number.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal
from zoneinfo import ZoneInfo

from models import statements

Kind = Literal["order", "invoice"]
PREFIXES: dict[Kind, str] = {"order": "ORD", "invoice": "INV"}


def format_number(kind: Kind, year: int, seq: int) -> str:
    """`ORD-2026-0042`; the sequence is zero-padded to 4 digits and grows past them."""
    return f"{PREFIXES[kind]}-{year}-{seq:04d}"


def local_year(at: dt.datetime, timezone: str) -> int:
    """The calendar year of `at` in the workspace's time zone."""
    return at.astimezone(ZoneInfo(timezone)).year


_INCREMENT = statements.Sql(
    "UPDATE number_sequences SET last_value = last_value + 1"
    " WHERE workspace = $1 AND kind = $2 AND year = $3 RETURNING last_value"
)
_CREATE = statements.Sql(
    "INSERT INTO number_sequences (workspace, kind, year, last_value) VALUES ($1, $2, $3, 0)"
    " ON CONFLICT (workspace, kind, year) DO NOTHING"
)


async def next_number(*, workspace_id: int, kind: Kind, year: int) -> tuple[str, int]:
    """The next number and its sequence value; call inside the transaction that uses it.

    One statement when the counter exists. The year's first number creates it first (should
    another transaction be creating it too, ON CONFLICT waits for it, and the increments then
    queue on its row lock).
    """
    async with statements.connection() as conn:
        row = await conn.row(_INCREMENT, workspace_id, kind, year)
        if row is None:
            await conn.rows(_CREATE, workspace_id, kind, year)
            row = await conn.row(_INCREMENT, workspace_id, kind, year)
    if row is None:
        raise RuntimeError(f"number_sequences has no row for {workspace_id}/{kind}/{year}")
    seq = int(row[0])
    return format_number(kind, year, seq), seq
