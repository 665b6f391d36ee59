"""The customer's answer to a proof through its emailed link: approve (the same function as
`pressline artwork approve`, so `artwork.approved` is delivered) or ask for changes.

An answer re-reads its link inside the transaction with the order locked, so a link that was
superseded, answered (twice in a row, or from two tabs), expired or whose order left artwork
changes nothing; the caller shows the link's state instead."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from piccolo.columns import Column

from models import artwork, clock, db
from models.errors import InvalidFields, normalise_newlines, storable
from models.proofs import Link, LinkState, find_link
from models.tables import ArtworkProof

MAX_COMMENT = 2_000
MAX_NAME = 200


class UnknownLink(LookupError):
    """No proof has this token (never sent, or altered): the page answers 404."""


def _name(name: str) -> str:
    """The name as given, one line (a line break or other control character is
    refused, not folded in), its runs of spaces and tabs made one space."""
    if not storable(name):
        raise InvalidFields(
            {"name": ["Your name must be one line of text, without control characters."]}
        )
    name = " ".join(name.split())
    if len(name) > MAX_NAME:
        raise InvalidFields({"name": [f"Your name may be at most {MAX_NAME} characters."]})
    return name


async def approve(token: str, *, name: str, address: str) -> tuple[bool, Link]:
    """Approve the link's proof; (whether it was recorded now, the link as it now stands)."""
    name = _name(name)

    async def approved(link: Link) -> None:
        await artwork.approve_artwork(
            workspace_id=link.workspace_id,
            order_id=link.order_id,
            approved_by=name or "the customer (no name given)",
            source=artwork.ApprovalSource.CUSTOMER,
        )

    return await _answer(token, approved, "approved", name, address)


async def request_changes(
    token: str, *, comment: str, name: str, address: str
) -> tuple[bool, Link]:
    """Ask for changes with `comment` (required, at most 2,000 characters)."""
    comment = normalise_newlines(comment).strip()
    errors: dict[str, list[str]] = {}
    if not storable(comment, multiline=True):
        errors["comment"] = [
            "Please write your comment as plain text: it has control characters that are not "
            "tabs or line breaks."
        ]
    elif not comment:
        errors["comment"] = ["Please tell us what to change."]
    elif len(comment) > MAX_COMMENT:
        errors["comment"] = [
            f"Please keep it to {MAX_COMMENT:,} characters (this is {len(comment):,})."
        ]
    try:
        name = _name(name)
    except InvalidFields as invalid:
        errors.update(invalid.errors)
    if errors:
        raise InvalidFields(errors)

    async def changes(link: Link) -> None:
        await artwork.request_changes(
            workspace_id=link.workspace_id, order_id=link.order_id, comment=comment
        )

    return await _answer(token, changes, "changes_requested", name, address, comment=comment)


async def _answer(
    token: str,
    change: Callable[[Link], Awaitable[None]],
    answer: str,
    name: str,
    address: str,
    *,
    comment: str | None = None,
) -> tuple[bool, Link]:
    """Record `answer` on the link's proof after `change` to the artwork, in one transaction
    with the order locked; (whether it was recorded now, the link as it now stands)."""
    now = clock.now()

    async def write() -> tuple[bool, Link]:
        link = await find_link(token, now, lock=True)
        if link is None:
            raise UnknownLink(token)
        if link.state is not LinkState.OPEN:
            return False, link
        await change(link)
        fields: dict[Column | str, Any] = {
            ArtworkProof.answer: answer,
            ArtworkProof.answered_at: now,
            ArtworkProof.answered_name: name or None,
            ArtworkProof.answered_from: address[:100],
        }
        if comment is not None:
            fields[ArtworkProof.customer_comment] = comment
        await ArtworkProof.update(fields).where(ArtworkProof.id == link.proof_id)
        changed = await find_link(token, now)
        if changed is None:  # not expected: read in the transaction that just wrote it
            raise UnknownLink(token)
        return True, changed

    return await db.atomic(write)
