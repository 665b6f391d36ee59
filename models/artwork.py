"""Artwork of an order: a proof starts a new version; approval emits `artwork.approved`.

A proof may carry its file (an upload in the admin or through the API): it is kept as that
version (models/proofs.py) and, unless held back, the customer's primary contact is emailed a
link to approve it or ask for changes (models/proof_answers.py), all in the proof's
transaction.

An approval is the customer's, through that link (`ApprovalSource.CUSTOMER`), or one given
elsewhere — at checkout, by phone, by email — and recorded by staff in the admin, an
integration through the API or an operator at a shell (`ApprovalSource.RECORDED`, kept in
`artwork_approvals` with who recorded it). Either way the artwork is approved and
`artwork.approved` is recorded in the same transaction, with the same body."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from models import clock, db, messages, proofs, statements
from models.actors import OPERATOR, Actor
from models.errors import (
    UNSTORABLE_LINE,
    UNSTORABLE_TEXT,
    ErrorCode,
    InvalidFields,
    NotFoundError,
    RuleRefused,
    normalise_newlines,
    storable,
)
from models.filters import MAX_ID
from models.mail import links
from models.orders import timeline
from models.stages import TERMINAL_STAGES
from models.statements import Select
from models.tables import Artwork, ArtworkApproval, Order
from models.webhooks import events as outbox
from models.webhooks.names import EventName

MAX_APPROVED_BY = 200
MAX_APPROVAL_NOTE = 2_000


class ApprovalSource(StrEnum):
    """How an approval was given."""

    CUSTOMER = "customer"  # on the proof page, through the emailed link
    RECORDED = "recorded"  # elsewhere, recorded by staff, an integration or an operator


@dataclass(frozen=True, slots=True)
class RecordedApproval:
    """An approval given elsewhere, as checked by `check_approval`."""

    approved_by: str
    note: str


def check_approval(approved_by: str, note: str = "") -> RecordedApproval:
    """The approver's name (one line, runs of spaces made one, not blank, at most 200
    characters) and the note (multi-line, at most 2,000), or InvalidFields keyed
    `approved_by` and `note`, worded as the API words its fields."""
    errors: dict[str, list[str]] = {}
    name = " ".join(approved_by.split()) if storable(approved_by) else approved_by
    if not storable(approved_by):
        errors["approved_by"] = [f"The approved_by field {UNSTORABLE_LINE}."]
    elif not name:
        errors["approved_by"] = ["The approved_by field must not be blank."]
    elif len(name) > MAX_APPROVED_BY:
        errors["approved_by"] = [
            f"The approved_by field must not be greater than {MAX_APPROVED_BY} characters."
        ]
    note = normalise_newlines(note).strip()
    if not storable(note, multiline=True):
        errors["note"] = [f"The note field {UNSTORABLE_TEXT}."]
    elif len(note) > MAX_APPROVAL_NOTE:
        errors["note"] = [
            f"The note field must not be greater than {MAX_APPROVAL_NOTE} characters."
        ]
    if errors:
        raise InvalidFields(errors)
    return RecordedApproval(approved_by=name, note=note)


async def _locked_order(workspace_id: int, order_id: int) -> dict[str, Any]:
    """The order's number and stage with its row locked (PostgreSQL) for this transaction."""
    if not 0 < order_id <= MAX_ID:
        raise NotFoundError("Order not found")
    query = Order.select(Order.id, Order.number, Order.stage, Order.customer).where(
        Order.workspace == workspace_id, Order.id == order_id
    )
    if db.is_postgres():
        query = query.lock_rows("NO KEY UPDATE")
    order = await query.first()
    if order is None:
        raise NotFoundError("Order not found")
    if order["stage"] in TERMINAL_STAGES:
        raise RuleRefused(
            f"Order {order['number']} is {order['stage']}; its artwork can no longer change.",
            code=ErrorCode.ARTWORK_LOCKED,
        )
    return order


async def _artwork(order_id: int) -> dict[str, Any]:
    row = (
        await Artwork.select(Artwork.id, Artwork.status, Artwork.version)
        .where(Artwork.order == order_id)
        .first()
    )
    # Every order gets its row at create; an order inserted some other way starts fresh.
    return row or {"id": None, "status": "awaiting_proof", "version": 0}


