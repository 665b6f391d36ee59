"""Operator-side setup of what a workspace prints on: SKUs, one at a time or imported from CSV,
and their cost (what the shop pays its supplier for one; price lists mark garments up from it).

The SKU CSV format is decided here, once; the command line, the admin and the demo builder
only pass values through (customers live in models/customers/). A cost is stored in minor
units and typed in major units (`2.51`) as every money field of the admin is
(models/money.py); blank or None is an unknown cost.
"""

from __future__ import annotations

import csv
import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

from models import clock, db, money, numbers, statements, stock_movements
from models.accounts import KEEP, FieldErrors, Keep, get_workspace
from models.actors import OPERATOR, Actor
from models.errors import MAX_COUNT, InvalidFields, NotFoundError, RuleRefused
from models.filters import MAX_ID, cannot_match
from models.queries.inventory import MAX_CODE
from models.stock_movements import Change, MovementKind
from models.tables import Sku

HEX_COLOUR = re.compile(r"^#[0-9A-Fa-f]{6}$")
SKU_COLUMNS = ("code", "style", "brand", "colour", "colour_hex", "size", "on_hand")
SKU_OPTIONAL_COLUMNS = ("reorder_point", "cost")
MAX_COST_CENTS = 100_000_000  # a SKU's cost, in minor units
COST_TOO_HIGH = f"must be at most {MAX_COST_CENTS // 100:,}.00"
INSERT_BATCH = 200  # rows per INSERT statement: 2,400 parameters, under SQLite's limit


# --- SKUs ----------------------------------------------------------------------------------


def _whole(errors: FieldErrors, field: str, value: object, *, maximum: int = MAX_COUNT) -> int:
    if isinstance(value, int):
        return errors.count(field, value, maximum=maximum)
    number = numbers.whole_number(str(value))  # as the admin reads one: 6000, 6,000, 6 000
    if number is None or number < 0:
        errors.add(field, "must be a whole number, 0 or more")
        return 0
    return errors.count(field, number, maximum=maximum)


