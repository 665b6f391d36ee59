"""Claiming due deliveries fairly, with a lease, so several workers never send one at once.

A claim is one short transaction (none is held across the HTTP call) and a claimed delivery
is sent at once: claiming *is* starting the attempt. In that transaction:
1. the active subscriptions with due deliveries and room are locked (others' claims skip
   them): room is the smaller of `WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION - in_flight` (the
   fairness cap) and `WEBHOOK_DEACTIVATE_AFTER - consecutive_failures - in_flight` (every
   attempt in flight may fail, so never more start than could reach the limit). An attempt
   holds its slot until its result is written, so a worker killed at any moment has cut off
   at most the cap's attempts of each subscription;
2. each one's oldest due deliveries, up to its room, are ranked (first of every subscription
   before the second of any) and leased up to the worker's own room;
3. `in_flight` grows by what each subscription got — so an inactive subscription, or one
   whose attempts in flight could already deactivate it, gets no attempt started, whatever
   any worker holds.
Then what sending needs (URL, secrets, event name and body) is read. On PostgreSQL all of it
is one statement (PG_CLAIM), driven by the work due now: it walks the active subscriptions by
`next_due_at` (migration 2026-11-26T23:00) and stops at the first not yet due, so
subscriptions backing off cost a claim nothing; before it, FOLD_DUE applies the due marks that
queued deliveries left (migration 2026-11-29T07:00). SQLite (one worker per database) runs the
steps in one `BEGIN IMMEDIATE` transaction over every active subscription. The statements
run in daemon/store.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from models.statements import Sql

# Each statement is written once, in PostgreSQL's dialect (models/statements.py derives the
# SQLite text; row locks are PostgreSQL's only, since SQLite's write transaction locks the
# whole database). Subscriptions another worker is claiming for right now are skipped.
# $1 now, $2 the deactivation limit (the cap is applied by `rooms`).
CANDIDATES = Sql(
    """
    SELECT s.id, s.in_flight, s.consecutive_failures FROM webhook_subscriptions s
    WHERE s.is_active AND s.consecutive_failures + s.in_flight < $2
      AND EXISTS (
        SELECT 1 FROM webhook_deliveries d
        WHERE d.subscription = s.id AND d.status = 'pending' AND d.next_attempt_at <= $1
          AND d.leased_by IS NULL
      )
    ORDER BY s.in_flight, s.id
    FOR NO KEY UPDATE OF s SKIP LOCKED
    """
)

# SQLite (no LATERAL, no round trips to save): one subscription at a time.
DUE = Sql(
    """
    SELECT id FROM webhook_deliveries
    WHERE subscription = $1 AND status = 'pending' AND next_attempt_at <= $2
      AND leased_by IS NULL
    ORDER BY next_attempt_at, id
    LIMIT $3
    """
)

TAKE = Sql(
    """
    UPDATE webhook_deliveries SET lease_expires_at = $3, leased_by = $2
    WHERE id = ANY($1) AND status = 'pending' AND leased_by IS NULL
    RETURNING id, subscription
    """
)

STARTED = Sql("UPDATE webhook_subscriptions SET in_flight = in_flight + $2 WHERE id = $1")

# PostgreSQL, before each claim: the due marks recorded since the last one (a delivery queued,
# retried, released or requeued appends one by trigger: migration 2026-11-29T07:00) lower their
# subscriptions' `next_due_at`. It waits for no one: marks another worker is folding and
# subscriptions another statement holds are skipped (their marks stay for a later fold); the
# subscriptions are locked in id order, as every statement of the worker locks them.
FOLD_DUE = """
WITH marks AS MATERIALIZED (
    SELECT id, subscription, due_at FROM webhook_due_marks
    ORDER BY id LIMIT 10000
    FOR UPDATE SKIP LOCKED
), locked AS MATERIALIZED (
    SELECT s.id FROM webhook_subscriptions s
    WHERE s.id IN (SELECT subscription FROM marks)
    ORDER BY s.id
    FOR NO KEY UPDATE OF s SKIP LOCKED
), folded AS (
    DELETE FROM webhook_due_marks m USING marks, locked
    WHERE m.id = marks.id AND marks.subscription = locked.id
    RETURNING marks.subscription, marks.due_at
), due AS (
    SELECT subscription, min(due_at) AS due_at FROM folded GROUP BY subscription
)
UPDATE webhook_subscriptions s SET next_due_at = due.due_at
FROM due
WHERE s.id = due.subscription AND (s.next_due_at IS NULL OR s.next_due_at > due.due_at)
"""

# PostgreSQL: the whole claim in one statement (one round trip, atomic on its own): the same
# steps as CANDIDATES, DUE, TAKE, STARTED and CLAIMED, driven by the work due now.
# - `walk`: the active subscriptions whose `next_due_at` has come, one index step at a time
#   (subscriptions_due, in `next_due_at` order; a step is `ORDER BY … LIMIT 1` on the index's
#   own columns, a plan no statistics turn into a scan of the table), until $4 of them have
#   room (one at its cap is passed uncounted). A subscription backing off is not reached; one
#   whose value is stale (its due rows are leased) is, and the claim sets it right.
# - `locked`: those subscriptions, locked (FOR NO KEY UPDATE: the key-share locks a web
#   transaction takes by inserting deliveries never conflict with it); `subs`: their room.
# - `counted`: in_flight grows by what was taken, and `next_due_at` becomes the earliest
#   pending, unleased delivery left (webhook_next_due: a snapshot taken after the lock, so a
#   delivery committed meanwhile is seen; one committed later left a due mark, which the next
#   FOLD_DUE applies).
# $1 now, $2 the per-subscription cap, $3 the deactivation limit, $4 the worker's room,
# $5 lease end, $6 worker.
PG_CLAIM = """
WITH RECURSIVE walk(id, next_due_at, n) AS (
    (SELECT s.id, s.next_due_at,
        (s.in_flight < $2 AND s.consecutive_failures + s.in_flight < $3)::int
    FROM webhook_subscriptions s
    WHERE s.is_active AND s.next_due_at IS NOT NULL AND s.next_due_at <= $1
    ORDER BY s.next_due_at, s.id LIMIT 1)
    UNION ALL
    SELECT x.id, x.next_due_at,
        w.n + (x.in_flight < $2 AND x.consecutive_failures + x.in_flight < $3)::int
    FROM walk w CROSS JOIN LATERAL (
        SELECT s.id, s.next_due_at, s.consecutive_failures, s.in_flight
        FROM webhook_subscriptions s
        WHERE s.is_active AND s.next_due_at IS NOT NULL AND s.next_due_at <= $1
          AND (s.next_due_at, s.id) > (w.next_due_at, w.id)
        ORDER BY s.next_due_at, s.id LIMIT 1
    ) x
    WHERE w.n < $4
), locked AS MATERIALIZED (
    SELECT s.id, s.in_flight, s.consecutive_failures
    FROM webhook_subscriptions s
    -- The walk has done the choosing: `s` is found by its primary key, and the rest is checked
    -- again on the row's latest version (it is locked).
    WHERE s.id = ANY(ARRAY(SELECT id FROM walk))
      AND s.is_active AND COALESCE(s.next_due_at, 'infinity') <= $1
      AND s.in_flight < $2 AND s.consecutive_failures + s.in_flight < $3
    ORDER BY s.next_due_at, s.id
    LIMIT $4
    FOR NO KEY UPDATE OF s SKIP LOCKED
), subs AS MATERIALIZED (
    SELECT l.id, l.in_flight,
        LEAST($2 - l.in_flight, $3 - l.consecutive_failures - l.in_flight) AS room
    FROM locked l
), due AS (
    SELECT x.id, x.rank, subs.in_flight, subs.id AS subscription
    FROM subs CROSS JOIN LATERAL (
        SELECT d.id, row_number() OVER (ORDER BY d.next_attempt_at, d.id) AS rank
        FROM webhook_deliveries d
        WHERE d.subscription = subs.id AND d.status = 'pending' AND d.next_attempt_at <= $1
          AND d.leased_by IS NULL
        ORDER BY d.next_attempt_at, d.id
        LIMIT subs.room
    ) x
), picked AS (
    SELECT id FROM due ORDER BY rank, in_flight, subscription LIMIT $4
), taken AS (
    UPDATE webhook_deliveries d SET lease_expires_at = $5, leased_by = $6
    FROM picked
    -- Checked again on the row's latest version: the statement's snapshot predates the
    -- subscription locks, so another claim may have leased it meanwhile.
    WHERE d.id = picked.id AND d.status = 'pending' AND d.leased_by IS NULL
    RETURNING d.id, d.public_id, d.workspace, d.subscription, d.attempts, d.event,
        d.next_attempt_at
), counted AS (
    UPDATE webhook_subscriptions s SET in_flight = s.in_flight + COALESCE(c.n, 0),
        -- A subscription given all its room may have more due: its value stays (it is due).
        next_due_at = CASE WHEN c.n = subs.room THEN s.next_due_at
            ELSE webhook_next_due(s.id, COALESCE(c.ids, '{}')) END
    FROM subs LEFT JOIN (
        SELECT subscription, COUNT(*) AS n, array_agg(id) AS ids FROM taken GROUP BY subscription
    ) c ON c.subscription = subs.id
    WHERE s.id = subs.id
)
SELECT t.id, t.public_id, t.workspace, t.attempts, e.name, e.event_id, e.body,
    s.id AS subscription, s.url, s.secret,
    CASE WHEN s.previous_secret_expires_at > $1 THEN s.previous_secret END AS previous_secret
