"""Stock movements: one row for every change of a SKU's `on_hand` or `reserved`, with who made
it, when, why and for which order, so every figure on a SKU's page can be explained (the sum
of a SKU's deltas is its `on_hand` and `reserved`).

Rows are written by models/stock.py (reservation, consumption, release, adjustment) and
models/catalogue.py (a SKU's initial stock, by import or one at a time), always inside the
transaction that changes the levels, one INSERT per BATCH SKUs.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
from collections.abc import Sequence
from enum import StrEnum

import msgspec

from models import statements
from models.actors import Actor
from models.statements import Select, Stamp

MAX_REASON = 200  # stock_movements.reason


class MovementKind(StrEnum):
    RESERVATION = "reservation"  # an order was created: reserved += q
    CONSUMPTION = "consumption"  # the order reached production: on_hand -= q, reserved -= q
    RELEASE = "release"  # the order was cancelled before production: reserved -= q
    ADJUSTMENT = "adjustment"  # staff counted, received or wrote off stock: on_hand += delta
    IMPORT = "import"  # the SKU was created by a CSV import with its on_hand
    CREATED = "created"  # the SKU was created on its own with its on_hand
    OPENING = "opening"  # the levels a SKU held when movements began to be recorded


class Change(msgspec.Struct, frozen=True):
    """One SKU's change, before it is recorded."""

    sku_id: int
    workspace_id: int
    delta_on_hand: int = 0
    delta_reserved: int = 0


_COLUMNS = (
    'workspace, sku, at, kind, delta_on_hand, delta_reserved, reason, "order", actor_kind,'
    ' "user", token'
)
_WIDTH = 11
BATCH = 200  # rows per INSERT: 2,200 parameters, well under SQLite's limit


@functools.lru_cache(maxsize=16)
def _insert(count: int) -> statements.Sql:
    """One INSERT of `count` movements (an import's batches are all BATCH but the last)."""
    rows = ", ".join(
        "(" + ", ".join(f"${1 + row * _WIDTH + n}" for n in range(_WIDTH)) + ")"
        for row in range(count)
    )
    return statements.Sql(f"INSERT INTO stock_movements ({_COLUMNS}) VALUES {rows}")  # noqa: S608


async def record(
    changes: Sequence[Change],
    *,
    kind: MovementKind,
    actor: Actor,
    at: dt.datetime,
    order_id: int | None = None,
    reason: str = "",
) -> None:
    """One INSERT per BATCH changes (none for no change), as plain SQL: building a Piccolo row
    object per movement was most of a large import's time. Run inside the caller's
    transaction."""
    rows = [
        (
            change.workspace_id,
            change.sku_id,
            at,
            kind.value,
            change.delta_on_hand,
            change.delta_reserved,
            reason[:MAX_REASON],
            order_id,
            actor.kind.value,
            actor.user_id,
            actor.token_id,
        )
        for change in changes
        if change.delta_on_hand or change.delta_reserved
    ]
    if not rows:
        return
    async with statements.connection() as conn:
        for start in range(0, len(rows), BATCH):
            batch = rows[start : start + BATCH]
            await conn.rows(_insert(len(batch)), *itertools.chain.from_iterable(batch))


class MovementRow(msgspec.Struct, array_like=True, frozen=True):
    id: int
    at: Stamp
    kind: str
    delta_on_hand: int
    delta_reserved: int
    reason: str
    order_id: int | None
    order_number: str | None
    actor_kind: str
    user_name: str | None
    token_name: str | None


MOVEMENTS = Select(
    MovementRow,
    """
    SELECT m.id, UTC_TEXT(m.at), m.kind, m.delta_on_hand, m.delta_reserved, m.reason,
           m."order", o.number, m.actor_kind, u.name, t.name
    FROM stock_movements m
    LEFT JOIN orders o ON o.id = m."order"
    LEFT JOIN users u ON u.id = m."user"
    LEFT JOIN api_tokens t ON t.id = m.token
    WHERE m.workspace = $1 AND m.sku = $2
    ORDER BY m.at DESC, m.id DESC
    LIMIT $3 OFFSET $4
    """,
)
COUNT = statements.Sql("SELECT COUNT(*) FROM stock_movements WHERE workspace = $1 AND sku = $2")


async def for_sku(
    workspace_id: int, sku_id: int, *, limit: int, offset: int
) -> tuple[int, list[MovementRow]]:
    """A SKU's movements, newest first, with the order number and who made each."""
    async with statements.connection() as reader:
        return await statements.counted_page(
            reader, COUNT, MOVEMENTS, [workspace_id, sku_id], limit, offset
        )