def checked_cost(errors: FieldErrors, field: str, value: object) -> int | None:
    """A cost in minor units, 0 to MAX_COST_CENTS; None (or blank): unknown."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _whole(errors, field, value, maximum=MAX_COST_CENTS)


def typed_cost(
    errors: FieldErrors, field: str, text: str, currency: str | None = None
) -> int | None:
    """A cost typed in major units, read as the admin reads every amount (models/money.py:
    `2.51`, `1,250.00`, `12,50`, `£2.51` in the workspace's `currency`), in minor units;
    blank: unknown."""
    typed = text.strip()
    if not typed:
        return None
    cents = money.cents(typed, currency)
    if cents is None:
        errors.add(field, money.refusal(typed, currency))
    elif cents > MAX_COST_CENTS:
        errors.add(field, COST_TOO_HIGH)
    return cents


def sku_code(errors: FieldErrors, code: str) -> str:
    """A SKU code: up to 64 printable characters, any of them (`/`, `..`, `%`, `?` and spaces
    inside included: the admin's URLs percent-encode it); no tab or other
    control, no invisible format character."""
    code = errors.text("code", code, MAX_CODE)
    if "code" not in errors.errors and not code.isprintable():
        errors.add("code", "must be printable characters only (no tabs or invisible characters)")
    return code


def sku_values(
    workspace_id: int, raw: Mapping[str, object], currency: str | None = None
) -> tuple[dict[str, Any], FieldErrors]:
    """Checked column values for one SKU (`reorder_point` optional, default 0; the cost
    optional, unknown by default: `cost` typed in major units, as a CSV file has it, or
    `cost_cents` in minor units; `cost` may carry the sign of `currency`, the workspace's)."""
    errors = FieldErrors()
    values: dict[str, Any] = {
        "workspace": workspace_id,
        "code": sku_code(errors, str(raw["code"])),
        "style": errors.text("style", str(raw["style"]), 100),
        "brand": errors.text("brand", str(raw["brand"]), 100),
        "colour": errors.text("colour", str(raw["colour"]), 50),
        "size": errors.text("size", str(raw["size"]), 20),
        "on_hand": _whole(errors, "on_hand", raw["on_hand"]),
    }
    colour_hex = str(raw["colour_hex"]).strip()
    if not HEX_COLOUR.match(colour_hex):
        errors.add("colour_hex", "must be #RRGGBB")
    values["colour_hex"] = colour_hex.upper()
    reorder = raw.get("reorder_point")
    blank = reorder is None or str(reorder).strip() == ""
    values["reorder_point"] = 0 if blank else _whole(errors, "reorder_point", reorder)
    if "cost" in raw:
        values["cost_cents"] = typed_cost(errors, "cost", str(raw["cost"]), currency)
    else:
        values["cost_cents"] = checked_cost(errors, "cost_cents", raw.get("cost_cents"))
    return values, errors


async def _existing_codes(workspace_id: int, codes: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(codes), INSERT_BATCH):
        rows = await Sku.select(Sku.code).where(
            (Sku.workspace == workspace_id) & Sku.code.is_in(codes[start : start + INSERT_BATCH])
        )
        found.update(row["code"] for row in rows)
    return found


_SKU_COLUMNS = (
    "workspace", "code", "style", "brand", "colour", "colour_hex", "size", "on_hand",
    "reorder_point", "cost_cents",
)  # fmt: skip
_SKU_WIDTH = len(_SKU_COLUMNS) + 2  # and created_at, updated_at
_SKU_DEFAULTS: dict[str, Any] = {"cost_cents": None}  # a row given without them: unknown


@functools.lru_cache(maxsize=16)
def _skus_insert(count: int) -> statements.Sql:
    """One INSERT of `count` SKUs, returning each one's id and on_hand."""
    rows = ", ".join(
        "(" + ", ".join(f"${1 + row * _SKU_WIDTH + n}" for n in range(_SKU_WIDTH)) + ")"
        for row in range(count)
    )
    columns = ", ".join(_SKU_COLUMNS)
    return statements.Sql(
        f"INSERT INTO skus ({columns}, created_at, updated_at) VALUES {rows}"  # noqa: S608
        " RETURNING id, on_hand"
    )


async def create_skus(
    workspace_id: int,
    rows: list[dict[str, Any]],
    *,
    kind: MovementKind = MovementKind.CREATED,
    actor: Actor = OPERATOR,
) -> list[int]:
    """Insert checked SKU values in one transaction; any code already in use refuses all
    (a row without `cost_cents` has an unknown cost). Each SKU's initial `on_hand` is recorded
    as a stock movement of `kind` by `actor`. Plain SQL, INSERT_BATCH rows a statement: a
    5 MiB import is tens of thousands of rows."""

    async def write() -> list[int]:
        async with statements.connection() as conn:
            await get_workspace(workspace_id)
            taken = await _existing_codes(workspace_id, [row["code"] for row in rows])
            if taken:
                raise InvalidFields({"code": [f"{code} already exists" for code in sorted(taken)]})
            now = clock.now()
            ids: list[int] = []
            for start in range(0, len(rows), INSERT_BATCH):
                batch = rows[start : start + INSERT_BATCH]
                args: list[Any] = []
                for row in batch:
                    args.extend(
                        row[column] if column in row else _SKU_DEFAULTS[column]
                        for column in _SKU_COLUMNS
                    )
                    args += (now, now)
                inserted = await conn.rows(_skus_insert(len(batch)), *args)
                ids.extend(int(row[0]) for row in inserted)
                initial = [
                    Change(int(r[0]), workspace_id, delta_on_hand=int(r[1])) for r in inserted
                ]
                await stock_movements.record(initial, kind=kind, actor=actor, at=now)
            return ids

    return await db.atomic(write)


async def create_sku(*, workspace_id: int, **fields: object) -> Sku:
    values, errors = sku_values(workspace_id, fields)
    errors.check()
    [sku_id] = await create_skus(workspace_id, [values])
    row = await Sku.objects().where(Sku.id == sku_id).first()
    assert row is not None  # noqa: S101 - inserted just above
    return row


async def update_sku(
    workspace_id: int, sku: int | str, *, cost_cents: int | Keep | None = KEEP
) -> Sku:
    """Change the given fields of the workspace's SKU `sku` (its id as an int, its code as a
    str); those not given stay as they are. `cost_cents=None` makes the cost unknown. Refused
    (InvalidFields, nothing changed) when a value is out of bounds; NotFoundError when the
    workspace has no such SKU."""
    errors = FieldErrors()
    changes: dict[Any, Any] = {}
    if not isinstance(cost_cents, Keep):
        changes[Sku.cost_cents] = checked_cost(errors, "cost_cents", cost_cents)
    errors.check()
    if not changes:
        raise RuleRefused("nothing to change: give at least one field")

    async def write() -> Sku:
        await get_workspace(workspace_id)
        found = None
        if isinstance(sku, int):
            if 0 < sku <= MAX_ID:
                found = (
                    await Sku.objects()
                    .where((Sku.workspace == workspace_id) & (Sku.id == sku))
                    .first()
                )
        elif sku and not cannot_match(sku, MAX_CODE):
            found = (
                await Sku.objects()
                .where((Sku.workspace == workspace_id) & (Sku.code == sku))
                .first()
            )
        if found is None:
            raise NotFoundError(f"SKU {sku} not found")
        changes[Sku.updated_at] = clock.now()
        await Sku.update(changes).where(Sku.id == found.id)
        row = await Sku.objects().where(Sku.id == found.id).first()
        assert row is not None  # noqa: S101 - updated just above, in this transaction
        return row

    return await db.atomic(write)


def _header(fieldnames: Iterable[str] | None) -> dict[str, str]:
    """File column → SKU field; `colour-hex`, `Colour Hex` and `colour_hex` all match."""
    columns = {name: re.sub(r"[\s-]+", "_", name.strip().lower()) for name in fieldnames or []}
    known = set(SKU_COLUMNS) | set(SKU_OPTIONAL_COLUMNS)
    problems = []
    missing = [name for name in SKU_COLUMNS if name not in columns.values()]
    if missing:
        problems.append(f"missing column(s): {', '.join(missing)}")
    unknown = [name for name, field in columns.items() if field not in known]
    if unknown:
        problems.append(
            f"unknown column(s): {', '.join(unknown)} "
            f"(expected {', '.join(SKU_COLUMNS + SKU_OPTIONAL_COLUMNS)})"
        )
    if problems:
        raise InvalidFields({"line 1": problems})
    return columns


def _line_order(item: tuple[str, list[str]]) -> int:
    key = item[0]
    return int(key.removeprefix("line ")) if key.startswith("line ") else 0


async def import_skus(
    workspace_id: int, lines: Iterable[str], *, actor: Actor = OPERATOR
) -> list[int]:
    """Create every SKU of a CSV file (header row first), or none: bad rows are reported by
    line number, together with codes repeated in the file or already in the workspace."""
    currency = (await get_workspace(workspace_id)).currency
    reader = csv.DictReader(lines)
    errors = FieldErrors()
    rows: list[dict[str, Any]] = []
    first_seen: dict[str, int] = {}
    try:
        columns = _header(reader.fieldnames)
        for raw in reader:
            line = f"line {reader.line_num}"
            if None in raw or None in raw.values():
                errors.add(line, f"expected {len(columns)} fields")
                continue
            values, row_errors = sku_values(
                workspace_id, {columns[key]: value for key, value in raw.items()}, currency
            )
            for field, messages in row_errors.errors.items():
                for message in messages:
                    errors.add(line, f"{field}: {message}")
            code = values["code"]
            # A refused code (a NUL, say) is not looked up: PostgreSQL would fail on it.
            if "code" not in row_errors.errors and code in first_seen:
                errors.add(line, f"code: {code} repeats line {first_seen[code]}")
            elif "code" not in row_errors.errors:
                first_seen[code] = reader.line_num
            rows.append({**values, "line": reader.line_num})
    except csv.Error as exc:
        errors.add(f"line {reader.line_num}", f"unreadable CSV: {exc}")
    if not rows and not errors.errors:
        errors.add("file", "no SKU rows after the header")
    for code in sorted(await _existing_codes(workspace_id, list(first_seen))):
        errors.add(f"line {first_seen[code]}", f"code: {code} already exists in the workspace")
    if errors.errors:
        raise InvalidFields(dict(sorted(errors.errors.items(), key=_line_order)))
    return await create_skus(
        workspace_id,
        [{k: v for k, v in row.items() if k != "line"} for row in rows],
        kind=MovementKind.IMPORT,
        actor=actor,
    )