FROM taken t
JOIN webhook_events e ON e.id = t.event
JOIN webhook_subscriptions s ON s.id = t.subscription
ORDER BY t.next_attempt_at, t.id
"""

# What sending needs, for the rows the claim just took. The previous secret signs too while
# its overlap lasts.
CLAIMED = Sql(
    """
    SELECT d.id, d.public_id, d.workspace, d.attempts, e.name, e.event_id, e.body,
        s.id AS subscription, s.url, s.secret,
        CASE WHEN s.previous_secret_expires_at > $4 THEN s.previous_secret END AS previous_secret
    FROM webhook_deliveries d
    JOIN webhook_events e ON e.id = d.event
    JOIN webhook_subscriptions s ON s.id = d.subscription
    WHERE d.id = ANY($1) AND d.leased_by = $2 AND d.lease_expires_at = $3
    ORDER BY d.next_attempt_at, d.id
    """
)

# One row given back (shutdown: a cold path, run once per row), and its subscription's count.
RELEASE = Sql(
    """
    UPDATE webhook_deliveries SET lease_expires_at = NULL, leased_by = NULL
    WHERE id = $1 AND leased_by = $2 AND lease_expires_at = $3
    RETURNING subscription
    """
)
RELEASED = Sql(
    """
    UPDATE webhook_subscriptions
    SET in_flight = CASE WHEN in_flight > $2 THEN in_flight - $2 ELSE 0 END
    WHERE id = $1
    """
)

# Attempts cut off by a crash: pending deliveries whose lease ran out. They are recorded as
# failed attempts by the worker that held them (daemon/record.py), oldest first. A leased row
# was due when it was claimed, so a lease that ran out before $1 belongs to a row due before
# $1 minus the lease ($3): only those are looked at (deliveries_pending_due), and no index
# covers the lease columns, which keeps a claim's update in place (migration 2026-11-25T17:00).
EXPIRED = Sql(
    """
    SELECT d.id, d.public_id, d.workspace, d.attempts, d.subscription, d.leased_by,
        d.lease_expires_at, e.name, e.event_id
    FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event
    WHERE d.status = 'pending' AND d.next_attempt_at < $3 AND d.leased_by IS NOT NULL
      AND d.lease_expires_at < $1
    ORDER BY d.lease_expires_at, d.id
    LIMIT $2
    """
)


@dataclass(frozen=True, slots=True)
class Claimed:
    """One delivery this worker holds until `lease_expires_at`, with what it needs to send.
    `webhook_id` is the delivery's public id (`webhook-id`), `workspace_id` its workspace's."""

    id: int
    webhook_id: str
    workspace_id: int
    attempt: int  # the number of the attempt about to be made (1-based)
    lease_expires_at: dt.datetime
    subscription_id: int
    url: str
    secret: str
    event: str
    event_id: str
    body: bytes
    previous_secret: str | None = None
    worker: str | None = None  # set for an expired lease: the worker that held it


@dataclass(frozen=True, slots=True)
class Limits:
    """What a claim may take: the worker's room and the per-subscription rules."""

    room: int
    per_subscription: int
    deactivate_after: int


