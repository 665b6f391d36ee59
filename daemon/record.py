"""After an attempt: store it, move the delivery on, and count the subscription's failures.

Attempts that finish together are written together, in one transaction (daemon/store.py
runs the statements below). A delivery moves only while this worker's lease still holds, and
only a delivery that moved stores its attempt and counts: an attempt whose lease ran out was
already recorded as cut off by whoever found the expired lease. Every write locks the batch's
subscriptions in id order, then its deliveries in id order (docs/operations.md). Each
subscription's failure counter and attempts in flight are changed by the one `UPDATE` (COUNT)
that also decides deactivation (`consecutive_failures + n`), so concurrent workers cannot
lose an increment. The test event (`webhook.test`) and attempts cut off by a stopped worker
neither count nor reset failures: only a receiver's own answers can deactivate.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import msgspec

from daemon import retry
from daemon.claim import Claimed
from daemon.config import DaemonConfig
from daemon.deliver import Outcome
from models.statements import Sql
from models.webhooks.names import DeliveryStatus, EventName

SUCCEEDED, FAILED, PENDING = DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED, DeliveryStatus.PENDING
ERROR_TEXT_LIMIT = 2000
CUT_OFF = "worker stopped during the attempt"

Entry = tuple[Claimed, Outcome]


def deactivation_reason(limit: int) -> str:
    return f"{limit} consecutive failed delivery attempts"


def cut_off(item: Claimed, now: dt.datetime) -> Entry:
    """An attempt whose worker died (its lease ran out): it counts against its delivery's
    attempts (a delivery that kills workers still runs out), not towards deactivation."""
    return item, Outcome(started_at=now, error=CUT_OFF)


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

    @property
    def worker(self) -> str | None:
        return self.item.worker


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
    `lead` >= limit), or any run of failures after a success (`peak`) does. `finished` is the
    number of attempts no longer in flight (test events included).
    """

    subscription_id: int
    lead: int = 0  # failures before the batch's first success
    reset: bool = False  # the batch has a success
    tail: int = 0  # failures after the last success
    peak: int = 0  # the longest run of failures after a success
    finished: int = 0

    def add(self, succeeded: bool) -> None:
        if succeeded:
            self.reset, self.tail = True, 0
        elif self.reset:
            self.tail += 1
            self.peak = max(self.peak, self.tail)
        else:
            self.lead += 1


def counts_towards_failures(item: Claimed) -> bool:
    """Only a receiver's own answers move the failure count: not the test event, and not an
    attempt cut off by a stopped worker (whose receiver may well have answered it)."""
    return item.event != EventName.WEBHOOK_TEST and item.worker is None


def failure_counts(entries: list[Entry]) -> list[FailureCount]:
    """Per subscription, ordered by id (the order rows are locked in, against deadlocks)."""
    counts: dict[int, FailureCount] = {}
    for item, outcome in entries:
        count = counts.get(item.subscription_id)
        if count is None:
            count = counts[item.subscription_id] = FailureCount(item.subscription_id)
        count.finished += 1
        if counts_towards_failures(item):
            count.add(outcome.succeeded)
    return [counts[key] for key in sorted(counts)]


# --- statements ----------------------------------------------------------------------------
# Written once in PostgreSQL's dialect (models/statements.py derives the SQLite text), one row each.

ATTEMPT = Sql(
    """
    INSERT INTO webhook_attempts (delivery, number, started_at, duration_ms, status_code, error,
        response_headers, response_body, response_truncated, response_length, worker)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
    """
)

# Only while the lease holds; the id comes back if the delivery moved.
MOVE = Sql(
    """
    UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3,
        lease_expires_at = NULL, leased_by = NULL, last_status_code = $4, last_error = $5,
        completed_at = $6, updated_at = $7
    WHERE id = $8 AND status = 'pending' AND leased_by = $9 AND lease_expires_at = $10
    RETURNING id
    """
)

# The deactivation rule, the one place it is written: with this batch's
# attempts the subscription's consecutive failures reach the limit ($6). $4 is `lead`, $5
# `peak` (FailureCount). Evaluated on the row being updated, so concurrent workers never
# lose an increment.
_REACHES_LIMIT = "(($4 > 0 AND consecutive_failures + $4 >= $6) OR $5 >= $6)"

# $1 subscription, $2 reset, $3 tail, $4 lead, $5 peak, $6 limit, $7 now, $8 reason,
# $9 attempts finished. Returns whether this statement deactivated it.
COUNT = Sql(
    f"""
    UPDATE webhook_subscriptions SET
        consecutive_failures = CASE WHEN $2 THEN $3 ELSE consecutive_failures + $4 END,
        deactivated_at = CASE WHEN is_active AND {_REACHES_LIMIT}
            THEN $7 ELSE deactivated_at END,
        deactivated_reason = CASE WHEN is_active AND {_REACHES_LIMIT}
            THEN $8 ELSE deactivated_reason END,
        is_active = is_active AND NOT {_REACHES_LIMIT},
        in_flight = CASE WHEN in_flight > $9 THEN in_flight - $9 ELSE 0 END,
        updated_at = $7
    WHERE id = $1
    RETURNING id, NOT is_active AND deactivated_at = $7 AND ($4 > 0 OR $5 > 0) AS deactivated
    """  # noqa: S608 - a constant fragment, no input
)


