"""Proofs: the files staff upload for an order's artwork, kept in the database, and the link
each one is emailed with (a token of models/link_tokens.py, valid 30 days, for that one
version). Answers through the link are models/proof_answers.py."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from models import db, link_tokens
from models.errors import UNSTORABLE_TEXT, InvalidFields, normalise_newlines, storable
from models.file_names import safe_file_name
from models.filters import MAX_ID
from models.tables import Artwork, ArtworkProof, Order, OrderLine

MAX_BYTES = 10 * 1024 * 1024
# The largest request body an upload may be (the admin's form, the API's): a proof may be
# 10 MiB and the form around it adds a little. A bigger body is refused before it is read
# (413); a smaller one whose file is over 10 MiB gets check_file's own message.
UPLOAD_BODY_BYTES = MAX_BYTES + 2 * 1024 * 1024
MAX_NOTE = 2_000
LINK_DAYS = 30
# What a proof may be, told by its first bytes (never by its name or the browser's word).
MAGIC = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
)
# The extensions that say what each kind of proof is; the first is the one a name is given.
EXTENSIONS = {
    "application/pdf": (".pdf",),
    "image/png": (".png",),
    "image/jpeg": (".jpg", ".jpeg", ".jpe"),
}


class LinkState(StrEnum):
    """What a customer's link can still do."""

    OPEN = "open"  # awaiting the customer's answer
    ANSWERED = "answered"  # this version was approved or changes were asked for
    SUPERSEDED = "superseded"  # a newer proof was sent
    EXPIRED = "expired"  # older than LINK_DAYS
    CLOSED = "closed"  # the order left the artwork stage (or was cancelled)


@dataclass(frozen=True, slots=True)
class ProofFile:
    """An upload that passed the checks."""

    file_name: str
    content_type: str
    data: bytes
    note: str


def sniff(data: bytes) -> str | None:
    """The content type `data` starts like, among PDF, PNG and JPEG; None for anything else."""
    for magic, content_type in MAGIC:
        if data.startswith(magic):
            return content_type
    return None


def stored_name(sent: str, content_type: str) -> str:
    """The name a proof is kept and served under: the uploads' rule (models/file_names.py),
    with the extension of what the file is added when the name says another (`x.html` holding
    a PDF). Applying it again changes nothing, so names stored before the rule are served
    through it too."""
    return safe_file_name(sent, blank="proof", extensions=EXTENSIONS.get(content_type, ()))


def check_file(file_name: str, data: bytes, note: str = "") -> ProofFile:
    """The upload as a ProofFile, or InvalidFields saying what is wrong with it."""
    errors: dict[str, list[str]] = {}
    if not data:
        errors["file"] = ["The file is empty: choose a PDF, PNG or JPEG file."]
    elif len(data) > MAX_BYTES:
        size = len(data) / (1024 * 1024)
        errors["file"] = [f"The file is {size:.1f} MiB; a proof may be at most 10 MiB."]
    content_type = sniff(data)
    if data and "file" not in errors and content_type is None:
        errors["file"] = [
            "This file is not a PDF, PNG or JPEG (whatever its name says); upload one of those."
        ]
    note = normalise_newlines(note).strip()
    if not storable(note, multiline=True):
        errors["note"] = [f"The note {UNSTORABLE_TEXT}."]
    elif len(note) > MAX_NOTE:
        errors["note"] = [f"The note may be at most {MAX_NOTE:,} characters."]
    if errors or content_type is None:
        raise InvalidFields(errors)
    name = stored_name(file_name, content_type)
    return ProofFile(file_name=name, content_type=content_type, data=data, note=note)


async def store(
    *,
    workspace_id: int,
    order_id: int,
    version: int,
    file: ProofFile,
    user_id: int | None,
    now: dt.datetime,
) -> str:
    """Keep the file as `version` of the order's artwork; returns the customer's link token
    (shown nowhere else: only its digest is stored)."""
    token = link_tokens.new_token()
    await ArtworkProof(
        workspace=workspace_id,
        order=order_id,
        version=version,
        file_name=file.file_name,
        content_type=file.content_type,
        size=len(file.data),
        sha256=hashlib.sha256(file.data).hexdigest(),
        data=file.data,
        note=file.note,
        created_by=user_id,
        created_at=now,
        token_digest=link_tokens.digest(token),
        token_expires_at=now + dt.timedelta(days=LINK_DAYS),
    ).save()
    return token


# --- reads ----------------------------------------------------------------------------------

SUMMARY = (
    ArtworkProof.id,
    ArtworkProof.version,
    ArtworkProof.file_name,
    ArtworkProof.content_type,
    ArtworkProof.size,
    ArtworkProof.sha256,
    ArtworkProof.note,
    ArtworkProof.created_at,
    ArtworkProof.created_by.name.as_alias("created_by_name"),
    ArtworkProof.answer,
    ArtworkProof.answered_at,
    ArtworkProof.answered_name,
    ArtworkProof.answered_from,
    ArtworkProof.customer_comment,
)


