"""Editing an order: one function for the admin's edit page and
`PATCH /v1/orders/{id}`.

Lines and items change while the order is in CONTENT_EDITABLE stages and has consumed no
stock; due date, notes and external_ref until it is dispatched or cancelled. A content change
writes the order's items and lines again (models/orders/content.py), prices them again and
moves reservations by the difference, recorded as stock movements "order edited". Every
change raises `revision` by one, so a printed work order can tell it is out of date, and is
recorded in `order_edits` (revision, fields changed, who) for the order's timeline. A ship-to
given in part is merged into the order's (a JSON merge patch, models/orders/ship_to.py) as
the locked row has it, and the result checked whole.

The workspace row is locked first (as a create does: external_ref is unique in the
workspace), then the order row (as a stage move does), then the SKUs in id order, reserving
and releasing in one pass, so an edit, a move and a create of the same workspace never wait
on each other in a circle. The transaction is `db.atomic`'s: run again whole after a
deadlock.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import msgspec

from models import clock, db, statements, stock
from models.actors import Actor
from models.customers.addresses import NewAddress
from models.errors import (
    ErrorCode,
    InvalidFields,
    NotFoundError,
    RuleRefused,
    StaleError,
    normalise_newlines,
)
from models.filters import MAX_ID
from models.garments import NewItem
from models.orders import content as order_content
from models.orders import ship_to as ship_to_rules
from models.orders.lines import NewLine, applied_rate, compute_totals, local_midnight
from models.orders.queries import Precondition, check_precondition
from models.pricing import breakdown as price_parts
from models.pricing.breakdown import PriceSource
from models.stages import CONTENT_EDITABLE, TERMINAL_STAGES
from models.webhooks import events as outbox
from models.webhooks.names import EventName

EDIT_REASON = "order edited"


class Keep(enum.Enum):
    """A field the edit leaves as it is."""

    KEEP = "keep"


KEEP = Keep.KEEP


@dataclass(frozen=True)
class OrderEdit:
    due_by: dt.date | Keep | None = KEEP
    notes: str | Keep = KEEP
    external_ref: str | Keep | None = KEEP
    lines: Sequence[NewLine] | None = None  # None: the plain lines stay
    items: Sequence[NewItem] | None = None  # None: the items stay
    # None: no ship-to; an AddressPatch: merged into the order's (RFC 7396); a NewAddress: that
    # whole address (the patch naming every field)
    ship_to: ship_to_rules.AddressPatch | NewAddress | Keep | None = KEEP
    ship_to_address_id: int | None = None  # one of the customer's addresses, copied
    prices_include_tax: bool | Keep = KEEP

    @property
    def changes_content(self) -> bool:
        """Lines, items or how their prices read: totals are computed again."""
        return (
            self.lines is not None or self.items is not None or self.prices_include_tax is not KEEP
        )

    def given(self) -> list[str]:
        """The fields this edit sets, in the API's order."""
        values = {
            "due_by": self.due_by is not KEEP,
            "notes": self.notes is not KEEP,
            "external_ref": self.external_ref is not KEEP,
            "lines": self.lines is not None,
            "items": self.items is not None,
            "ship_to": self.ship_to is not KEEP or self.ship_to_address_id is not None,
            "prices_include_tax": self.prices_include_tax is not KEEP,
        }
        return [name for name, given in values.items() if given]

    @property
    def changes_anything(self) -> bool:
        return bool(self.given())


