"""One order's story, newest first: its stage moves, edits, proofs, the
customer's answers, recorded approvals, emails, invoices, payments (and their voids) and
webhook deliveries, merged into one list.

One statement per source, each bounded to its newest LIMIT rows and scoped to the workspace,
whatever the order's size; the three that record who acted, stage moves, edits and recorded
approvals, share one.
Edits are read from `order_edits` (models/orders/editing.py), kept as long as the order; the
outbox is read for webhook deliveries only, so retention (models/retention.py) pruning its
events takes no edit from the story.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Any

import msgspec

from models import statements
from models.statements import Reader, Select, Stamp

LIMIT = 200  # entries shown; each source reads at most this many of its newest rows


class EntryKind(StrEnum):
    STAGE_MOVE = "stage_move"
    EDIT = "edit"
    PROOF_SENT = "proof_sent"
    ANSWER = "answer"  # the customer's answer to a proof
    APPROVAL = "approval"  # an approval given elsewhere and recorded (models/artwork.py)
    EMAIL = "email"
    INVOICE = "invoice"
    PAYMENT = "payment"
    PAYMENT_VOID = "payment_void"  # a payment voided (models/invoices/voiding.py)
    DELIVERY = "delivery"


# Of entries at the same instant, the effect is told above its cause (a move queues its email
# and its webhook deliveries in the same transaction): a higher rank is shown first.
_RANK = {
    EntryKind.STAGE_MOVE: 0,
    EntryKind.EDIT: 0,
    EntryKind.PROOF_SENT: 0,
    EntryKind.ANSWER: 0,
    EntryKind.APPROVAL: 0,
    EntryKind.INVOICE: 1,
    EntryKind.PAYMENT: 1,
    EntryKind.PAYMENT_VOID: 1,
    EntryKind.EMAIL: 2,
    EntryKind.DELIVERY: 3,
}

# What an edit's `changed` names, in people's words (models/orders/editing.py OrderEdit.given).
CHANGED_LABELS = {
    "due_by": "due date",
    "notes": "notes",
    "external_ref": "reference",
    "lines": "lines",
    "items": "garments",
    "ship_to": "ship-to address",
}


class Entry(msgspec.Struct, frozen=True):
    """One line of the timeline: its kind, when, and what that kind tells (`facts`)."""

    kind: EntryKind
    at: dt.datetime
    key: str  # unique on the page: the element's id
    facts: Any
    seq: int  # the row's id (a proof's version): the order of rows of one kind at one instant

    @property
    def sort_key(self) -> tuple[dt.datetime, int, int]:
        return (self.at, _RANK[self.kind], self.seq)


class Change(msgspec.Struct, array_like=True, frozen=True):
    """A stage move, an edit or a recorded approval, and who made it (one statement reads
    them all)."""

    kind: str  # EntryKind.STAGE_MOVE | EntryKind.EDIT | EntryKind.APPROVAL
    id: int
    from_stage: str | None  # a move's
    to_stage: str | None  # a move's
    revision: int | None  # an edit's
    changed: str | None  # an edit's: a JSON list of the API's field names
    version: int | None  # an approval's
    approved_by: str | None  # an approval's
    note: str | None  # an approval's
    at: Stamp
    actor_kind: str  # models.actors.ActorKind; "" for an edit recorded before its author was
    user_name: str | None
    token_name: str | None


class StageMove(msgspec.Struct, frozen=True):
    id: int
    from_stage: str | None
    to_stage: str
    actor_kind: str
    user_name: str | None
    token_name: str | None


class Edit(msgspec.Struct, frozen=True):
    revision: int
    changed: list[str]  # labels (CHANGED_LABELS)
    actor_kind: str  # "": not known (shown without a "by")
    user_name: str | None
    token_name: str | None


class Delivery(msgspec.Struct, array_like=True, frozen=True):
    """A delivery of one of the order's events."""

    id: int
    created_at: Stamp
    status: str  # models.webhooks.names.DeliveryStatus
    attempts: int
    last_status_code: int | None
    last_error: str | None
    url: str | None
    event: str


class Proof(msgspec.Struct, array_like=True, frozen=True):
    version: int
    file_name: str
    content_type: str
    size: int
    note: str
    created_at: Stamp
    created_by_name: str | None
    answer: str | None  # approved | changes_requested
    answered_at: Stamp | None
    answered_name: str | None
    customer_comment: str | None

    @property
    def is_image(self) -> bool:
        return self.content_type.startswith("image/")

    @property
    def approved(self) -> bool:
        return self.answer == "approved"


class Approval(msgspec.Struct, array_like=True, frozen=True):
    """An approval given elsewhere (at checkout, by phone) and who recorded it."""

    id: int
    version: int  # the version approved; 0 before any proof
    approved_by: str
    note: str
    created_at: Stamp
    actor_kind: str  # models.actors.ActorKind
    user_name: str | None
    token_name: str | None