def attempt_args(p: Planned, worker: str) -> tuple[object, ...]:
    o = p.outcome
    return (p.item.id, p.item.attempt, o.started_at, o.duration_ms, o.status_code, p.error,
            p.headers, p.body, o.truncated, o.length, p.worker or worker)  # fmt: skip


def move_args(p: Planned, worker: str, now: dt.datetime) -> tuple[object, ...]:
    o = p.outcome
    return (p.status, p.item.attempt, p.next_attempt_at, o.status_code, p.error, p.completed_at,
            now, p.item.id, p.worker or worker, p.item.lease_expires_at)  # fmt: skip


def count_args(c: FailureCount, limit: int, now: dt.datetime) -> tuple[object, ...]:
    return (c.subscription_id, c.reset, c.tail, c.lead, c.peak, limit, now,
            deactivation_reason(limit), c.finished)  # fmt: skip


# PostgreSQL only, because it measurably pays: MOVE and ATTEMPT for a whole batch in one
# statement; returns the moved ids (only those store an attempt). Measured with
# `python -m benchmarks.webhooks --deliveries 30000` (2 shared cores, runs paired): 3,460
# deliveries/s and 0.24 ms of worker CPU per delivery, against 2,251/s and 0.32 ms with one
# round trip per row. The rows go as one JSON text (`BatchRow`s, encoded by msgspec) rather
# than fifteen arrays: the driver's encoding of the arrays was most of the worker's cost of a
# batch. SQLite runs the single-row statements in its transaction: no round trips to save.
_PG_ROWS = """
    SELECT * FROM json_to_recordset($1::json) AS r(delivery integer, number integer,
        started_at timestamptz, duration_ms integer, status_code integer, error text,
        headers text, body text, truncated boolean, length integer, status text,
        next_at timestamptz, completed_at timestamptz, lease timestamptz, worker text)
"""
_PG_HOLDS = "d.status = 'pending' AND d.leased_by = r.worker AND d.lease_expires_at = r.lease"


# The batch's deliveries whose lease still holds, locked in id order. `after` names a step to
# be run first (the subscriptions' locks: subscriptions before deliveries, the one lock order).
def _pg_held(after: str) -> str:
    return f"""held AS MATERIALIZED (
    SELECT d.id FROM webhook_deliveries d JOIN r ON d.id = r.delivery
    WHERE {_PG_HOLDS} AND (SELECT COUNT(*) FROM {after}) >= 0
    ORDER BY d.id FOR UPDATE OF d
)"""  # noqa: S608 - constant fragments, no input


_PG_MOVE = f"""
    UPDATE webhook_deliveries d SET status = r.status, attempts = r.number,
        next_attempt_at = r.next_at, lease_expires_at = NULL, leased_by = NULL,
        last_status_code = r.status_code, last_error = r.error,
        completed_at = r.completed_at, updated_at = $2
    FROM r JOIN held ON held.id = r.delivery
    WHERE d.id = r.delivery AND {_PG_HOLDS}
"""  # noqa: S608 - constant fragments, no input
_PG_ATTEMPTS = """
    INSERT INTO webhook_attempts (delivery, number, started_at, duration_ms, status_code,
        error, response_headers, response_body, response_truncated, response_length, worker)
    SELECT delivery, number, started_at, duration_ms, status_code, error, headers, body,
        truncated, length, worker FROM r JOIN moved ON moved.id = r.delivery
    RETURNING delivery
"""

# The subscriptions of a batch, locked in id order before anything else is (FOR NO KEY
# UPDATE: the key-share locks of a web transaction inserting deliveries never conflict).
PG_LOCK_SUBSCRIPTIONS = """
SELECT id FROM webhook_subscriptions WHERE id = ANY($1::integer[])
ORDER BY id FOR NO KEY UPDATE
"""

# In a transaction that has run PG_LOCK_SUBSCRIPTIONS: the moves and attempts of a batch.
PG_RECORD_BATCH = f"""
WITH r AS ({_PG_ROWS}), {_pg_held("r")}, moved AS ({_PG_MOVE} RETURNING d.id)
{_PG_ATTEMPTS}
"""


class BatchRow(msgspec.Struct, frozen=True):
    """One row of PG_RECORD_BATCH's JSON (its field names are the recordset's columns)."""

    delivery: int
    number: int
    started_at: dt.datetime
    duration_ms: int
    status_code: int | None
    error: str | None
    headers: str
    body: str
    truncated: bool
    length: int
    status: str
    next_at: dt.datetime
    completed_at: dt.datetime | None
    lease: dt.datetime
    worker: str


_encode = msgspec.json.Encoder().encode


