"""Stock rules: SKU status from live levels (docs/api.md §4); reserve, consume, release and
adjust, each recording its stock movements (models/stock_movements.py) with who made it.

Movements run inside the caller's transaction and touch SKUs in ascending id order, so two
transactions moving the same SKUs always lock them in the same order (no deadlock).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping
from typing import Literal

import msgspec

from models import clock, db, statements
from models.actors import Actor
from models.errors import ErrorCode, FieldErrors, InvalidFields, NotFoundError, RuleRefused
from models.filters import MAX_ID, cannot_match
from models.queries.inventory import MAX_CODE
from models.stock_movements import MAX_REASON, Change, MovementKind, record
from models.tables import OrderLine

SkuStatus = Literal["in_stock", "low_stock", "out_of_stock", "discontinued"]

# `skus.reserved` and `skus.on_hand` are 32-bit columns.
MAX_LEVEL = 2**31 - 1


def sku_status(*, on_hand: int, reserved: int, reorder_point: int, discontinued: bool) -> SkuStatus:
    available = on_hand - reserved
    if discontinued:
        return "discontinued"
    if available <= 0:
        return "out_of_stock"
    if available <= reorder_point:
        return "low_stock"
    return "in_stock"


async def order_quantities(order_id: int) -> Counter[int]:
    """Quantity per SKU id over the order's SKU lines."""
    rows = await OrderLine.select(OrderLine.sku, OrderLine.quantity).where(
        OrderLine.order == order_id, OrderLine.sku.is_not_null()
    )
    totals: Counter[int] = Counter()
    for row in rows:
        totals[row["sku"]] += row["quantity"]
    return totals


def over_reservation_limit(reserved: Mapping[int, int], quantities: Mapping[int, int]) -> set[int]:
    """SKU ids whose `reserved` (as read) would overflow its column if these were added."""
    return {sku_id for sku_id, q in quantities.items() if reserved[sku_id] + q > MAX_LEVEL}


_RESERVE = statements.Sql(
    "UPDATE skus SET reserved = reserved + $2, updated_at = $3 WHERE id = $1 AND reserved <= $4"
    " RETURNING id, workspace, on_hand, reserved"
)
# Consumption takes only stock that is there: the WHERE is checked again on the row as locked
# (PostgreSQL re-reads it after a concurrent writer commits), so two orders racing for the
# last units cannot both take them.
_CONSUME = statements.Sql(
    "UPDATE skus SET on_hand = on_hand - $2, reserved = reserved - $2, updated_at = $3"
    " WHERE id = $1 AND on_hand >= $2 RETURNING id, workspace"
)
_LEVEL = statements.Sql("SELECT code, on_hand FROM skus WHERE id = $1")
_RELEASE = statements.Sql(
    "UPDATE skus SET reserved = reserved - $2, updated_at = $3 WHERE id = $1"
    " RETURNING id, workspace"
)


async def reserve(
    quantities: Mapping[int, int],
    now: dt.datetime,
    *,
    order_id: int | None,
    actor: Actor,
    reason: str = "",
    levels: dict[int, tuple[int, int]] | None = None,
) -> set[int]:
    """At create (and when an edit orders more): `reserved += q` (shortages allowed;
    `available` may go negative). Each SKU's `(on_hand, reserved)` after the change goes into
    `levels` when given.

    Returns the SKU ids left alone because `reserved` would overflow its column: the caller
    must then roll back.
    """
    refused: set[int] = set()
    changes: list[Change] = []
    async with statements.connection() as conn:
        for sku_id in sorted(quantities):
            q = quantities[sku_id]
            row = await conn.row(_RESERVE, sku_id, q, now, MAX_LEVEL - q)
            if row is None:
                refused.add(sku_id)
                continue
            changes.append(Change(sku_id, row[1], delta_reserved=q))
            if levels is not None:
                levels[sku_id] = (int(row[2]), int(row[3]))
    if not refused:
        await record(
            changes,
            kind=MovementKind.RESERVATION,
            actor=actor,
            at=now,
            order_id=order_id,
            reason=reason,
        )
    return refused


