"""After an attempt: store it, move the delivery on, and count the subscription's failures.

All three happen in one transaction (attempts that finish together share it). The failure
counter is updated in a single statement (`consecutive_failures + 1`), so concurrent workers
cannot lose an increment, and that same statement deactivates the subscription when the
count reaches the limit.
"""

from __future__ import annotations

import datetime as dt
import logging

from daemon import retry
from daemon.claim import Claimed
from daemon.config import DaemonConfig
from daemon.deliver import Outcome
from models import db
from models.tables import WebhookAttempt, WebhookDelivery, WebhookSubscription

log = logging.getLogger("daemon.record")

SUCCEEDED, FAILED, PENDING = "succeeded", "failed", "pending"
ERROR_TEXT_LIMIT = 2000


def deactivation_reason(limit: int) -> str:
    return f"{limit} consecutive failed delivery attempts"


async def _count_failure(subscription_id: int, limit: int, now: dt.datetime) -> None:
    rows = await WebhookSubscription.raw(
        "UPDATE webhook_subscriptions SET consecutive_failures = consecutive_failures + 1, "
        "deactivated_at = CASE WHEN is_active = {} AND consecutive_failures + 1 >= {} "
        "THEN {} ELSE deactivated_at END, "
        "deactivated_reason = CASE WHEN is_active = {} AND consecutive_failures + 1 >= {} "
        "THEN {} ELSE deactivated_reason END, "
        "is_active = CASE WHEN consecutive_failures + 1 >= {} THEN {} ELSE is_active END, "
        "updated_at = {} WHERE id = {} RETURNING consecutive_failures, is_active, deactivated_at",
        True,
        limit,
        now,
        True,
        limit,
        deactivation_reason(limit),
        limit,
        False,
        now,
        subscription_id,
    )
    if rows and rows[0]["consecutive_failures"] == limit:
        log.warning(
            "subscription %s deactivated after %s consecutive failures", subscription_id, limit
        )


async def _reset_failures(subscription_id: int, now: dt.datetime) -> None:
    await WebhookSubscription.raw(
        "UPDATE webhook_subscriptions SET consecutive_failures = 0, updated_at = {} "
        "WHERE id = {} AND consecutive_failures <> 0",
        now,
        subscription_id,
    )


Entry = tuple[Claimed, Outcome]


async def _apply(
    item: Claimed, outcome: Outcome, *, worker: str, config: DaemonConfig, now: dt.datetime
) -> str | None:
    """The writes for one attempt, inside the caller's transaction."""
    if outcome.succeeded:
        status, retry_at = SUCCEEDED, None
    else:
        retry_at = retry.next_attempt_at(now, item.attempt, config.backoff, config.max_attempts)
        status = FAILED if retry_at is None else PENDING
    error = outcome.error[:ERROR_TEXT_LIMIT] if outcome.error else None
    await WebhookAttempt(
        delivery=item.id,
        number=item.attempt,
        started_at=outcome.started_at,
        duration_ms=outcome.duration_ms,
        status_code=outcome.status_code,
        error=error,
        response_headers=outcome.headers_json(),
        response_body=outcome.body_text(),
        response_truncated=outcome.truncated,
        response_length=outcome.length,
        worker=worker,
    ).save()
    moved = await WebhookDelivery.raw(
        "UPDATE webhook_deliveries SET status = {}, attempts = {}, next_attempt_at = {}, "
        "lease_expires_at = NULL, leased_by = NULL, last_status_code = {}, last_error = {}, "
        "completed_at = {}, updated_at = {} "
        "WHERE id = {} AND status = 'pending' AND leased_by = {} AND lease_expires_at = {} "
        "RETURNING id",
        status,
        item.attempt,
        retry_at or now,
        outcome.status_code,
        error,
        None if status == PENDING else now,
        now,
        item.id,
        worker,
        item.lease_expires_at,
    )
    # The counter follows what the endpoint did, even if this worker's lease ran out.
    if outcome.succeeded:
        await _reset_failures(item.subscription_id, now)
    else:
        await _count_failure(item.subscription_id, config.deactivate_after, now)
    if not moved:
        log.warning("delivery %s: lease lost before the attempt was recorded", item.id)
        return None
    return status


async def record_batch(
    entries: list[Entry], *, worker: str, config: DaemonConfig, now: dt.datetime
) -> list[str | None]:
    """Store several attempts in one transaction (one commit: SQLite commits cost an fsync)."""
    async with db.transaction():
        return [
            await _apply(item, outcome, worker=worker, config=config, now=now)
            for item, outcome in entries
        ]


async def record(
    item: Claimed, outcome: Outcome, *, worker: str, config: DaemonConfig, now: dt.datetime
) -> str | None:
    """Store the attempt and the delivery's new state; None if the lease was lost meanwhile."""
    [status] = await record_batch([(item, outcome)], worker=worker, config=config, now=now)
    return status
