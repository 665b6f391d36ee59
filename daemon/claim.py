"""Claiming due deliveries with a lease, so several workers never send one at the same time.

A claim is one short transaction (none is held across the HTTP call): it stamps
`lease_expires_at`/`leased_by` on up to `limit` due rows, then reads what sending needs
(URL, secret, event name and body). A worker that dies simply lets its leases run out, and
the rows become due for everyone again. The statements run in daemon/store.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from models.statements import Sql

# Each statement is written once, in PostgreSQL's dialect (models/statements.py derives the SQLite
# text; row locks are PostgreSQL's only, since SQLite's write transaction locks the whole
# database). Rows another worker is claiming right now are skipped rather than waited for.
CLAIM = Sql(
    """
    UPDATE webhook_deliveries SET lease_expires_at = $3, leased_by = $4
    WHERE id IN (
        SELECT d.id FROM webhook_deliveries d
        JOIN webhook_subscriptions s ON s.id = d.subscription
        WHERE d.status = 'pending' AND d.next_attempt_at <= $1
          AND (d.lease_expires_at IS NULL OR d.lease_expires_at < $1) AND s.is_active
        ORDER BY d.next_attempt_at
        LIMIT $2
        FOR UPDATE OF d SKIP LOCKED
    )
    RETURNING id
    """
)

# What sending needs, for the rows the claim just took (a second round trip: a claim takes a
# batch, so it costs nothing measurable — docs/benchmarks.md, Webhooks).
CLAIMED = Sql(
    """
    SELECT d.id, d.attempts, e.name, e.event_id, e.body, s.id AS subscription, s.url, s.secret
    FROM webhook_deliveries d
    JOIN webhook_events e ON e.id = d.event
    JOIN webhook_subscriptions s ON s.id = d.subscription
    WHERE d.id = ANY($1) AND d.leased_by = $2 AND d.lease_expires_at = $3
    ORDER BY d.next_attempt_at, d.id
    """
)

# One row given back (shutdown: a cold path, run once per row).
RELEASE = Sql(
    """
    UPDATE webhook_deliveries SET lease_expires_at = NULL, leased_by = NULL
    WHERE id = $1 AND leased_by = $2 AND lease_expires_at = $3
    """
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
    """Rows of CLAIMED (oldest due first) as deliveries to send."""
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