def pg_batch_args(planned: list[Planned], worker: str, now: dt.datetime) -> tuple[object, ...]:
    rows = [
        BatchRow(
            delivery=p.item.id,
            number=p.item.attempt,
            started_at=p.outcome.started_at,
            duration_ms=p.outcome.duration_ms,
            status_code=p.outcome.status_code,
            error=p.error,
            headers=p.headers,
            body=p.body,
            truncated=p.outcome.truncated,
            length=p.outcome.length,
            status=p.status,
            next_at=p.next_attempt_at,
            completed_at=p.completed_at,
            lease=p.item.lease_expires_at,
            worker=p.worker or worker,
        )
        for p in planned
    ]
    return _encode(rows).decode(), now


# PostgreSQL: COUNT for every subscription of a batch in one statement (the same rule, over
# the batch's FailureCounts as JSON). The subscriptions are locked first, in id order (every
# worker's order, against deadlocks), by the materialized `locked` step; the UPDATE then
# works on each row's latest version, so concurrent workers never lose an increment.
def _pg_lock_counts(counts: str) -> str:
    """The batch's FailureCounts (`c`) and their subscriptions, locked (`locked`)."""
    return f"""c AS (
    SELECT * FROM json_to_recordset({counts}::json) AS c(subscription_id integer, lead integer,
        reset boolean, tail integer, peak integer, finished integer)
), locked AS MATERIALIZED (
    SELECT s.id FROM webhook_subscriptions s JOIN c ON c.subscription_id = s.id
    ORDER BY s.id FOR NO KEY UPDATE OF s
)"""  # noqa: S608 - constant fragments, no input


def _pg_count(limit: str, now: str, reason: str, only_if: str = "TRUE") -> str:
    """The step that counts (`counted`), after _pg_lock_counts, where `only_if` holds; the
    arguments are the statement's placeholders."""
    reaches = f"((c.lead > 0 AND s.consecutive_failures + c.lead >= {limit}) OR c.peak >= {limit})"
    return f"""counted AS (
    UPDATE webhook_subscriptions s SET
        consecutive_failures = CASE WHEN c.reset THEN c.tail
            ELSE s.consecutive_failures + c.lead END,
        deactivated_at = CASE WHEN s.is_active AND {reaches}
            THEN {now} ELSE s.deactivated_at END,
        deactivated_reason = CASE WHEN s.is_active AND {reaches}
            THEN {reason} ELSE s.deactivated_reason END,
        is_active = s.is_active AND NOT {reaches},
        in_flight = GREATEST(s.in_flight - c.finished, 0),
        updated_at = {now}
    FROM c JOIN locked ON locked.id = c.subscription_id
    WHERE s.id = c.subscription_id AND {only_if}
    RETURNING s.id, NOT s.is_active AND s.deactivated_at = {now}
        AND (c.lead > 0 OR c.peak > 0) AS deactivated
)"""  # noqa: S608 - constant fragments, no input


PG_COUNT_BATCH = f"""
WITH {_pg_lock_counts("$1")}, {_pg_count("$2", "$3", "$4")}
SELECT id, deactivated FROM counted
"""  # noqa: S608 - constant fragments, no input


def pg_count_args(counts: list[FailureCount], limit: int, now: dt.datetime) -> tuple[object, ...]:
    return _encode(counts).decode(), limit, now, deactivation_reason(limit)


# PostgreSQL's common case in one round trip: while every attempt of the batch still holds its
# lease (nearly always), its moves, its attempts and the failure counts — the FailureCounts of
# the whole batch — are written by one statement, atomic on its own. The subscriptions are
# locked first, then the deliveries (each in id order: the one lock order), and the leases
# checked; if any was lost the statement writes nothing and says so (`whole` false), and the
# batch goes through PG_RECORD_BATCH and PG_COUNT_BATCH in a transaction, which count only
# what moved. $1 rows, $2 now, $3 counts, $4 limit, $5 reason.
PG_RECORD_WHOLE = f"""
WITH r AS ({_PG_ROWS}), {_pg_lock_counts("$3")}, {_pg_held("locked")},
whole AS MATERIALIZED (
    SELECT (SELECT COUNT(*) FROM held) = (SELECT COUNT(*) FROM r) AS ok
), moved AS ({_PG_MOVE} AND (SELECT ok FROM whole) RETURNING d.id
), attempts AS ({_PG_ATTEMPTS}
), {_pg_count("$4", "$2", "$5", only_if="(SELECT ok FROM whole)")}
SELECT (SELECT ok FROM whole) AS whole, ARRAY(SELECT id FROM counted WHERE deactivated)
    AS deactivated
"""  # noqa: S608 - constant fragments, no input


def pg_whole_args(
    planned: list[Planned], counts: list[FailureCount], worker: str, limit: int, now: dt.datetime
) -> tuple[object, ...]:
    rows, _ = pg_batch_args(planned, worker, now)
    return rows, now, _encode(counts).decode(), limit, deactivation_reason(limit)
