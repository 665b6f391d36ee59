"""Creating orders: numbers, totals and tax, stock reservations, the plan limit.

Everything a create writes happens in one transaction (`db.atomic`) that first locks the
workspace row (PostgreSQL), so concurrent creates in one workspace run one at a time: the
open-order count, the external_ref check and the next number are all read under that lock.
Then the customer row (its `updated_at`), the new order, and the SKUs in id order.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from models import clock, db, plans, statements, stock
from models.actors import Actor
from models.customers.addresses import NewAddress
from models.errors import ErrorCode, InvalidFields, NotFoundError, RuleRefused, normalise_newlines
from models.filters import MAX_ID
from models.garments import NewItem
from models.numbering import local_year, next_number
from models.orders import content as order_content
from models.orders import ship_to as ship_to_rules
from models.orders.item_reads import ItemView
from models.orders.lines import (
    FIRST_ARTWORK_STATUS,
    FIRST_STAGE,
    NewLine,
    Totals,
    applied_rate,
    compute_totals,
    local_midnight,
)
from models.orders.queries import HistoryRow, LineRow, OrderDetailRow, OrderRows
from models.stages import OPEN_STAGES
from models.webhooks import events as outbox
from models.webhooks.names import EventName

# The create's statements, on the transaction's connection (models.statements): a create runs
# them on every request, and Piccolo's query building would cost more than the database.
_OPEN_STAGE_LIST = ", ".join(f"'{stage}'" for stage in sorted(OPEN_STAGES))
# Open orders, counted up to the limit ($2) only: that is all the check needs, and the cost
# stays bounded by the plan's limit however many orders are open.
_OPEN_ORDERS = (
    "SELECT count(*) FROM (SELECT 1 FROM orders"  # noqa: S608 - constant stage names
    f" WHERE workspace = $1 AND stage IN ({_OPEN_STAGE_LIST}) LIMIT $2) AS open_orders"
)
_AFTER_LOCK = {
    # (count open orders, look up external_ref) → statement
    (True, False): statements.Sql(_OPEN_ORDERS),
    (True, True): statements.Sql(
        f"SELECT ({_OPEN_ORDERS}),"  # noqa: S608 - constant text
        " (SELECT id FROM orders WHERE workspace = $1 AND external_ref = $3)"
    ),
    (False, True): statements.Sql(
        "SELECT 0, (SELECT id FROM orders WHERE workspace = $1 AND external_ref = $2)"
    ),
}
_ORDER_INSERT = statements.Sql(
    """
    INSERT INTO orders (workspace, customer, number, number_year, number_seq, stage, substage,
        due_by, dispatched_at, carrier, tracking_number, currency, subtotal_cents, tax_cents,
        total_cents, notes, external_ref, stock_consumed, created_at, updated_at, ship_to,
        prices_include_tax, tax_rate)
    VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, NULL, NULL, NULL, $8, $9, $10, $11, $12, $13,
        $14, $15, $15, $16, $17, $18)
    RETURNING id
    """
)
_HISTORY_INSERT = statements.Sql(
    """
    INSERT INTO stage_history (workspace, "order", from_stage, to_stage, actor_kind, "user",
        token, at)
    VALUES ($1, $2, NULL, $3, $4, $5, $6, $7)
    """
)
_ARTWORK_INSERT = statements.Sql(
    """
    INSERT INTO artwork (workspace, "order", status, version, approved_at, updated_at)
    VALUES ($1, $2, $3, 0, NULL, $4)
    """
)
_TOUCH_CUSTOMER = statements.Sql("UPDATE customers SET updated_at = $2 WHERE id = $1")


@functools.lru_cache(maxsize=64)
def _lock_statement(sku_codes: int, postgres: bool) -> statements.Sql:
    """The workspace row, locked on PostgreSQL (`FOR NO KEY UPDATE`: creates in one workspace
    queue here, while inserts that reference it are not blocked), read with the customer and
    the `sku_codes` named SKUs ($3…), which concurrent creates do not change, and the
    customer's default address (the ship-to when none is given). Each SKU found adds a row;
    without any, one row with NULL SKU columns."""
    address = ", ".join(f"ad.{field}" for field in ship_to_rules.FIELDS)
    text = f"""
        SELECT w.plan, w.trial_ends_at, w.open_order_limit, w.tax_rate, w.currency, w.timezone,
               c.id, c.name, c.slug, c.tax_exempt, s.id, s.code, s.reserved, {address},
               w.prices_include_tax
        FROM workspaces w
        LEFT JOIN customers c ON c.workspace = w.id AND c.id = $2
        LEFT JOIN addresses ad ON ad.customer = c.id AND ad.is_default
        """  # noqa: S608 - constant column names
    if sku_codes:
        codes = ", ".join(f"${n}" for n in range(3, 3 + sku_codes))
        text += f" LEFT JOIN skus s ON s.workspace = w.id AND s.code IN ({codes})"
    else:
        text += " LEFT JOIN skus s ON 1 = 0"
    text += " WHERE w.id = $1"
    return statements.Sql(text + (" FOR NO KEY UPDATE OF w" if postgres else ""))


@dataclass(frozen=True)
class _Locked:
    """What a create reads with the workspace lock."""

    plan: str
    trial_ends_at: dt.datetime | None
    open_order_limit: int | None
    tax_rate: Decimal
    currency: str
    timezone: str
    customer: tuple[int, str, str, bool] | None  # id, name, slug, tax_exempt
    skus: dict[str, tuple[int, int]]  # code → (id, reserved)
    default_address: dict[str, str] | None
    prices_include_tax: bool  # the workspace's default for new orders


async def _lock_workspace(
    conn: statements.Reader, workspace_id: int, customer_id: int, codes: Sequence[str]
) -> _Locked:
    statement = _lock_statement(len(codes), db.is_postgres())
    in_range = customer_id if 0 < customer_id <= MAX_ID else 0
    rows = await conn.rows(statement, workspace_id, in_range, *codes)
    if not rows:
        raise NotFoundError("Workspace not found")
    first = rows[0]
    plan, trial_ends_at, limit, tax_rate, currency, timezone = first[:6]
    c_id, name, slug, exempt = first[6:10]
    return _Locked(
        plan=plan,
        trial_ends_at=trial_ends_at,
        open_order_limit=limit,
        tax_rate=Decimal(str(tax_rate)),  # exact, whatever the driver gives
        currency=currency,
        timezone=timezone,
        customer=None if c_id is None else (c_id, name, slug, bool(exempt)),
        skus={row[11]: (row[10], row[12]) for row in rows if row[10] is not None},
        default_address=None if first[15] is None else ship_to_rules.copy(first[13:-1]),
        prices_include_tax=bool(first[-1]),
    )


async def _read_after_lock(
    conn: statements.Reader, workspace_id: int, *, limit: int | None, external_ref: str | None
) -> tuple[int, int | None]:
    """Open orders (up to `limit`; none counted without one) and the order holding
    `external_ref`. Read in a statement of their own, once the lock is held: one that started
    before waiting for the lock would not see the create it waited for."""
    statement = _AFTER_LOCK.get((limit is not None, external_ref is not None))
    if statement is None:
        return 0, None
    args: list[Any] = [workspace_id]
    if limit is not None:
        args.append(limit)
    if external_ref is not None:
        args.append(external_ref)
    row = await conn.row(statement, *args)
    if row is None:
        raise RuntimeError("the checks after the lock returned no row")
    if external_ref is None:
        return int(row[0]), None
    return int(row[0]), row[1]


def _field_errors(
    locked: _Locked, lines: Sequence[NewLine], taken: int | None
) -> dict[str, list[str]]:
    """Customer, external_ref and SKU problems, reported together."""
    errors: dict[str, list[str]] = {}
    if locked.customer is None:
        errors["customer_id"] = ["The selected customer_id is invalid."]
    if taken is not None:
        errors["external_ref"] = [f"The external_ref has already been taken by order {taken}."]
    for index, line in enumerate(lines):
        if line.sku is not None and line.sku not in locked.skus:
            errors[f"lines.{index}.sku"] = [f"The selected lines.{index}.sku is invalid."]
    return errors


def _check_open_order_limit(open_orders: int, limit: int | None, plan: str) -> None:
    if limit is not None and open_orders >= limit:
        raise RuleRefused(
            f"The workspace has reached its limit of {limit} open orders ({plan} plan); "
            "dispatch or cancel orders, or upgrade the plan.",
            code=ErrorCode.PLAN_LIMIT,
            details={"limit": limit, "plan": plan},
        )


async def create(
    *,
    workspace_id: int,
    customer_id: int,
    lines: Sequence[NewLine] = (),
    items: Sequence[NewItem] = (),
    ship_to: NewAddress | None = None,
    ship_to_address_id: int | None = None,
    due_by: dt.date | None = None,
    notes: str = "",
    external_ref: str | None = None,
    prices_include_tax: bool | None = None,
    actor: Actor,
    save: bool = True,
) -> OrderRows:
    """Create an order in FIRST_STAGE with its items and lines (models/orders/content.py),
    first history entry (made by `actor`), artwork row and stock reservations, in one
    transaction; returns its detail rows (`_created_rows`).

    Raises InvalidFields (fields, then stock limits, then amounts) or RuleRefused (plan
    limit); nothing is written then. `prices_include_tax` None: the workspace's default.
    With `save` False it is a preview: the order as it would be created (its lines, prices
    and totals; id 0, no number), then the transaction is rolled back, so nothing is kept
    and nothing numbered or reserved.
    """
    now = clock.now()
    codes = sorted({line.sku for line in lines if line.sku is not None})

    async def write() -> OrderRows:
        async with statements.connection() as conn:
            locked = await _lock_workspace(conn, workspace_id, customer_id, codes)
            plan = plans.effective_plan(locked.plan, locked.trial_ends_at, now)
            limit = plans.open_order_limit(plan, locked.open_order_limit)
            open_orders, taken = await _read_after_lock(
                conn, workspace_id, limit=limit, external_ref=external_ref
            )
            errors = _field_errors(locked, lines, taken)
            if errors or locked.customer is None:
                if taken is None:
                    raise InvalidFields(errors)
                raise InvalidFields(
                    errors, code=ErrorCode.EXTERNAL_REF_TAKEN, details={"order_id": taken}
                )
            _, customer_name, customer_slug, tax_exempt = locked.customer
            # The customer's orders_count and open_orders change. Written first, as every
            # write locks: workspace, customer, order, SKUs by id (docs/operations.md).
            await conn.rows(_TOUCH_CUSTOMER, customer_id, now)
            content = await order_content.resolve(
                conn, workspace_id, customer_id, lines=lines, items=items, plain_skus=locked.skus
            )
            shipping = await ship_to_rules.resolve(
                conn,
                workspace_id,
                customer_id,
                given=ship_to,
                address_id=ship_to_address_id,
                fallback=locked.default_address,
            )
            reservations = content.quantities()
            over = stock.over_reservation_limit(content.reserved, reservations)
            if over:
                raise content.reservation_errors(over)
            inclusive = (
                locked.prices_include_tax if prices_include_tax is None else prices_include_tax
            )
            totals = compute_totals(content.lines, locked.tax_rate, tax_exempt, inclusive=inclusive)
            _check_open_order_limit(open_orders, limit, plan)
            year = local_year(now, locked.timezone)
            number, seq = await next_number(workspace_id=workspace_id, kind="order", year=year)
            due = local_midnight(due_by, locked.timezone) if due_by else None
            inserted = await conn.row(
                _ORDER_INSERT,
                workspace_id,
                customer_id,
                number,
                year,
                seq,
                FIRST_STAGE,
                due,
                locked.currency,
                totals.subtotal_cents,
                totals.tax_cents,
                totals.total_cents,
                normalise_newlines(notes),  # CR LF as sent, kept as LF
                external_ref,
                False,
                now,
                ship_to_rules.encode(shipping),
                inclusive,
                applied_rate(locked.tax_rate, tax_exempt),
            )
            if inserted is None:
                raise RuntimeError("INSERT INTO orders returned no id")
            order_id = int(inserted[0])
            written = await order_content.write(conn, workspace_id, order_id, content, totals)
            await conn.rows(
                _HISTORY_INSERT, workspace_id, order_id, FIRST_STAGE, actor.kind, actor.user_id,
                actor.token_id, now,
            )  # fmt: skip
            await conn.rows(_ARTWORK_INSERT, workspace_id, order_id, FIRST_ARTWORK_STATUS, now)
            reserved: dict[int, tuple[int, int]] = {}
            refused = await stock.reserve(
                reservations, now, order_id=order_id, actor=actor, levels=reserved
            )
            if refused:  # `reserved` grew past the column since it was read: nothing is kept
                raise content.reservation_errors(refused)
            await outbox.record_event(
                workspace_id=workspace_id,
                name=EventName.ORDER_CREATED,
                fields=outbox.order_change_fields(
                    order_id=order_id,
                    order_number=number,
                    stage=FIRST_STAGE,
                    revision=1,
                    customer={"id": customer_id, "name": customer_name, "slug": customer_slug},
                    external_ref=external_ref,
                    total_cents=totals.total_cents,
                    currency=locked.currency,
                ),
                order_id=order_id,
                customer_id=customer_id,
                occurred_at=now,
            )
            # The items as every reader shows them, with the levels the reservations left.
            shown = order_content.shown(content, written, reserved)
            rows = _created_rows(
                order_id,
                number,
                customer=(customer_id, customer_name, customer_slug),
                currency=locked.currency,
                content=content,
                items=shown,
                totals=totals,
                due_by=due,
                external_ref=external_ref,
                ship_to=shipping,
                prices_include_tax=inclusive,
                now=now,
            )
            if not save:
                raise _Unsaved(rows)
            return rows

    try:
        return await db.atomic(write)
    except _Unsaved as preview:
        return preview.rows


class _Unsaved(Exception):  # not an error: how a preview leaves its transaction
    """Raised at the end of a preview's create, so its transaction is rolled back."""

    def __init__(self, rows: OrderRows) -> None:
        super().__init__("preview")
        self.rows = rows


