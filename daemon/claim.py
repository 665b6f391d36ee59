"""Claiming due deliveries with a lease, so several workers never send one at the same time.

A claim is one short statement (no transaction is held across the HTTP call): it stamps
`lease_expires_at`/`leased_by` on up to `limit` due rows. A worker that dies simply lets its
leases run out, and the rows become due for everyone again.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from models import db
from models.tables import WebhookDelivery

_DUE = (
    "SELECT d.id FROM webhook_deliveries d "
    "JOIN webhook_subscriptions s ON s.id = d.subscription "
    "WHERE d.status = 'pending' AND d.next_attempt_at <= {} "
    "AND (d.lease_expires_at IS NULL OR d.lease_expires_at < {}) AND s.is_active = {} "
    "ORDER BY d.next_attempt_at LIMIT {}"
)
# PostgreSQL: rows another worker is claiming right now are skipped rather than waited for.
_SKIP_LOCKED = " FOR UPDATE OF d SKIP LOCKED"
_CLAIM = (
    "UPDATE webhook_deliveries SET lease_expires_at = {}, leased_by = {} "
    "WHERE id IN (%s) RETURNING id"
)
_DETAILS = (
    "SELECT d.id, d.attempts, e.name, e.event_id, e.body, s.id AS subscription, s.url, s.secret "
    "FROM webhook_deliveries d "
    "JOIN webhook_events e ON e.id = d.event "
    "JOIN webhook_subscriptions s ON s.id = d.subscription "
    "WHERE d.id IN (%s) AND d.leased_by = {} AND d.lease_expires_at = {}"
)


@dataclass(frozen=True)
class Claimed:
    """One delivery this worker holds until `lease_expires_at`, with what it needs to send."""

    id: int
    attempt: int  # the number of the attempt about to be made (1-based)
    lease_expires_at: dt.datetime
    subscription_id: int
    url: str
    secret: str
    event: str
    event_id: str
    body: bytes


async def claim(*, worker: str, limit: int, now: dt.datetime, lease: float) -> list[Claimed]:
    """Lease up to `limit` due deliveries of active subscriptions, oldest due first."""
    if limit <= 0:
        return []
    expires = now + dt.timedelta(seconds=lease)
    due = _DUE + (_SKIP_LOCKED if db.is_postgres() else "")
    async with db.transaction():  # BEGIN IMMEDIATE on SQLite: one claimer at a time
        rows = await WebhookDelivery.raw(_CLAIM % due, expires, worker, now, now, True, limit)
    if not rows:
        return []
    ids = [row["id"] for row in rows]
    placeholders = ", ".join("{}" for _ in ids)
    details = await WebhookDelivery.raw(_DETAILS % placeholders, *ids, worker, expires)
    claimed = [
        Claimed(
            id=row["id"],
            attempt=row["attempts"] + 1,
            lease_expires_at=expires,
            subscription_id=row["subscription"],
            url=row["url"],
            secret=row["secret"],
            event=row["name"],
            event_id=row["event_id"],
            body=str(row["body"]).encode("utf-8"),
        )
        for row in details
    ]
    return sorted(claimed, key=lambda item: ids.index(item.id))


async def release(items: list[Claimed], worker: str) -> None:
    """Give back claims that were not attempted (shutdown), so any worker can send them now."""
    for item in items:
        await WebhookDelivery.raw(
            "UPDATE webhook_deliveries SET lease_expires_at = NULL, leased_by = NULL "
            "WHERE id = {} AND leased_by = {} AND lease_expires_at = {}",
            item.id,
            worker,
            item.lease_expires_at,
        )
