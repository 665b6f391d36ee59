"""Claiming due deliveries with a lease, so several workers never send one at the same time.

A claim is one short statement (no transaction is held across the HTTP call): it stamps
`lease_expires_at`/`leased_by` on up to `limit` due rows and, on PostgreSQL, returns in the
same round trip what sending needs (URL, secret, event name and body). A worker that dies
simply lets its leases run out, and the rows become due for everyone again. The statements
run in daemon/store.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# PostgreSQL: rows another worker is claiming right now are skipped rather than waited for.
PG_CLAIM = """
WITH due AS (
    SELECT d.id FROM webhook_deliveries d
    JOIN webhook_subscriptions s ON s.id = d.subscription
    WHERE d.status = 'pending' AND d.next_attempt_at <= $1
      AND (d.lease_expires_at IS NULL OR d.lease_expires_at < $1) AND s.is_active
    ORDER BY d.next_attempt_at
    LIMIT $2
    FOR UPDATE OF d SKIP LOCKED
), claimed AS (
    UPDATE webhook_deliveries d SET lease_expires_at = $3, leased_by = $4
    FROM due WHERE d.id = due.id
    RETURNING d.id, d.attempts, d.event, d.subscription, d.next_attempt_at
)
SELECT c.id, c.attempts, e.name, e.event_id, e.body, s.id AS subscription, s.url, s.secret
FROM claimed c
JOIN webhook_events e ON e.id = c.event
JOIN webhook_subscriptions s ON s.id = c.subscription
ORDER BY c.next_attempt_at, c.id
"""

PG_RELEASE = """
UPDATE webhook_deliveries d SET lease_expires_at = NULL, leased_by = NULL
FROM unnest($1::integer[], $2::timestamptz[]) AS r(id, lease)
WHERE d.id = r.id AND d.leased_by = $3 AND d.lease_expires_at = r.lease
"""

# SQLite (one daemon, inside BEGIN IMMEDIATE): the lease first, then the rows it took.
SQLITE_CLAIM = """
UPDATE webhook_deliveries SET lease_expires_at = ?, leased_by = ?
WHERE id IN (
    SELECT d.id FROM webhook_deliveries d
    JOIN webhook_subscriptions s ON s.id = d.subscription
    WHERE d.status = 'pending' AND d.next_attempt_at <= ?
      AND (d.lease_expires_at IS NULL OR d.lease_expires_at < ?) AND s.is_active = ?
    ORDER BY d.next_attempt_at
    LIMIT ?
)
RETURNING id
"""

SQLITE_DETAILS = """
SELECT d.id, d.attempts, e.name, e.event_id, e.body, s.id AS subscription, s.url, s.secret
FROM webhook_deliveries d
JOIN webhook_events e ON e.id = d.event
JOIN webhook_subscriptions s ON s.id = d.subscription
WHERE d.id IN ({ids}) AND d.leased_by = ? AND d.lease_expires_at = ?
ORDER BY d.next_attempt_at, d.id
"""

SQLITE_RELEASE = (
    "UPDATE webhook_deliveries SET lease_expires_at = NULL, leased_by = NULL "
    "WHERE id = ? AND leased_by = ? AND lease_expires_at = ?"
)


@dataclass(frozen=True, slots=True)
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


def lease_until(now: dt.datetime, lease: float) -> dt.datetime:
    return now + dt.timedelta(seconds=lease)


def claimed(rows: Iterable[Any], expires: dt.datetime) -> list[Claimed]:
    """Rows of the claim statements (oldest due first) as deliveries to send."""
    return [
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
        for row in rows
    ]