_ORDER = statements.Sql(
    """
    SELECT o.id, o.number, o.stage, o.revision, o.stock_consumed, o.due_by, o.notes,
        o.external_ref, c.tax_exempt, o.currency, c.id, c.name, c.slug, o.ship_to,
        o.prices_include_tax
    FROM orders o JOIN customers c ON c.id = o.customer
    WHERE o.workspace = $1 AND o.id = $2
    FOR NO KEY UPDATE OF o
    """
)
_WORKSPACE = statements.Sql(
    "SELECT tax_rate, timezone FROM workspaces WHERE id = $1 FOR NO KEY UPDATE"
)
_REF_TAKEN = statements.Sql(
    "SELECT id FROM orders WHERE workspace = $1 AND external_ref = $2 AND id <> $3"
)
_PLAIN_LINES = statements.Sql(
    """
    SELECT l.description, l.quantity, l.unit_price_cents, s.code
    FROM order_lines l LEFT JOIN skus s ON s.id = l.sku
    WHERE l."order" = $1 AND l.item IS NULL ORDER BY l.position
    """
)
# The lines made from the order's items, as stored: kept whole by an edit of the plain lines.
_ITEM_LINES = statements.Sql(
    """
    SELECT l.description, l.quantity, l.unit_price_cents, s.code, s.id, s.reserved, i.position,
        i.id, l.price_source, l.price_breakdown
    FROM order_lines l JOIN order_items i ON i.id = l.item LEFT JOIN skus s ON s.id = l.sku
    WHERE l."order" = $1 ORDER BY l.position
    """
)
_ITEM_GARMENTS = statements.Sql(
    'SELECT style, colour FROM order_items WHERE "order" = $1 ORDER BY position'
)
_SKUS_BY_CODE = statements.Sql(
    "SELECT code, id, reserved FROM skus WHERE workspace = $1 AND code = ANY($2)"
)
_DELETE_LINES = statements.Sql('DELETE FROM order_lines WHERE "order" = $1')
_DELETE_IMPRINTS = statements.Sql('DELETE FROM order_imprints WHERE "order" = $1')
_DELETE_ITEMS = statements.Sql('DELETE FROM order_items WHERE "order" = $1')
_UPDATE = statements.Sql(
    """
    UPDATE orders SET due_by = $2, notes = $3, external_ref = $4, subtotal_cents = $5,
        tax_cents = $6, total_cents = $7, revision = revision + 1, updated_at = $8, ship_to = $9,
        prices_include_tax = $10, tax_rate = COALESCE($11, tax_rate)
    WHERE id = $1
    """
)
_TOTALS = statements.Sql("SELECT subtotal_cents, tax_cents, total_cents FROM orders WHERE id = $1")
# The edit's lasting record (the timeline's; the outbox's event is pruned in time).
_RECORD = statements.Sql(
    """
    INSERT INTO order_edits (workspace, "order", revision, changed, actor_kind, "user", token,
        created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    """
)


@dataclass(frozen=True)
class _Order:
    id: int
    number: str
    stage: str
    revision: int
    stock_consumed: bool
    due_by: Any
    notes: str
    external_ref: str | None
    tax_exempt: bool
    currency: str
    customer: dict[str, Any]
    ship_to: Any  # as stored
    prices_include_tax: bool


def _refusal(order: _Order, edit: OrderEdit) -> str | None:
    if order.stage in TERMINAL_STAGES:
        return f"Order {order.number} is {order.stage}; it can no longer change."
    if edit.changes_content and order.stage not in CONTENT_EDITABLE:
        return f"Order {order.number} is {order.stage}; its lines can no longer change."
    if edit.changes_content and order.stock_consumed:
        return f"Order {order.number} has used its stock; its lines can no longer change."
    return None