def lease_until(now: dt.datetime, lease: float) -> dt.datetime:
    return now + dt.timedelta(seconds=lease)


def claimed_before(now: dt.datetime, lease: float) -> dt.datetime:
    """Rows whose lease ran out by `now` were due before this (EXPIRED's $3)."""
    return now - dt.timedelta(seconds=lease)


def rooms(rows: Iterable[Any], limits: Limits) -> list[tuple[int, int]]:
    """(subscription, room) for each row of CANDIDATES, in its order."""
    result = []
    for row in rows:
        in_flight, failures = row["in_flight"], row["consecutive_failures"]
        room = min(
            limits.per_subscription - in_flight, limits.deactivate_after - failures - in_flight
        )
        if room > 0:
            result.append((row["id"], room))
    return result


def fair(due: Iterable[tuple[int, int, int]], room: int) -> list[int]:
    """(delivery, rank within its subscription, subscription order) → the ids to take: every
    subscription's first before any second, and so on, up to the worker's room."""
    ordered = sorted(due, key=lambda d: (d[1], d[2]))
    return [delivery for delivery, _, _ in ordered[:room]]


def started(taken: Iterable[Any]) -> list[tuple[int, int]]:
    """(subscription, attempts started) for the rows TAKE returned."""
    counts: dict[int, int] = {}
    for row in taken:
        counts[row[1]] = counts.get(row[1], 0) + 1
    return sorted(counts.items())


