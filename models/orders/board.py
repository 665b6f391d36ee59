"""The admin's board: open orders by stage, each card with its garment count, its print methods
and its readiness marks (models/orders/readiness.py). Five statements on one connection for the
whole board, whatever the number of cards (tests/admin/test_orders.py counts them): the cards
(at most BOARD_CARDS per stage), then their items, imprints, lines and invoices by the cards'
ids. Every statement is scoped to the workspace."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import msgspec

from models import clock, statements
from models.garments import Method, method_words
from models.orders.queries import ArtworkStatus, Stage
from models.orders.readiness import Bill, Mark, StockNeed, art, paid, stock
from models.stages import OPEN, OPEN_LIST, SEQUENCE
from models.statements import Select, Stamp, when

BOARD_CARDS = 50  # cards shown per board column; the column's count says how many there are


class Card(msgspec.Struct, array_like=True, frozen=True):
    id: int
    number: str
    stage: Stage
    due_by: Stamp | None
    customer_name: str
    default_carrier: str  # the customer's, offered when the card is dispatched
    artwork_status: ArtworkStatus | None
    stock_consumed: bool
    in_stage: int  # how many open orders the card's stage holds


# Each open stage's first BOARD_CARDS orders (due soonest first, no due date last, then the
# oldest), each row carrying its stage's count: one statement for the cards.
BOARD = Select(
    Card,
    f"""
    SELECT ranked.id, ranked.number, ranked.stage, ranked.due_by, ranked.customer_name,
           ranked.default_carrier, a.status, ranked.stock_consumed, ranked.in_stage
    FROM (
        SELECT o.id, o.number, o.stage, o.due_by, c.name AS customer_name,
               c.default_carrier, o.stock_consumed,
               COUNT(*) OVER (PARTITION BY o.stage) AS in_stage,
               ROW_NUMBER() OVER (
                   PARTITION BY o.stage
                   ORDER BY (o.due_by IS NULL), o.due_by, o.created_at, o.id
               ) AS place
        FROM orders o JOIN customers c ON c.id = o.customer
        WHERE o.workspace = $1 AND o.stage IN ({OPEN_LIST})
    ) AS ranked
    LEFT JOIN artwork a ON a."order" = ranked.id
    WHERE ranked.place <= $2
    ORDER BY ranked.stage, ranked.place
    """,  # noqa: S608 - constant stage names
)


class _ItemSizes(msgspec.Struct, array_like=True, frozen=True):
    order: int
    sizes: str | dict[str, int]  # JSON text (drivers hand `json` columns back as text)


class _Method(msgspec.Struct, array_like=True, frozen=True):
    order: int
    method: str


class _LineGroup(msgspec.Struct, array_like=True, frozen=True):
    """An order's lines of one SKU (or of none: `sku` NULL) with the SKU's availability."""

    order: int
    sku: int | None
    quantity: int
    available: int | None


class _Invoice(msgspec.Struct, array_like=True, frozen=True):
    order: int
    status: str
    total_cents: int
    paid_cents: int
    currency: str
    due_at: Stamp | None


# The cards' ids come from BOARD, itself scoped to the workspace; each statement reads by the
# order's index, a few rows per card.
ITEM_SIZES = Select(
    _ItemSizes,
    'SELECT "order", sizes FROM order_items WHERE workspace = $1 AND "order" = ANY($2)',
)
METHODS = Select(
    _Method,
    """SELECT DISTINCT "order", method FROM order_imprints
    WHERE workspace = $1 AND "order" = ANY($2)""",
)
LINE_GROUPS = Select(
    _LineGroup,
    """
    SELECT l."order", l.sku, SUM(l.quantity), MIN(s.on_hand - s.reserved)
    FROM order_lines l LEFT JOIN skus s ON s.id = l.sku
    WHERE l.workspace = $1 AND l."order" = ANY($2)
    GROUP BY l."order", l.sku
    """,
)
INVOICES = Select(
    _Invoice,
    """SELECT "order", status, total_cents, paid_cents, currency, UTC_TEXT(due_at)
    FROM invoices WHERE workspace = $1 AND "order" = ANY($2)""",
)

_SIZES = msgspec.json.Decoder(dict[str, int])
_METHOD_ORDER = {method.value: place for place, method in enumerate(Method)}


@dataclass(frozen=True)
class BoardCard:
    """A card as the board shows it; `back` and `forward` are the stages its buttons move to
    (None: no such button)."""

    order: Card
    garments: int
    methods: list[str]  # labels, in the order of models/orders/items.py Method
    marks: tuple[Mark, Mark, Mark]  # art, stock, paid
    back: str | None
    forward: str | None


class Column(NamedTuple):
    stage: str
    total: int  # open orders in the stage; `cards` shows the first BOARD_CARDS
    cards: list[BoardCard]


def garment_count(item_sizes: list[dict[str, int]] | None, line_quantities: int) -> int:
    """The garments an order makes: its items' sizes added up when it has items (their lines
    also hold setups and the plain lines are fees as often as garments); for an order without
    items, the quantities of its lines."""
    if item_sizes:
        return sum(quantity for sizes in item_sizes for quantity in sizes.values())
    return line_quantities


def back_stage(stage: str) -> str | None:
    """The open stage before `stage` (rework moves back only among open stages)."""
    place = OPEN.index(stage)
    return OPEN[place - 1] if place > 0 else None


def forward_stage(stage: str) -> str | None:
    place = SEQUENCE.index(stage)
    return SEQUENCE[place + 1] if place + 1 < len(SEQUENCE) else None


def method_labels(methods: Iterable[str]) -> list[str]:
    ordered = sorted(set(methods), key=lambda m: (_METHOD_ORDER.get(m, len(_METHOD_ORDER)), m))
    return [method_words(method) for method in ordered]


async def board(workspace_id: int, *, now: dt.datetime | None = None) -> list[Column]:
    """One column per open stage, in production order, with its count and first cards."""
    async with statements.connection() as reader:
        cards = await reader.all(BOARD, workspace_id, BOARD_CARDS)
        ids = [card.id for card in cards]
        items = await reader.all(ITEM_SIZES, workspace_id, ids)
        methods = await reader.all(METHODS, workspace_id, ids)
        groups = await reader.all(LINE_GROUPS, workspace_id, ids)
        invoices = await reader.all(INVOICES, workspace_id, ids)
    sizes: dict[int, list[dict[str, int]]] = defaultdict(list)
    for item in items:
        sizes[item.order].append(
            item.sizes if isinstance(item.sizes, dict) else _SIZES.decode(item.sizes)
        )
    used: dict[int, list[str]] = defaultdict(list)
    for row in methods:
        used[row.order].append(row.method)
    quantities: dict[int, int] = defaultdict(int)
    needs: dict[int, list[StockNeed]] = defaultdict(list)
    for group in groups:
        quantities[group.order] += group.quantity
        if group.sku is not None and group.available is not None:
            needs[group.order].append(StockNeed(group.quantity, group.available))
    bills: dict[int, list[Bill]] = defaultdict(list)
    for invoice in invoices:
        due = when(invoice.due_at) if invoice.due_at is not None else None
        bills[invoice.order].append(
            Bill(invoice.status, invoice.total_cents, invoice.paid_cents, invoice.currency, due)
        )
    moment = now or clock.now()
    by_stage: dict[str, list[BoardCard]] = {stage: [] for stage in OPEN}
    totals: dict[str, int] = dict.fromkeys(OPEN, 0)
    for card in cards:
        totals[card.stage] = card.in_stage
        by_stage[card.stage].append(
            BoardCard(
                order=card,
                garments=garment_count(sizes.get(card.id), quantities[card.id]),
                methods=method_labels(used[card.id]),
                marks=(
                    art(card.artwork_status),
                    stock(needs[card.id], consumed=card.stock_consumed),
                    paid(bills[card.id], now=moment),
                ),
                back=back_stage(card.stage),
                forward=forward_stage(card.stage),
            )
        )
    return [Column(stage, totals[stage], by_stage[stage]) for stage in OPEN]