async def edit_order(
    *,
    workspace_id: int,
    order_id: int,
    edit: OrderEdit,
    actor: Actor,
    precondition: Precondition | None = None,
    expected_revision: int | None = None,
) -> None:
    """Apply `edit` in one transaction. Raises NotFoundError, StaleError (the order changed
    since `expected_revision` or fails `precondition`), RuleRefused (stage) or InvalidFields
    (the create's keys and messages); nothing is written then."""
    if not 0 < order_id <= MAX_ID:
        raise NotFoundError("Order not found")
    now = clock.now()

    async def write() -> None:
        async with statements.connection() as conn:
            workspace = await conn.row(_WORKSPACE, workspace_id)
            if workspace is None:
                raise NotFoundError("Order not found")
            tax_rate, timezone = Decimal(str(workspace[0])), str(workspace[1])
            row = await conn.row(_ORDER, workspace_id, order_id)
            if row is None:
                raise NotFoundError("Order not found")
            order = _Order(
                id=row[0],
                number=row[1],
                stage=row[2],
                revision=row[3],
                stock_consumed=bool(row[4]),
                due_by=row[5],
                notes=row[6],
                external_ref=row[7],
                tax_exempt=bool(row[8]),
                currency=row[9],
                customer={"id": row[10], "name": row[11], "slug": row[12]},
                ship_to=row[13],
                prices_include_tax=bool(row[14]),
            )
            if expected_revision is not None and expected_revision != order.revision:
                raise StaleError(
                    f"Order {order.number} changed while you were editing it (it is now at "
                    f"revision {order.revision}); your changes were not saved."
                )
            if precondition is not None:
                await check_precondition(precondition, workspace_id, order_id, timezone)
            if not edit.changes_anything:
                return
            reason = _refusal(order, edit)
            if reason is not None:
                raise RuleRefused(reason, code=ErrorCode.ORDER_LOCKED)
            external_ref = order.external_ref if edit.external_ref is KEEP else edit.external_ref
            if external_ref is not None and external_ref != order.external_ref:
                taken = await conn.row(_REF_TAKEN, workspace_id, external_ref, order_id)
                if taken is not None:
                    raise InvalidFields(
                        {
                            "external_ref": [
                                f"The external_ref has already been taken by order {taken[0]}."
                            ]
                        },
                        code=ErrorCode.EXTERNAL_REF_TAKEN,
                        details={"order_id": taken[0]},
                    )
            due_by = order.due_by
            if not isinstance(edit.due_by, Keep):
                due_by = local_midnight(edit.due_by, timezone) if edit.due_by else None
            notes = order.notes if isinstance(edit.notes, Keep) else normalise_newlines(edit.notes)
            shipping = order.ship_to
            patch = edit.ship_to
            if isinstance(patch, NewAddress):
                patch = ship_to_rules.AddressPatch.whole(patch)
            if isinstance(patch, ship_to_rules.AddressPatch):
                shipping = ship_to_rules.encode(patch.merged(order.ship_to))
            elif edit.ship_to_address_id is not None or edit.ship_to is None:
                shipping = ship_to_rules.encode(
                    await ship_to_rules.resolve(
                        conn,
                        workspace_id,
                        order.customer["id"],
                        given=None,
                        address_id=edit.ship_to_address_id,
                        fallback=None,
                    )
                )
            inclusive = (
                order.prices_include_tax
                if isinstance(edit.prices_include_tax, Keep)
                else edit.prices_include_tax
            )
            rate = None  # kept, as the totals are, unless the content is priced again
            if edit.changes_content:
                totals = await _replace_content(
                    conn, workspace_id, order, edit, tax_rate, inclusive, now=now, actor=actor
                )
                rate = applied_rate(tax_rate, order.tax_exempt)
            else:
                totals_row = await conn.row(_TOTALS, order_id)
                if totals_row is None:
                    raise NotFoundError("Order not found")
                totals = (int(totals_row[0]), int(totals_row[1]), int(totals_row[2]))
            await conn.rows(
                _UPDATE, order_id, due_by, notes, external_ref, *totals, now, shipping, inclusive,
                rate,
            )  # fmt: skip
            changed = edit.given()
            await conn.rows(
                _RECORD, workspace_id, order_id, order.revision + 1,
                msgspec.json.encode(changed).decode(), actor.kind, actor.user_id,
                actor.token_id, now,
            )  # fmt: skip
            await outbox.record_event(
                workspace_id=workspace_id,
                name=EventName.ORDER_UPDATED,
                fields=outbox.order_change_fields(
                    order_id=order_id,
                    order_number=order.number,
                    stage=order.stage,
                    revision=order.revision + 1,
                    customer=order.customer,
                    external_ref=external_ref,
                    total_cents=totals[2],
                    currency=order.currency,
                    changed=changed,
                ),
                order_id=order_id,
                customer_id=order.customer["id"],
                occurred_at=now,
            )

    return await db.atomic(write)