def claimed(rows: Iterable[Any], expires: dt.datetime) -> list[Claimed]:
    """Rows of CLAIMED or PG_CLAIM (oldest due first) as deliveries to send."""
    return [
        Claimed(
            id=row["id"],
            webhook_id=row["public_id"],
            workspace_id=row["workspace"],
            attempt=row["attempts"] + 1,
            lease_expires_at=expires,
            subscription_id=row["subscription"],
            url=row["url"],
            secret=row["secret"],
            event=row["name"],
            event_id=row["event_id"],
            body=str(row["body"]).encode("utf-8"),
            previous_secret=row["previous_secret"],
        )
        for row in rows
    ]


def expired(rows: Sequence[Any]) -> list[Claimed]:
    """Rows of EXPIRED as the attempts their workers were making (nothing to send)."""
    return [
        Claimed(
            id=row["id"],
            webhook_id=row["public_id"],
            workspace_id=row["workspace"],
            attempt=row["attempts"] + 1,
            # As stored (SQLite's text, PostgreSQL's timestamp): the move matches it exactly.
            lease_expires_at=row["lease_expires_at"],
            subscription_id=row["subscription"],
            url="",
            secret="",
            event=row["name"],
            event_id=row["event_id"],
            body=b"",
            worker=row["leased_by"],
        )
        for row in rows
    ]