async def send_proof(
    *,
    workspace_id: int,
    order_id: int,
    file: proofs.ProofFile | None = None,
    user_id: int | None = None,
    notify: bool = True,
) -> int:
    """Send a new proof: version + 1, awaiting the customer's approval (again; an approval of
    an earlier version, recorded or the customer's, is cleared). With `file` (checked by
    proofs.check_file) it is stored and, unless `notify` is false, emailed to the primary
    contact with the link to the customer's page. Returns the new version."""
    now = clock.now()

    async def write() -> int:
        order = await _locked_order(workspace_id, order_id)
        artwork = await _artwork(order_id)
        version = artwork["version"] + 1
        if artwork["id"] is None:
            await Artwork(workspace=workspace_id, order=order["id"]).save()
        await Artwork.update(
            {
                Artwork.status: "awaiting_approval",
                Artwork.version: version,
                Artwork.approved_at: None,
                Artwork.approved_by: None,
                Artwork.approval_source: None,
                Artwork.approval_note: None,
                Artwork.updated_at: now,
            }
        ).where(Artwork.order == order_id)
        await Order.update({Order.updated_at: now}).where(Order.id == order_id)
        if file is not None:
            token = await proofs.store(
                workspace_id=workspace_id,
                order_id=order_id,
                version=version,
                file=file,
                user_id=user_id,
                now=now,
            )
            if notify:
                await messages.queue_proof_message(
                    workspace_id=workspace_id,
                    order_id=order_id,
                    customer_id=order["customer"],
                    number=order["number"],
                    version=version,
                    link=links.link(f"/proofs/{token}"),
                    note=file.note,
                    now=now,
                )
        await outbox.record_event(
            workspace_id=workspace_id,
            name=EventName.ARTWORK_PROOF_SENT,
            fields=outbox.artwork_fields(
                order_id=order_id, order_number=order["number"], artwork_version=version
            ),
            order_id=order_id,
            customer_id=order["customer"],
            occurred_at=now,
        )
        return int(version)

    return await db.atomic(write)


async def approve_artwork(
    *,
    workspace_id: int,
    order_id: int,
    approved_by: str = "operator",
    source: ApprovalSource = ApprovalSource.RECORDED,
    actor: Actor = OPERATOR,
) -> None:
    """Approve the current proof, which must be awaiting approval; records `artwork.approved`.
    `source` CUSTOMER: the customer on the proof page, `approved_by` the name they gave;
    RECORDED (`pressline artwork approve`): an approval of the proof recorded by `actor`."""
    now = clock.now()

    async def write() -> None:
        order = await _locked_order(workspace_id, order_id)
        artwork = await _artwork(order_id)
        if artwork["status"] != "awaiting_approval":
            raise RuleRefused(
                f"Order {order['number']} has no proof awaiting approval "
                f"(artwork is {artwork['status']}); send a proof first."
            )
        await _approve(
            workspace_id=workspace_id,
            order=order,
            artwork=artwork,
            approval=RecordedApproval(approved_by=approved_by, note=""),
            source=source,
            actor=actor,
            now=now,
        )

    return await db.atomic(write)


async def record_approval(
    *, workspace_id: int, order_id: int, approved_by: str, note: str = "", actor: Actor
) -> None:
    """Record an approval given elsewhere (at checkout, by phone, by email): `approved_by`
    names who gave it, `note` how (both checked by `check_approval`). Allowed before any proof
    (version 0), for the proof awaiting approval, and over the customer's request for changes
    (the current version is approved as it is); refused once approved. Records
    `artwork.approved` exactly as the customer's approval does. A proof sent afterwards starts
    a new version that needs approving again."""
    approval = check_approval(approved_by, note)
    now = clock.now()

    async def write() -> None:
        order = await _locked_order(workspace_id, order_id)
        artwork = await _artwork(order_id)
        if artwork["status"] == "approved":
            raise RuleRefused(
                f"The artwork of order {order['number']} is already approved (version "
                f"{artwork['version']}); send a new proof to have a new version approved.",
                code=ErrorCode.ARTWORK_LOCKED,
            )
        if artwork["id"] is None:
            await Artwork(workspace=workspace_id, order=order["id"]).save()
        await _approve(
            workspace_id=workspace_id,
            order=order,
            artwork=artwork,
            approval=approval,
            source=ApprovalSource.RECORDED,
            actor=actor,
            now=now,
        )

    return await db.atomic(write)