async def _replace_content(
    conn: statements.Reader,
    workspace_id: int,
    order: _Order,
    edit: OrderEdit,
    tax_rate: Decimal,
    inclusive: bool,
    *,
    now: dt.datetime,
    actor: Actor,
) -> tuple[int, int, int]:
    """Writes the order's items and lines again and moves its reservations by the difference;
    returns the new subtotal, tax and total."""
    if edit.lines is not None:
        lines = list(edit.lines)
    else:
        lines = [
            NewLine(description=d, quantity=q, unit_price_cents=p, sku=code)
            for d, q, p, code in await conn.rows(_PLAIN_LINES, order.id)
        ]
    kept_items: dict[int, int] | None = None
    kept: list[NewLine] = []
    kept_skus: dict[str, tuple[int, int]] = {}
    items = list(edit.items or ())
    previous: list[tuple[str, str]] = []
    if edit.items is not None:  # defaults echoed back follow the new style and colour
        previous = [(style, colour) for style, colour in await conn.rows(_ITEM_GARMENTS, order.id)]
    else:  # the items stay exactly as they are: ids, lines, SKUs and prices
        kept_items = {}
        for row in await conn.rows(_ITEM_LINES, order.id):
            description, quantity, price, code, sku_id, reserved, position, item_id = row[:8]
            kept.append(
                NewLine(
                    description=description, quantity=quantity, unit_price_cents=price,
                    sku=code, item=position, price_source=PriceSource(row[8]),
                    breakdown=price_parts.decode(row[9]),
                )
            )  # fmt: skip
            kept_items[position] = item_id
            if code is not None:
                kept_skus[code] = (sku_id, reserved)
    codes = sorted({line.sku for line in lines if line.sku is not None})
    plain_skus: dict[str, tuple[int, int]] = {}
    if codes:
        for code, sku_id, reserved in await conn.rows(_SKUS_BY_CODE, workspace_id, codes):
            plain_skus[code] = (sku_id, reserved)
    unknown = {
        f"lines.{index}.sku": [f"The selected lines.{index}.sku is invalid."]
        for index, line in enumerate(lines)
        if line.sku is not None and line.sku not in plain_skus
    }
    if unknown:
        raise InvalidFields(unknown)
    content = await order_content.resolve(
        conn,
        workspace_id,
        order.customer["id"],
        lines=lines,
        items=items,
        plain_skus=plain_skus | kept_skus,
        kept=kept,
        previous=previous,
    )
    totals = compute_totals(content.lines, tax_rate, order.tax_exempt, inclusive=inclusive)
    before = await stock.order_quantities(order.id)
    after = content.quantities()
    more = Counter({sku: q - before[sku] for sku, q in after.items() if q > before[sku]})
    less = Counter({sku: q - after[sku] for sku, q in before.items() if q > after[sku]})
    over = stock.over_reservation_limit(content.reserved, more)
    if over:
        raise content.reservation_errors(over)
    await conn.rows(_DELETE_LINES, order.id)
    if kept_items is None:
        await conn.rows(_DELETE_IMPRINTS, order.id)
        await conn.rows(_DELETE_ITEMS, order.id)
    await order_content.write(conn, workspace_id, order.id, content, totals, kept_items=kept_items)
    refused = await stock.rebook(
        more, less, now, order_id=order.id, actor=actor, reason=EDIT_REASON
    )
    if refused:
        raise content.reservation_errors(refused)
    return totals.subtotal_cents, totals.tax_cents, totals.total_cents
