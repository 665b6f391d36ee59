"""Idempotency keys (docs/api.md §4.6): claim a key, then keep the first successful response 24 h.

A key is claimed by inserting a `running` row in its own short transaction; the unique index
on (user, key) makes exactly one of several simultaneous requests the owner, on any number of
web processes. The owner marks the row `completed` inside the same transaction as its change,
so the stored response exists exactly when the change committed. A request that fails
deletes its row: nothing was created, and the key can be retried.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from models import clock, statements
from models.errors import ConflictError, InvalidFields
from models.tables import IdempotencyKey

TTL = dt.timedelta(hours=24)
# A `running` row older than this belongs to a request that died (its transaction rolled
# back with it), so a retry may take the key over.
ABANDONED_AFTER = dt.timedelta(minutes=10)
KEY_FIELD = "Idempotency-Key"


@dataclass(frozen=True)
class StoredResponse:
    status: int
    body: str
    location: str | None


@dataclass(frozen=True)
class Claim:
    """Ownership of a `running` row: its id and the instant it was claimed (a row taken over
    gets a new instant, so the previous owner can tell it no longer owns it)."""

    row_id: int
    claimed_at: dt.datetime


def _owned(claim: Claim) -> Any:
    return (
        (IdempotencyKey.id == claim.row_id)
        & (IdempotencyKey.created_at == claim.claimed_at)
        & (IdempotencyKey.status == "running")
    )


async def _insert(user_id: int, key: str, request_hash: str, now: dt.datetime) -> Claim | None:
    """One INSERT, committed on its own (autocommit): the claim is visible at once to every
    other request with the key."""
    rows = await (
        IdempotencyKey.insert(
            IdempotencyKey(
                user=user_id,
                key=key,
                request_hash=request_hash,
                status="running",
                created_at=now,
                expires_at=now + TTL,
            )
        )
        .on_conflict(target=(IdempotencyKey.user, IdempotencyKey.key), action="DO NOTHING")
        .returning(IdempotencyKey.id)
    )
    return Claim(int(rows[0]["id"]), now) if rows else None


async def _take_over(existing: dict[str, Any], request_hash: str, now: dt.datetime) -> Claim | None:
    """Restart an expired or abandoned row as ours, unless someone else changed it first."""
    rows = await (
        IdempotencyKey.update(
            {
                IdempotencyKey.status: "running",
                IdempotencyKey.request_hash: request_hash,
                IdempotencyKey.response_status: None,
                IdempotencyKey.response_body: None,
                IdempotencyKey.response_location: None,
                IdempotencyKey.created_at: now,
                IdempotencyKey.expires_at: now + TTL,
            }
        )
        .where(
            IdempotencyKey.id == existing["id"],
            IdempotencyKey.created_at == existing["created_at"],
            IdempotencyKey.status == existing["status"],
        )
        .returning(IdempotencyKey.id)
    )
    return Claim(existing["id"], now) if rows else None


async def claim(user_id: int, key: str, request_hash: str) -> Claim | StoredResponse:
    """Our claim on the key, or the stored response to replay.

    Raises ConflictError while the first request is still running, and InvalidFields when
    the key was used for a different request.
    """
    for _ in range(3):
        now = clock.now()
        claimed = await _insert(user_id, key, request_hash, now)
        if claimed is not None:
            return claimed
        existing = await (
            IdempotencyKey.select()
            .where(IdempotencyKey.user == user_id, IdempotencyKey.key == key)
            .first()
        )
        if existing is None:
            continue  # removed since our insert; try again
        expired = existing["expires_at"] <= now
        if not expired and existing["request_hash"] != request_hash:
            raise InvalidFields(
                {
                    KEY_FIELD: [
                        "This Idempotency-Key was already used for a different request; "
                        "use a new key for a new request."
                    ]
                }
            )
        abandoned = existing["status"] == "running" and existing["created_at"] <= now - (
            ABANDONED_AFTER
        )
        if expired or abandoned:
            claimed = await _take_over(existing, request_hash, now)
            if claimed is not None:
                return claimed
            continue
        if existing["status"] == "running":
            raise ConflictError(
                "A request with this Idempotency-Key is still being processed; retry shortly."
            )
        return StoredResponse(
            status=existing["response_status"],
            body=existing["response_body"],
            location=existing["response_location"],
        )
    raise ConflictError("This Idempotency-Key is busy; retry shortly.")


_COMPLETE = statements.Sql(
    """
    UPDATE idempotency_keys
    SET status = 'completed', response_status = $3, response_body = $4, response_location = $5
    WHERE id = $1 AND created_at = $2 AND status = 'running'
    RETURNING id
    """
)


async def complete(claim: Claim, *, status: int, body: str, location: str | None) -> None:
    """Store the response; call inside the transaction that made the change (it runs on that
    transaction's connection).

    If the row is no longer ours (taken over after being presumed abandoned), the change
    must not commit: raising here rolls it back.
    """
    async with statements.connection() as conn:
        updated = await conn.row(_COMPLETE, claim.row_id, claim.claimed_at, status, body, location)
    if updated is None:
        raise ConflictError("This Idempotency-Key was taken over by another request.")


async def release(claim: Claim) -> None:
    """Forget a claim whose request failed, so a retry with the key runs afresh."""
    await IdempotencyKey.delete().where(_owned(claim))


async def purge_expired(now: dt.datetime | None = None) -> int:
    """Delete keys past their 24 h; returns how many went (for a periodic job)."""
    rows = await (
        IdempotencyKey.delete()
        .where(IdempotencyKey.expires_at <= (now or clock.now()))
        .returning(IdempotencyKey.id)
    )
    return len(rows)
