"""What needs someone in the shop now, the admin's overview's first sections: each kind of
attention with its rule, its count and its most urgent orders (or invoices), and the day's
work (art to do, ready to print, dispatch today).

Every rule is written once, here, as the WHERE of one branch of a single statement: each
branch counts its matches (`COUNT(*) OVER ()`) and keeps the first LIMIT of them, so the page
costs one round trip. Each branch starts from an index that holds only the work in hand
(open orders by stage, issued invoices), never from the workspace's history, so the cost
stays flat as dispatched orders and paid invoices pile up (docs/admin.md#overview)."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum

import msgspec

from models import statements
from models.stages import OPEN, OPEN_LIST, SEQUENCE, consumes_stock
from models.statements import Select, Stamp

LIMIT = 10  # orders shown per kind; the count says how many there are
DUE_SOON_DAYS = 2  # due today or in the next two days
PROOF_WAIT = dt.timedelta(days=2)  # a proof unanswered for longer than this is chased


class Kind(StrEnum):
    """The kinds of attention, in the order the overview shows them."""

    OVERDUE = "overdue"  # open, due before today
    DUE_SOON = "due_soon"  # due within DUE_SOON_DAYS, not yet in qc_pack
    PROOF_WAITING = "proof_waiting"  # sent, unanswered for longer than PROOF_WAIT
    CHANGES_REQUESTED = "changes_requested"  # the customer asked for changes: a new proof
    UNAPPROVED = "unapproved"  # in print_queue or later without approved artwork
    SHORT_OF_STOCK = "short_of_stock"  # a line's SKU has less available than 0
    INVOICE_OVERDUE = "invoice_overdue"  # past its due date with a balance
    # The day's work, beside what went wrong:
    ART_TO_DO = "art_to_do"  # in artwork, no proof sent yet
    READY_TO_PRINT = "ready_to_print"  # in print queue, approved, every SKU line covered
    DISPATCH_TODAY = "dispatch_today"  # in QC & pack: packed and sent today


# The day's work lists, shown apart from what needs attention.
WORK = frozenset({Kind.ART_TO_DO, Kind.READY_TO_PRINT, Kind.DISPATCH_TODAY})


def _sql_list(stages: tuple[str, ...]) -> str:
    return ", ".join(f"'{stage}'" for stage in stages)


_QUEUE = SEQUENCE.index("print_queue")
_QC = SEQUENCE.index("qc_pack")
BEFORE_QC = _sql_list(tuple(s for s in OPEN if SEQUENCE.index(s) < _QC))
PRINT_QUEUE_ON = _sql_list(tuple(s for s in OPEN if SEQUENCE.index(s) >= _QUEUE))
# Not yet in production: the stages whose orders still hold their stock reserved.
STOCK_RESERVED = _sql_list(tuple(s for s in OPEN if not consumes_stock(s)))
# The latest stage first: an order nearer dispatch without approval is the more urgent.
_LATEST_FIRST = "CASE o.stage " + " ".join(
    f"WHEN '{stage}' THEN {-SEQUENCE.index(stage)}" for stage in OPEN
) + " END"  # fmt: skip
_DUE_FIRST = "o.due_by IS NULL, o.due_by, o.id"  # soonest due first, undated last


class Item(msgspec.Struct, array_like=True, frozen=True):
    """One order (one invoice for INVOICE_OVERDUE) of one kind, with what makes it urgent."""

    kind: str  # a Kind
    number: str  # the order's number; the invoice's for INVOICE_OVERDUE
    customer: str
    at: Stamp | None  # due date; when the proof was sent or answered; the invoice's due date
    figure: int | None  # the proof's version; the SKU's available (< 0); the balance (cents)
    note: str | None  # the customer's comment; the artwork state; the SKU; the currency
    stage: str | None  # the order's (None for an invoice)
    total: int  # how many of this kind there are


COLUMNS = ("number", "customer", "at", "figure", "note", "stage")


def _branch(
    kind: Kind, columns: tuple[str, str, str, str, str, str], body: str, order_by: str
) -> str:
    """One kind's first LIMIT rows, each with its place and the kind's count; `columns` are
    the expressions of COLUMNS (the customer's id: its name is read after the LIMIT)."""
    named = ", ".join(f"{value} AS {name}" for value, name in zip(columns, COLUMNS, strict=True))
    return f"""SELECT * FROM (
        SELECT '{kind}' AS kind, {named},
               ROW_NUMBER() OVER (ORDER BY {order_by}) AS place, COUNT(*) OVER () AS total
        {body} ORDER BY {order_by} LIMIT {LIMIT}) AS {kind}"""  # noqa: S608 - constant fragments


_ARTWORK = 'LEFT JOIN artwork a ON a."order" = o.id'
_CURRENT_PROOF = 'JOIN artwork_proofs p ON p."order" = o.id AND p.version = a.version'
_NONE = "CAST(NULL AS BIGINT)"
_DUE = ("o.number", "o.customer", "UTC_TEXT(o.due_by)")

# $1 the workspace, $2 00:00 today in its zone (due dates are stored as 00:00 of their day),
# $3 00:00 of the first day after "soon", $4 now, $5 now - PROOF_WAIT.
BRANCHES = {
    Kind.OVERDUE: _branch(
        Kind.OVERDUE,
        (*_DUE, _NONE, "NULL", "o.stage"),
        f"FROM orders o WHERE o.workspace = $1 AND o.stage IN ({OPEN_LIST}) AND o.due_by < $2",
        "o.due_by, o.id",
    ),
    Kind.DUE_SOON: _branch(
        Kind.DUE_SOON,
        (*_DUE, _NONE, "NULL", "o.stage"),
        f"""FROM orders o WHERE o.workspace = $1 AND o.stage IN ({BEFORE_QC})
        AND o.due_by >= $2 AND o.due_by < $3""",
        "o.due_by, o.id",
    ),
    Kind.PROOF_WAITING: _branch(
        Kind.PROOF_WAITING,
        (
            "o.number",
            "o.customer",
            "UTC_TEXT(p.created_at)",
            "CAST(p.version AS BIGINT)",
            "NULL",
            "o.stage",
        ),
        f"""FROM orders o JOIN artwork a ON a."order" = o.id {_CURRENT_PROOF}
        WHERE o.workspace = $1 AND o.stage = 'artwork' AND a.status = 'awaiting_approval'
        AND p.answer IS NULL AND p.created_at < $5""",
        "p.created_at, o.id",
    ),
    Kind.CHANGES_REQUESTED: _branch(
        Kind.CHANGES_REQUESTED,
        (
            "o.number",
            "o.customer",
            "UTC_TEXT(p.answered_at)",
            "CAST(p.version AS BIGINT)",
            "p.customer_comment",
            "o.stage",
        ),
        f"""FROM orders o JOIN artwork a ON a."order" = o.id LEFT {_CURRENT_PROOF}
        WHERE o.workspace = $1 AND o.stage IN ({OPEN_LIST})
        AND a.status = 'changes_requested'""",
        "p.answered_at IS NULL, p.answered_at, o.id",
    ),
    Kind.UNAPPROVED: _branch(
        Kind.UNAPPROVED,
        (*_DUE, _NONE, "COALESCE(a.status, 'awaiting_proof')", "o.stage"),
        f"""FROM orders o {_ARTWORK} WHERE o.workspace = $1 AND o.stage IN ({PRINT_QUEUE_ON})
        AND (a.status IS NULL OR a.status <> 'approved')""",
        f"{_LATEST_FIRST}, {_DUE_FIRST}",
    ),
    # Each order once, with its SKU of least available (ties: the first code).
    Kind.SHORT_OF_STOCK: _branch(
        Kind.SHORT_OF_STOCK,
        (*_DUE, "short.available", "short.code", "o.stage"),
        f"""FROM (
            SELECT l."order" AS id, s.code, CAST(s.on_hand - s.reserved AS BIGINT) AS available,
                   ROW_NUMBER() OVER (
                       PARTITION BY l."order" ORDER BY s.on_hand - s.reserved, s.code
                   ) AS worst
            FROM orders o JOIN order_lines l ON l."order" = o.id JOIN skus s ON s.id = l.sku
            WHERE o.workspace = $1 AND o.stage IN ({STOCK_RESERVED})
            AND s.on_hand - s.reserved < 0
        ) AS short JOIN orders o ON o.id = short.id
        WHERE short.worst = 1""",  # noqa: S608 - constant fragments
        _DUE_FIRST,
    ),
    Kind.INVOICE_OVERDUE: _branch(
        Kind.INVOICE_OVERDUE,
        (
            "i.number",
            "i.customer",
            "UTC_TEXT(i.due_at)",
            "i.total_cents - i.paid_cents",
            "i.currency",
            "NULL",
        ),
        """FROM invoices i WHERE i.workspace = $1 AND i.status = 'issued'
        AND i.total_cents > i.paid_cents AND i.due_at < $4""",
        "i.due_at, i.id",
    ),
    Kind.ART_TO_DO: _branch(
        Kind.ART_TO_DO,
        (*_DUE, _NONE, "NULL", "o.stage"),
        f"""FROM orders o {_ARTWORK} WHERE o.workspace = $1 AND o.stage = 'artwork'
        AND (a.status IS NULL OR a.status = 'awaiting_proof')""",
        _DUE_FIRST,
    ),
    Kind.READY_TO_PRINT: _branch(
        Kind.READY_TO_PRINT,
        (*_DUE, _NONE, "NULL", "o.stage"),
        f"""FROM orders o {_ARTWORK} WHERE o.workspace = $1 AND o.stage = 'print_queue'
        AND a.status = 'approved' AND NOT EXISTS (
            SELECT 1 FROM order_lines l JOIN skus s ON s.id = l.sku
            WHERE l."order" = o.id AND s.on_hand - s.reserved < 0)""",  # noqa: S608
        _DUE_FIRST,
    ),
    Kind.DISPATCH_TODAY: _branch(
        Kind.DISPATCH_TODAY,
        (*_DUE, _NONE, "NULL", "o.stage"),
        "FROM orders o WHERE o.workspace = $1 AND o.stage = 'qc_pack'",
        _DUE_FIRST,
    ),
}
# The customers' names are read for the shown rows only, after each kind's LIMIT.
ATTENTION = Select(
    Item,
    f"""SELECT b.kind, b.number, c.name, b.at, b.figure, b.note, b.stage, b.total
    FROM ({" UNION ALL ".join(BRANCHES.values())}) AS b JOIN customers c ON c.id = b.customer
    ORDER BY b.kind, b.place""",  # noqa: S608 - constant fragments
)


class Attention(msgspec.Struct, frozen=True):
    """One kind: how many there are and the first LIMIT, most urgent first."""

    kind: Kind
    count: int
    items: list[Item]


async def needs_attention(
    workspace_id: int, *, today: dt.datetime, now: dt.datetime
) -> list[Attention]:
    """Every kind, in Kind's order (a count of 0 and no items when nothing is wrong).
    `today` is 00:00 of today in the workspace's zone: an order due today is not overdue."""
    soon_ends = today + dt.timedelta(days=DUE_SOON_DAYS + 1)
    async with statements.connection() as reader:
        rows = await reader.all(ATTENTION, workspace_id, today, soon_ends, now, now - PROOF_WAIT)
    found: dict[Kind, list[Item]] = {kind: [] for kind in Kind}
    for row in rows:
        found[Kind(row.kind)].append(row)
    return [
        Attention(kind=kind, count=items[0].total if items else 0, items=items)
        for kind, items in found.items()
    ]
