"""After an attempt: store it, move the delivery on, and count the subscription's failures.

Attempts that finish together are written together (daemon/store.py runs the statements
below: one statement on PostgreSQL, one transaction on SQLite). The delivery moves only while
this worker's lease still holds. The failure counter is changed in the same single `UPDATE`
that decides deactivation (`consecutive_failures + n`), so concurrent workers cannot lose an
increment; the counter follows what the endpoint did even if the lease ran out meanwhile.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from daemon import retry
from daemon.claim import Claimed
from daemon.config import DaemonConfig
from daemon.deliver import Outcome

SUCCEEDED, FAILED, PENDING = "succeeded", "failed", "pending"
ERROR_TEXT_LIMIT = 2000

Entry = tuple[Claimed, Outcome]


def deactivation_reason(limit: int) -> str:
    return f"{limit} consecutive failed delivery attempts"


def _text(value: str) -> str:
    # PostgreSQL text cannot hold NUL; a receiver may still send one.
    return value.replace("\x00", "\ufffd") if "\x00" in value else value


@dataclass(frozen=True, slots=True)
class Planned:
    """The rows one attempt writes: its attempt record and the delivery's next state."""

    item: Claimed
    outcome: Outcome
    status: str
    next_attempt_at: dt.datetime
    completed_at: dt.datetime | None
    error: str | None
    headers: str
    body: str


def plan(item: Claimed, outcome: Outcome, config: DaemonConfig, now: dt.datetime) -> Planned:
    if outcome.succeeded:
        status, retry_at = SUCCEEDED, None
    else:
        retry_at = retry.next_attempt_at(now, item.attempt, config.backoff, config.max_attempts)
        status = FAILED if retry_at is None else PENDING
    error = _text(outcome.error[:ERROR_TEXT_LIMIT]) if outcome.error else None
    return Planned(
        item=item,
        outcome=outcome,
        status=status,
        next_attempt_at=retry_at or now,
        completed_at=None if status == PENDING else now,
        error=error,
        headers=_text(outcome.headers_json()),
        body=_text(outcome.body_text()),
    )


@dataclass(slots=True)
class FailureCount:
    """One subscription's attempts of a batch, in the order they finished, as counter moves.

    Applied one by one, failures add 1 and a success sets the counter to 0. Together: without
    a success the counter grows by `lead`; with one it ends at `tail`. The limit is reached if
    failures before the first success take the stored count there (`lead` > 0 and stored +
    `lead` >= limit), or any run of failures after a success (`peak`) does.
    """

    subscription_id: int
    lead: int = 0  # failures before the batch's first success
    reset: bool = False  # the batch has a success
    tail: int = 0  # failures after the last success
    peak: int = 0  # the longest run of failures after a success

    def add(self, succeeded: bool) -> None:
        if succeeded:
            self.reset, self.tail = True, 0
        elif self.reset:
            self.tail += 1
            self.peak = max(self.peak, self.tail)
        else:
            self.lead += 1


def failure_counts(entries: list[Entry]) -> list[FailureCount]:
    """Per subscription, ordered by id (the order rows are locked in, against deadlocks)."""
    counts: dict[int, FailureCount] = {}
    for item, outcome in entries:
        count = counts.get(item.subscription_id)
        if count is None:
            count = counts[item.subscription_id] = FailureCount(item.subscription_id)
        count.add(outcome.succeeded)
    return [counts[key] for key in sorted(counts)]


# --- statements ----------------------------------------------------------------------------