async def for_order(workspace_id: int, order_id: int) -> list[dict[str, Any]]:
    """Every proof of the order, newest version first (no file bytes), each named as its file
    is served."""
    rows: list[dict[str, Any]] = await (
        ArtworkProof.select(*SUMMARY)
        .where(ArtworkProof.workspace == workspace_id, ArtworkProof.order == order_id)
        .order_by(ArtworkProof.version, ascending=False)
    )
    for row in rows:
        row["file_name"] = stored_name(row["file_name"], row["content_type"])
    return rows


async def file_of(workspace_id: int, order_id: int, version: int) -> dict[str, Any] | None:
    """One version's file (name, content type, bytes) for staff; None for a version no proof
    can have (past the column's range too)."""
    if not 0 < version <= MAX_ID:
        return None
    row: dict[str, Any] | None = await (
        ArtworkProof.select(ArtworkProof.file_name, ArtworkProof.content_type, ArtworkProof.data)
        .where(
            ArtworkProof.workspace == workspace_id,
            ArtworkProof.order == order_id,
            ArtworkProof.version == version,
        )
        .first()
    )
    return row


@dataclass(frozen=True, slots=True)
class Link:
    """A customer's link: its proof, the order it belongs to, and what it can still do."""

    proof_id: int
    workspace_id: int
    order_id: int
    customer_id: int
    number: str
    external_ref: str | None
    shop: str
    version: int
    file_name: str
    content_type: str
    size: int
    note: str
    created_at: dt.datetime
    answer: str | None
    answered_at: dt.datetime | None
    answered_name: str | None
    customer_comment: str | None
    state: LinkState
    lines: list[dict[str, Any]]
    timezone: str  # the shop's: times on the page are shown in it
    approval_required: bool  # the shop's rule: nothing leaves artwork before an approval


def _state(row: dict[str, Any], now: dt.datetime) -> LinkState:
    if row["answer"] is not None:
        return LinkState.ANSWERED
    if row["current_version"] != row["version"]:
        return LinkState.SUPERSEDED
    if row["stage"] != "artwork":
        return LinkState.CLOSED
    if _aware(row["token_expires_at"]) <= now:
        return LinkState.EXPIRED
    if row["artwork_status"] != "awaiting_approval":
        return LinkState.ANSWERED
    return LinkState.OPEN


def _aware(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


async def find_link(token: str, now: dt.datetime, *, lock: bool = False) -> Link | None:
    """The link `token` opens, or None for an unknown (or altered) token."""
    if not link_tokens.plausible(token):
        return None
    query = ArtworkProof.select(
        ArtworkProof.id,
        ArtworkProof.workspace,
        ArtworkProof.order,
        ArtworkProof.version,
        ArtworkProof.file_name,
        ArtworkProof.content_type,
        ArtworkProof.size,
        ArtworkProof.note,
        ArtworkProof.created_at,
        ArtworkProof.token_expires_at,
        ArtworkProof.answer,
        ArtworkProof.answered_at,
        ArtworkProof.answered_name,
        ArtworkProof.customer_comment,
    ).where(ArtworkProof.token_digest == link_tokens.digest(token))
    row = await query.first()
    if row is None:
        return None
    order_query = Order.select(
        Order.number,
        Order.stage,
        Order.external_ref,
        Order.customer,
        Order.workspace.name.as_alias("shop"),
        Order.workspace.timezone.as_alias("timezone"),
        Order.workspace.require_artwork_approval.as_alias("approval_required"),
    ).where(Order.id == row["order"])
    if lock and db.is_postgres():  # an answer re-reads the link with the order locked
        order_query = order_query.lock_rows("NO KEY UPDATE", of=(Order,))
    order = await order_query.first()
    if order is None:
        return None
    artwork = await (
        Artwork.select(Artwork.status, Artwork.version).where(Artwork.order == row["order"]).first()
    )
    lines = await (
        OrderLine.select(OrderLine.description, OrderLine.quantity)
        .where(OrderLine.order == row["order"])
        .order_by(OrderLine.position)
    )
    facts = {
        **row,
        "stage": order["stage"],
        "current_version": artwork["version"] if artwork else 0,
        "artwork_status": artwork["status"] if artwork else "awaiting_proof",
    }
    return Link(
        proof_id=row["id"],
        workspace_id=row["workspace"],
        order_id=row["order"],
        customer_id=order["customer"],
        number=order["number"],
        external_ref=order["external_ref"],
        shop=order["shop"],
        version=row["version"],
        file_name=stored_name(row["file_name"], row["content_type"]),
        content_type=row["content_type"],
        size=row["size"],
        note=row["note"],
        created_at=row["created_at"],
        answer=row["answer"],
        answered_at=row["answered_at"],
        answered_name=row["answered_name"],
        customer_comment=row["customer_comment"],
        state=_state(facts, now),
        lines=lines,
        timezone=order["timezone"],
        approval_required=bool(order["approval_required"]),
    )


async def link_file(token: str, now: dt.datetime) -> dict[str, Any] | None:
    """The file of the link's proof (for the customer's page) while the link is valid: an
    answered or superseded proof stays viewable, an expired link shows nothing."""
    if not link_tokens.plausible(token):
        return None
    row: dict[str, Any] | None = await (
        ArtworkProof.select(ArtworkProof.file_name, ArtworkProof.content_type, ArtworkProof.data)
        .where(
            ArtworkProof.token_digest == link_tokens.digest(token),
            ArtworkProof.token_expires_at > now,
        )
        .first()
    )
    return row