async def rebook(
    more: Mapping[int, int],
    less: Mapping[int, int],
    now: dt.datetime,
    *,
    order_id: int,
    actor: Actor,
    reason: str,
) -> set[int]:
    """An edit's reservations moved by the difference: `reserved += q` for `more`,
    `reserved -= q` for `less` (no SKU in both), in one pass over the SKUs in id order, so
    an edit that orders more of one SKU and less of another locks them as every other move
    does. Returns the SKU ids refused as `reserve` does (the caller must then roll back)."""
    refused: set[int] = set()
    reserved: list[Change] = []
    released: list[Change] = []
    async with statements.connection() as conn:
        for sku_id in sorted({*more, *less}):
            if q := more.get(sku_id, 0):
                row = await conn.row(_RESERVE, sku_id, q, now, MAX_LEVEL - q)
                if row is None:
                    refused.add(sku_id)
                else:
                    reserved.append(Change(sku_id, row[1], delta_reserved=q))
            elif (q := less[sku_id]) and (row := await conn.row(_RELEASE, sku_id, q, now)):
                released.append(Change(sku_id, row[1], delta_reserved=-q))
    if refused:
        return refused
    for changes, kind in ((released, MovementKind.RELEASE), (reserved, MovementKind.RESERVATION)):
        await record(changes, kind=kind, actor=actor, at=now, order_id=order_id, reason=reason)
    return refused


async def _move(
    sql: statements.Sql, quantities: Mapping[int, int], now: dt.datetime, *, on_hand: bool
) -> tuple[list[Change], list[int]]:
    """`sql` once per SKU, in id order (so concurrent moves lock rows in one order): the
    changes made, and the SKUs whose row the statement's condition left untouched."""
    changes: list[Change] = []
    missed: list[int] = []
    async with statements.connection() as conn:
        for sku_id in sorted(quantities):
            q = quantities[sku_id]
            row = await conn.row(sql, sku_id, q, now)
            if row is None:
                missed.append(sku_id)
            else:
                changes.append(
                    Change(sku_id, row[1], delta_on_hand=-q if on_hand else 0, delta_reserved=-q)
                )
    return changes, missed


class Short(msgspec.Struct, frozen=True):
    """A SKU an order needs more of than is on hand."""

    code: str
    needed: int
    on_hand: int

    def __str__(self) -> str:
        return (
            f"{self.code} needs {self.needed:,}, {max(self.on_hand, 0):,} on hand "
            f"({self.needed - max(self.on_hand, 0):,} short)"
        )


def shortage_message(short: list[Short]) -> str:
    """The refusal of a move that would consume stock that is not there (docs/orders.md)."""
    listed = "; ".join(str(s) for s in sorted(short, key=lambda s: s.code))
    return (
        f"Not enough stock to start production: {listed}. Receive the stock (adjust on hand) "
        "first; nothing was changed."
    )


async def consume(
    quantities: Mapping[int, int],
    now: dt.datetime,
    *,
    order_id: int | None,
    actor: Actor,
) -> None:
    """Once per order, on reaching production: `on_hand -= q`, `reserved -= q`.

    Refused (RuleRefused naming every short SKU) when a SKU has less than `q` on hand, as an
    adjustment or an import never makes `on_hand` negative either; the caller's transaction is
    then rolled back, so no SKU is touched.
    """
    changes, missed = await _move(_CONSUME, quantities, now, on_hand=True)
    if missed:
        short = []
        async with statements.connection() as conn:
            for sku_id in missed:
                if (level := await conn.row(_LEVEL, sku_id)) is not None:
                    short.append(Short(str(level[0]), quantities[sku_id], int(level[1])))
        raise RuleRefused(shortage_message(short), code=ErrorCode.INSUFFICIENT_STOCK)
    await record(changes, kind=MovementKind.CONSUMPTION, actor=actor, at=now, order_id=order_id)


