"""Gapless document numbers (ORD-, INV-) per workspace and year, unique under concurrency.

The counter row is created if missing, then incremented with `UPDATE … RETURNING` inside the
caller's transaction: on PostgreSQL the row lock serialises concurrent writers until commit,
on SQLite the transaction already holds the write lock (BEGIN IMMEDIATE). A rollback undoes
the increment, so a failed create or dispatch never consumes a number.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal
from zoneinfo import ZoneInfo

from models.tables import NumberSequence

Kind = Literal["order", "invoice"]
PREFIXES: dict[Kind, str] = {"order": "ORD", "invoice": "INV"}


def format_number(kind: Kind, year: int, seq: int) -> str:
    """`ORD-2026-0042`; the sequence is zero-padded to 4 digits and grows past them."""
    return f"{PREFIXES[kind]}-{year}-{seq:04d}"


def local_year(at: dt.datetime, timezone: str) -> int:
    """The calendar year of `at` in the workspace's time zone."""
    return at.astimezone(ZoneInfo(timezone)).year


async def next_number(*, workspace_id: int, kind: Kind, year: int) -> tuple[str, int]:
    """The next number and its sequence value; call inside the transaction that uses it."""
    await NumberSequence.raw(
        "INSERT INTO number_sequences (workspace, kind, year, last_value) "
        "VALUES ({}, {}, {}, 0) ON CONFLICT (workspace, kind, year) DO NOTHING",
        workspace_id,
        kind,
        year,
    )
    rows = await (
        NumberSequence.update({NumberSequence.last_value: NumberSequence.last_value + 1})
        .where(
            NumberSequence.workspace == workspace_id,
            NumberSequence.kind == kind,
            NumberSequence.year == year,
        )
        .returning(NumberSequence.last_value)
    )
    seq = int(rows[0]["last_value"])
    return format_number(kind, year, seq), seq
