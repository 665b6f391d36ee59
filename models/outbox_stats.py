"""How far behind webhook delivery is: the figures `/metrics`, `pressline outbox stats` and the
admin's overview show, read from the database so they hold whichever worker sent what."""

from __future__ import annotations

import datetime as dt

import msgspec
from piccolo.query.functions.aggregate import Min

from models import clock
from models.tables import WebhookAttempt, WebhookDelivery, WebhookSubscription

RECENT = dt.timedelta(minutes=5)
PENDING = "pending"


class OutboxStats(msgspec.Struct, frozen=True):
    pending: int
    oldest_pending_age_seconds: float  # 0 when nothing is pending
    attempts_last_5m: int
    failed_attempts_last_5m: int
    deactivated_subscriptions: int


def _when(value: dt.datetime | str) -> dt.datetime:
    # Aggregates come back untyped on SQLite (the stored text), typed on PostgreSQL.
    if isinstance(value, str):
        return dt.datetime.fromisoformat(value).replace(tzinfo=dt.UTC)
    return value


async def outbox_stats(now: dt.datetime | None = None) -> OutboxStats:
    now = now or clock.now()
    since = now - RECENT
    pending = WebhookDelivery.status == PENDING
    oldest = await WebhookDelivery.select(Min(WebhookDelivery.created_at, alias="oldest")).where(
        pending
    )
    oldest_at = oldest[0]["oldest"] if oldest else None
    failed = (
        WebhookAttempt.status_code.is_null()
        | (WebhookAttempt.status_code < 200)
        | (WebhookAttempt.status_code >= 300)
    )
    recent = WebhookAttempt.started_at >= since
    return OutboxStats(
        pending=await WebhookDelivery.count().where(pending),
        oldest_pending_age_seconds=0.0
        if oldest_at is None
        else max(0.0, (now - _when(oldest_at)).total_seconds()),
        attempts_last_5m=await WebhookAttempt.count().where(recent),
        failed_attempts_last_5m=await WebhookAttempt.count().where(recent & failed),
        deactivated_subscriptions=await WebhookSubscription.count().where(
            WebhookSubscription.is_active == False  # noqa: E712 - a SQL expression
        ),
    )