async def release(
    quantities: Mapping[int, int],
    now: dt.datetime,
    *,
    order_id: int | None,
    actor: Actor,
    reason: str = "",
) -> None:
    """On cancel (and when an edit orders less), for stock not yet consumed: `reserved -= q`."""
    changes, _ = await _move(_RELEASE, quantities, now, on_hand=False)
    await record(
        changes, kind=MovementKind.RELEASE, actor=actor, at=now, order_id=order_id, reason=reason
    )


# --- adjustments -----------------------------------------------------------------------------

MAX_DELTA = MAX_LEVEL
_LOCK_BY_CODE = statements.Sql(
    "SELECT id, code, on_hand, reserved FROM skus WHERE workspace = $1 AND code = $2 FOR UPDATE"
)
_LOCK_BY_ID = statements.Sql(
    "SELECT id, code, on_hand, reserved FROM skus WHERE workspace = $1 AND id = $2 FOR UPDATE"
)
_ADJUST = statements.Sql("UPDATE skus SET on_hand = on_hand + $2, updated_at = $3 WHERE id = $1")


class Adjusted(msgspec.Struct, frozen=True):
    sku_id: int
    code: str
    on_hand: int
    reserved: int


def _check_adjustment(delta: int | None, reason: str) -> tuple[int, str]:
    errors = FieldErrors()
    if delta is None:
        errors.add("delta", "must be a whole number, e.g. 12 or -3")
    elif delta == 0:
        errors.add("delta", "must not be 0")
    elif abs(delta) > MAX_DELTA:
        errors.add("delta", f"must be between -{MAX_DELTA:,} and {MAX_DELTA:,}")
    # One line of text: a NUL or another control is refused, never stored.
    reason = errors.text("reason", reason, MAX_REASON, required=False)
    if not reason and "reason" not in errors.errors:
        errors.add("reason", "is required: say why (received, damaged, count…)")
    errors.check()
    assert delta is not None  # noqa: S101 - checked above
    return delta, reason


async def adjust(
    *, workspace_id: int, sku: int | str, delta: int | None, reason: str, actor: Actor
) -> Adjusted:
    """`on_hand += delta` with a reason (stock received, damaged, a count), one movement; `sku`
    is the SKU's id (int) or its code (str).

    Refused (InvalidFields, nothing changed) when the delta is 0 or not a number, the reason is
    blank or not one line of text, or the result would leave the column's bounds: above
    2,147,483,647, or below 0 for a decrease (an increase may leave a negative `on_hand` still
    negative, nearer to 0).
    """
    delta, reason = _check_adjustment(delta, reason)
    now = clock.now()

    async def write() -> Adjusted:
        async with statements.connection() as conn:
            row = None
            if isinstance(sku, int):
                if 0 < sku <= MAX_ID:
                    row = await conn.row(_LOCK_BY_ID, workspace_id, sku)
            elif sku and not cannot_match(sku, MAX_CODE):
                row = await conn.row(_LOCK_BY_CODE, workspace_id, sku)
            if row is None:
                raise NotFoundError(f"SKU {sku} not found")
            sku_id, code, on_hand, reserved = int(row[0]), str(row[1]), int(row[2]), int(row[3])
            after = on_hand + delta
            if after > MAX_LEVEL:
                raise InvalidFields(
                    {"delta": [f"would make on hand {after:,}, above the most a SKU can hold "
                               f"({MAX_LEVEL:,})"]}
                )  # fmt: skip
            if delta < 0 and after < 0:
                raise InvalidFields(
                    {"delta": [f"would make on hand {after:,}: only {max(on_hand, 0):,} on hand "
                               "to take away"]}
                )  # fmt: skip
            await conn.rows(_ADJUST, sku_id, delta, now)
            await record(
                [Change(sku_id, workspace_id, delta_on_hand=delta)],
                kind=MovementKind.ADJUSTMENT, actor=actor, at=now, reason=reason,
            )  # fmt: skip
            return Adjusted(sku_id=sku_id, code=code, on_hand=after, reserved=reserved)

    return await db.atomic(write)