# $1.. attempt and delivery columns as arrays; $15 worker, $16 now, $17 limit, $18 reason;
# $19.. the per-subscription counter moves. Returns the deliveries moved and the
# subscriptions deactivated by this statement.
PG_RECORD = """
WITH r AS (
    SELECT * FROM unnest(
        $1::integer[], $2::integer[], $3::timestamptz[], $4::integer[], $5::integer[],
        $6::text[], $7::text[], $8::text[], $9::boolean[], $10::integer[],
        $11::text[], $12::timestamptz[], $13::timestamptz[], $14::timestamptz[]
    ) AS r(delivery, number, started_at, duration_ms, status_code, error, headers, body,
           truncated, length, status, next_at, completed_at, lease)
), attempts AS (
    INSERT INTO webhook_attempts (delivery, number, started_at, duration_ms, status_code,
        error, response_headers, response_body, response_truncated, response_length, worker)
    SELECT delivery, number, started_at, duration_ms, status_code, error, headers, body,
        truncated, length, $15 FROM r
), moved AS (
    UPDATE webhook_deliveries d SET status = r.status, attempts = r.number,
        next_attempt_at = r.next_at, lease_expires_at = NULL, leased_by = NULL,
        last_status_code = r.status_code, last_error = r.error,
        completed_at = r.completed_at, updated_at = $16
    FROM r
    WHERE d.id = r.delivery AND d.status = 'pending' AND d.leased_by = $15
      AND d.lease_expires_at = r.lease
    RETURNING d.id
), counted AS (
    UPDATE webhook_subscriptions s SET
        consecutive_failures = CASE WHEN c.reset THEN c.tail
            ELSE s.consecutive_failures + c.lead END,
        deactivated_at = CASE WHEN s.is_active
            AND ((c.lead > 0 AND s.consecutive_failures + c.lead >= $17) OR c.peak >= $17)
            THEN $16 ELSE s.deactivated_at END,
        deactivated_reason = CASE WHEN s.is_active
            AND ((c.lead > 0 AND s.consecutive_failures + c.lead >= $17) OR c.peak >= $17)
            THEN $18 ELSE s.deactivated_reason END,
        is_active = CASE
            WHEN (c.lead > 0 AND s.consecutive_failures + c.lead >= $17) OR c.peak >= $17
            THEN false ELSE s.is_active END,
        updated_at = $16
    FROM unnest($19::integer[], $20::integer[], $21::boolean[], $22::integer[], $23::integer[])
        AS c(id, lead, reset, tail, peak)
    WHERE s.id = c.id AND (c.lead > 0 OR c.tail > 0 OR s.consecutive_failures <> 0)
    RETURNING s.id, NOT s.is_active AND s.deactivated_at = $16 AND (c.lead > 0 OR c.peak > 0)
        AS deactivated
)
SELECT 'moved' AS kind, id FROM moved
UNION ALL
SELECT 'deactivated', id FROM counted WHERE deactivated
"""

SQLITE_ATTEMPT = (
    "INSERT INTO webhook_attempts (delivery, number, started_at, duration_ms, status_code, "
    "error, response_headers, response_body, response_truncated, response_length, worker) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

SQLITE_MOVE = (
    "UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, "
    "lease_expires_at = NULL, leased_by = NULL, last_status_code = ?, last_error = ?, "
    "completed_at = ?, updated_at = ? "
    "WHERE id = ? AND status = 'pending' AND leased_by = ? AND lease_expires_at = ?"
)

# :lead :reset :tail :peak :limit :now :reason :id
SQLITE_COUNT = """
UPDATE webhook_subscriptions SET
    consecutive_failures = CASE WHEN :reset THEN :tail ELSE consecutive_failures + :lead END,
    deactivated_at = CASE WHEN is_active
        AND ((:lead > 0 AND consecutive_failures + :lead >= :limit) OR :peak >= :limit)
        THEN :now ELSE deactivated_at END,
    deactivated_reason = CASE WHEN is_active
        AND ((:lead > 0 AND consecutive_failures + :lead >= :limit) OR :peak >= :limit)
        THEN :reason ELSE deactivated_reason END,
    is_active = CASE
        WHEN (:lead > 0 AND consecutive_failures + :lead >= :limit) OR :peak >= :limit
        THEN 0 ELSE is_active END,
    updated_at = :now
WHERE id = :id AND (:lead > 0 OR :tail > 0 OR consecutive_failures <> 0)
RETURNING is_active, deactivated_at = :now AS now_deactivated
"""