async def _approve(
    *,
    workspace_id: int,
    order: dict[str, Any],
    artwork: dict[str, Any],
    approval: RecordedApproval,
    source: ApprovalSource,
    actor: Actor,
    now: dt.datetime,
) -> None:
    """The approval's writes, in the caller's transaction with the order locked: the artwork
    approved, a recorded approval kept with who recorded it, and `artwork.approved`."""
    order_id = order["id"]
    await Artwork.update(
        {
            Artwork.status: "approved",
            Artwork.approved_at: now,
            Artwork.approved_by: approval.approved_by,
            Artwork.approval_source: source.value,
            Artwork.approval_note: approval.note or None,
            Artwork.updated_at: now,
        }
    ).where(Artwork.order == order_id)
    if source is ApprovalSource.RECORDED:
        await ArtworkApproval(
            workspace=workspace_id,
            order=order_id,
            version=artwork["version"],
            approved_by=approval.approved_by,
            note=approval.note,
            actor_kind=actor.kind.value,
            user=actor.user_id,
            token=actor.token_id,
            created_at=now,
        ).save()
    await Order.update({Order.updated_at: now}).where(Order.id == order_id)
    await outbox.record_event(
        workspace_id=workspace_id,
        name=EventName.ARTWORK_APPROVED,
        fields=outbox.artwork_fields(
            order_id=order_id, order_number=order["number"], artwork_version=artwork["version"]
        ),
        order_id=order_id,
        customer_id=order["customer"],
        occurred_at=now,
    )


async def request_changes(*, workspace_id: int, order_id: int, comment: str) -> None:
    """The customer asked for changes to the current proof: `changes_requested` until the
    next proof (the comment is kept with the proof, models/proof_answers.py); records
    `artwork.changes_requested` with the comment."""
    now = clock.now()

    async def write() -> None:
        order = await _locked_order(workspace_id, order_id)
        artwork = await _artwork(order_id)
        if artwork["status"] != "awaiting_approval":
            raise RuleRefused(
                f"Order {order['number']} has no proof awaiting approval "
                f"(artwork is {artwork['status']})."
            )
        await Artwork.update({Artwork.status: "changes_requested", Artwork.updated_at: now}).where(
            Artwork.order == order_id
        )
        await Order.update({Order.updated_at: now}).where(Order.id == order_id)
        await outbox.record_event(
            workspace_id=workspace_id,
            name=EventName.ARTWORK_CHANGES_REQUESTED,
            fields=outbox.artwork_fields(
                order_id=order_id,
                order_number=order["number"],
                artwork_version=artwork["version"],
                comment=comment,
            ),
            order_id=order_id,
            customer_id=order["customer"],
            occurred_at=now,
        )

    return await db.atomic(write)


# An order's recorded approvals, newest first: $1 workspace, $2 order, $3 LIMIT.
RECORDED = Select(
    timeline.Approval,
    """
    SELECT a.id, a.version, a.approved_by, a.note, a.created_at, a.actor_kind, u.name, t.name
    FROM artwork_approvals a
    LEFT JOIN users u ON u.id = a."user"
    LEFT JOIN api_tokens t ON t.id = a.token
    WHERE a.workspace = $1 AND a."order" = $2
    ORDER BY a.id DESC LIMIT $3
    """,
)


async def recorded_approvals(workspace_id: int, order_id: int) -> list[timeline.Approval]:
    """The order's recorded approvals, newest first (at most the timeline's LIMIT): the
    version, the approver's name, the note, when, and who recorded it."""
    async with statements.connection() as reader:
        return await reader.all(RECORDED, workspace_id, order_id, timeline.LIMIT)