async def preview(**create_arguments: Any) -> OrderRows:
    """The order `create` would make from the same arguments — lines, prices, totals — with
    nothing kept: the same checks and computation in a transaction that is rolled back."""
    return await create(**create_arguments, save=False)


def _created_rows(
    order_id: int,
    number: str,
    *,
    customer: tuple[int, str, str],
    currency: str,
    content: order_content.Content,
    items: list[ItemView],
    totals: Totals,
    due_by: dt.datetime | None,
    external_ref: str | None,
    ship_to: dict[str, str] | None,
    prices_include_tax: bool,
    now: dt.datetime,
) -> OrderRows:
    """The new order's detail rows as GET /orders/{id} would read them, from what the create
    wrote (only items are read back): in FIRST_STAGE, one history entry (none → FIRST_STAGE), its
    artwork FIRST_ARTWORK_STATUS at version 0, no invoice."""
    customer_id, customer_name, customer_slug = customer
    item_ids = {item.position: item.id for item in items}
    order = OrderDetailRow(
        id=order_id,
        number=number,
        stage=FIRST_STAGE,
        substage=None,
        due_by=due_by,
        dispatched_at=None,
        carrier=None,
        tracking_number=None,
        external_ref=external_ref,
        subtotal_cents=totals.subtotal_cents,
        tax_cents=totals.tax_cents,
        total_cents=totals.total_cents,
        currency=currency,
        created_at=now,
        updated_at=now,
        customer_id=customer_id,
        customer_name=customer_name,
        customer_slug=customer_slug,
        artwork_status=FIRST_ARTWORK_STATUS,
        artwork_version=0,
        artwork_approved_at=None,
        ship_to=ship_to_rules.encode(ship_to),
        prices_include_tax=prices_include_tax,
    )
    return OrderRows(
        order=order,
        lines=[
            LineRow(
                order_id=order_id,
                description=line.description,
                quantity=line.quantity,
                unit_price_cents=line.unit_price_cents,
                line_total_cents=line_total,
                sku=line.sku,  # a code of the workspace: an unknown one was refused
                item_id=None if line.item is None else item_ids[line.item],
                price_source=line.price_source,
                price_breakdown=line.breakdown,
            )
            for line, line_total in zip(content.lines, totals.line_totals, strict=True)
        ],
        history=[HistoryRow(from_stage=None, to_stage=FIRST_STAGE, at=now)],
        invoices=[],
        items=items,
    )
