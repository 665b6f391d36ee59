"""Idempotency keys (docs/api.md §4.6): claim a key, then keep the first successful response 24 h.

A key is claimed by inserting a `running` row in its own short transaction; the unique index
on (user, key) makes exactly one of several simultaneous requests the owner, on any number of
web processes. The owner marks the row `completed` inside the same transaction as its change,
so the stored response exists exactly when the change committed. A request that fails
deletes its row: nothing was created, and the key can be retried.

A claim is a lease: it lasts IDEMPOTENCY_LEASE seconds (60 by default) from
the moment it was taken. A process that dies while it holds one cannot delete its row, and
its transaction rolled back with it; once the lease has ended, another request with the key
takes the row over and runs afresh. Until then a retry gets 409 with `Retry-After: 1` (a
running request has usually finished by then; a dead one's key keeps answering 409 until
its lease ends). Should the first request still be running when its lease is taken over, its
`complete` finds the row no longer its own and rolls its change back, so one key never makes
two changes.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from models import clock, statements
from models.errors import ConflictError, ErrorCode, InvalidFields
from models.settings import get_settings
from models.tables import IdempotencyKey

TTL = dt.timedelta(hours=24)
KEY_FIELD = "Idempotency-Key"
BUSY_MESSAGE = "A request with this Idempotency-Key is still being processed; retry in 1 second."


class KeyBusy(ConflictError):
    """Another request holds the key's lease: retry in `retry_after` seconds (→ 409 with
    Retry-After). Always 1, not the seconds until the lease ends: the lease only bounds how
    long a dead process holds the key, and a running request is usually done within a second,
    so a client told to wait for the lease would wait up to a minute for nothing."""

    retry_after = 1


def lease() -> dt.timedelta:
    """How long a claim lasts before another request may take the key over."""
    return dt.timedelta(seconds=get_settings().idempotency_lease)


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
                },
                code=ErrorCode.IDEMPOTENCY_MISMATCH,
            )
        lease_ends = existing["created_at"] + lease()
        abandoned = existing["status"] == "running" and lease_ends <= now
        if expired or abandoned:
            claimed = await _take_over(existing, request_hash, now)
            if claimed is not None:
                return claimed
            continue
        if existing["status"] == "running":
            raise KeyBusy(BUSY_MESSAGE)
        return StoredResponse(
            status=existing["response_status"],
            body=existing["response_body"],
            location=existing["response_location"],
        )
    raise KeyBusy("This Idempotency-Key is busy; retry in 1 second.")


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
        raise KeyBusy(
            "This request ran past its Idempotency-Key's lease and another request took the key "
            "over; retry in 1 second for that request's result."
        )


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