class Email(msgspec.Struct, array_like=True, frozen=True):
    id: int
    subject: str
    status: str  # models.mail.status.MessageStatus
    created_at: Stamp
    recipient: str
    contact_name: str | None
    sent_at: Stamp | None
    attempts: int
    last_error: str | None
    invoice_number: str | None  # an emailed invoice's: the email carries a link to its page
    opened_at: Stamp | None  # when the customer first opened that page


class Invoice(msgspec.Struct, array_like=True, frozen=True):
    id: int
    number: str
    status: str
    total_cents: int
    currency: str
    issued_at: Stamp | None
    paid_at: Stamp | None
    created_at: Stamp


class Payment(msgspec.Struct, array_like=True, frozen=True):
    id: int
    invoice_number: str
    amount_cents: int
    currency: str
    method: str
    reference: str | None
    paid_at: Stamp
    created_at: Stamp
    actor_kind: str
    user_name: str | None
    token_name: str | None
    voided_at: Stamp | None  # a voided payment no longer counts
    void_reason: str | None
    voided_by_name: str | None  # None: an operator

    @property
    def voided(self) -> bool:
        return self.voided_at is not None


# $1 workspace, $2 order, $3 LIMIT in every statement.
# Stage moves, edits and recorded approvals, each its newest $3 (the typed NULLs let PostgreSQL
# unite them).
CHANGES = Select(
    Change,
    """
    SELECT * FROM (
        SELECT 'stage_move' AS kind, h.id, h.from_stage, h.to_stage,
               CAST(NULL AS INTEGER) AS revision, CAST(NULL AS TEXT) AS changed,
               CAST(NULL AS INTEGER) AS version, CAST(NULL AS TEXT) AS approved_by,
               CAST(NULL AS TEXT) AS note, h.at,
               h.actor_kind, u.name AS user_name, t.name AS token_name
        FROM stage_history h
        LEFT JOIN users u ON u.id = h."user"
        LEFT JOIN api_tokens t ON t.id = h.token
        WHERE h.workspace = $1 AND h."order" = $2
        ORDER BY h.at DESC, h.id DESC LIMIT $3
    ) moves
    UNION ALL
    SELECT * FROM (
        SELECT 'edit' AS kind, e.id, CAST(NULL AS TEXT) AS from_stage,
               CAST(NULL AS TEXT) AS to_stage, e.revision, e.changed,
               CAST(NULL AS INTEGER) AS version, CAST(NULL AS TEXT) AS approved_by,
               CAST(NULL AS TEXT) AS note, e.created_at,
               e.actor_kind, u.name AS user_name, t.name AS token_name
        FROM order_edits e
        LEFT JOIN users u ON u.id = e."user"
        LEFT JOIN api_tokens t ON t.id = e.token
        WHERE e.workspace = $1 AND e."order" = $2
        ORDER BY e.id DESC LIMIT $3
    ) edits
    UNION ALL
    SELECT * FROM (
        SELECT 'approval' AS kind, a.id, CAST(NULL AS TEXT) AS from_stage,
               CAST(NULL AS TEXT) AS to_stage, CAST(NULL AS INTEGER) AS revision,
               CAST(NULL AS TEXT) AS changed, a.version, CAST(a.approved_by AS TEXT), a.note,
               a.created_at, a.actor_kind, u.name AS user_name, t.name AS token_name
        FROM artwork_approvals a
        LEFT JOIN users u ON u.id = a."user"
        LEFT JOIN api_tokens t ON t.id = a.token
        WHERE a.workspace = $1 AND a."order" = $2
        ORDER BY a.id DESC LIMIT $3
    ) approvals
    """,
)
DELIVERIES = Select(
    Delivery,
    """
    SELECT d.id, e.created_at, d.status, d.attempts, d.last_status_code, d.last_error, s.url,
           e.name
    FROM webhook_events e
    JOIN webhook_deliveries d ON d.event = e.id
    LEFT JOIN webhook_subscriptions s ON s.id = d.subscription
    WHERE e.workspace = $1 AND e."order" = $2
    ORDER BY e.id DESC, d.id DESC LIMIT $3
    """,
)
PROOFS = Select(
    Proof,
    """
    SELECT p.version, p.file_name, p.content_type, p.size, p.note, p.created_at, u.name,
           p.answer, p.answered_at, p.answered_name, p.customer_comment
    FROM artwork_proofs p LEFT JOIN users u ON u.id = p.created_by
    WHERE p.workspace = $1 AND p."order" = $2
    ORDER BY p.version DESC LIMIT $3
    """,
)
EMAILS = Select(
    Email,
    """
    SELECT m.id, m.subject, m.status, m.created_at, m.recipient, c.name, m.sent_at,
           m.attempts, m.last_error, i.number, l.opened_at
    FROM customer_messages m
    LEFT JOIN contacts c ON c.id = m.contact
    LEFT JOIN invoice_links l ON l.message = m.id
    LEFT JOIN invoices i ON i.id = l.invoice
    WHERE m.workspace = $1 AND m."order" = $2
    ORDER BY m.id DESC LIMIT $3
    """,
)
INVOICES = Select(
    Invoice,
    """
    SELECT i.id, i.number, i.status, i.total_cents, i.currency, i.issued_at, i.paid_at,
           i.created_at
    FROM invoices i
    WHERE i.workspace = $1 AND i."order" = $2
    ORDER BY i.id DESC LIMIT $3
    """,
)
PAYMENTS = Select(
    Payment,
    """
    SELECT p.id, i.number, p.amount_cents, i.currency, p.method, p.reference, p.paid_at,
           p.created_at, p.actor_kind, u.name, t.name, p.voided_at, p.void_reason, v.name
    FROM payments p
    JOIN invoices i ON i.id = p.invoice
    LEFT JOIN users u ON u.id = p."user"
    LEFT JOIN api_tokens t ON t.id = p.token
    LEFT JOIN users v ON v.id = p.voided_by
    WHERE p.workspace = $1 AND i.workspace = $1 AND i."order" = $2
    ORDER BY p.id DESC LIMIT $3
    """,
)


class Timeline(msgspec.Struct, frozen=True):
    entries: list[Entry]  # newest first, at most `limit`
    more: bool  # older entries exist beyond those shown
    invoices: list[Invoice]  # oldest first (the page's invoices card)
    payments: list[Payment]  # oldest first (each under its invoice on that card)


def _move(row: Change) -> StageMove:
    return StageMove(
        id=row.id,
        from_stage=row.from_stage,
        to_stage=row.to_stage or "",
        actor_kind=row.actor_kind,
        user_name=row.user_name,
        token_name=row.token_name,
    )


def _approval(row: Change) -> Approval:
    return Approval(
        id=row.id,
        version=row.version or 0,
        approved_by=row.approved_by or "",
        note=row.note or "",
        created_at=row.at,
        actor_kind=row.actor_kind,
        user_name=row.user_name,
        token_name=row.token_name,
    )


def _edit(row: Change) -> Edit:
    """An edit's revision, changed fields in people's words, and who (a list not read as
    expected still makes an entry: the edit happened)."""
    try:
        changed = msgspec.json.decode(row.changed or "[]")
    except msgspec.DecodeError:
        changed = []
    names = [str(name) for name in changed] if isinstance(changed, list) else []
    return Edit(
        revision=row.revision or 0,
        changed=[CHANGED_LABELS.get(name, name.replace("_", " ")) for name in names],
        actor_kind=row.actor_kind,
        user_name=row.user_name,
        token_name=row.token_name,
    )


async def timeline(
    reader: Reader, workspace_id: int, order_id: int, limit: int = LIMIT
) -> Timeline:
    """The order's entries, newest first, at most `limit` (one statement per source)."""
    args = (workspace_id, order_id, limit)
    when = statements.when
    changes = await reader.all(CHANGES, *args)
    deliveries = await reader.all(DELIVERIES, *args)
    proofs = await reader.all(PROOFS, *args)
    emails = await reader.all(EMAILS, *args)
    invoices = await reader.all(INVOICES, *args)
    payments = await reader.all(PAYMENTS, *args)
    moves = [r for r in changes if r.kind == EntryKind.STAGE_MOVE]
    edits = [r for r in changes if r.kind == EntryKind.EDIT]
    approvals = [_approval(r) for r in changes if r.kind == EntryKind.APPROVAL]
    entries = [
        Entry(EntryKind.STAGE_MOVE, when(r.at), f"move-{r.id}", _move(r), r.id) for r in moves
    ]
    entries += [Entry(EntryKind.EDIT, when(r.at), f"edit-{r.id}", _edit(r), r.id) for r in edits]
    entries += [
        Entry(EntryKind.DELIVERY, when(r.created_at), f"delivery-{r.id}", r, r.id)
        for r in deliveries
    ]
    for p in proofs:
        sent = Entry(EntryKind.PROOF_SENT, when(p.created_at), f"proof-{p.version}", p, p.version)
        entries.append(sent)
        if p.answer is not None and p.answered_at is not None:
            answered = when(p.answered_at)
            entries.append(Entry(EntryKind.ANSWER, answered, f"answer-{p.version}", p, p.version))
    entries += [
        Entry(EntryKind.APPROVAL, when(r.created_at), f"approval-{r.id}", r, r.id)
        for r in approvals
    ]
    entries += [
        Entry(EntryKind.EMAIL, when(r.created_at), f"message-{r.id}", r, r.id) for r in emails
    ]
    entries += [
        Entry(EntryKind.INVOICE, when(r.issued_at or r.created_at), f"issued-{r.number}", r, r.id)
        for r in invoices
    ]
    entries += [
        Entry(EntryKind.PAYMENT, when(r.created_at), f"payment-{r.id}", r, r.id) for r in payments
    ]
    entries += [
        Entry(EntryKind.PAYMENT_VOID, when(r.voided_at), f"void-{r.id}", r, r.id)
        for r in payments
        if r.voided_at is not None
    ]
    entries.sort(key=lambda entry: entry.sort_key, reverse=True)
    sources = (moves, edits, deliveries, proofs, approvals, emails, invoices, payments)
    cut = len(entries) > limit or any(len(rows) == limit for rows in sources)
    return Timeline(
        entries=entries[:limit], more=cut, invoices=invoices[::-1], payments=payments[::-1]
    )
