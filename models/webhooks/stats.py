"""How far behind webhook delivery is: the figures `/metrics`, `pressline outbox stats` and the
admin's Webhooks page show, read from the database so they hold whichever worker sent what.

Pending figures count active subscriptions' deliveries only: a deactivated subscription's
deliveries wait for an operator, not for the worker, so they must not keep the documented
"oldest pending" alert firing (they show on the admin's deliveries page instead)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import msgspec
from piccolo.query.functions.aggregate import Min

from models import clock, statements
from models.tables import WebhookAttempt, WebhookDelivery, WebhookSubscription
from models.webhooks.names import DeliveryStatus

RECENT = dt.timedelta(minutes=5)
RECENT_FAILURES = dt.timedelta(hours=24)  # the Webhooks page's "failed attempts, last 24 h"


class OutboxStats(msgspec.Struct, frozen=True):
    pending: int  # active subscriptions' only
    oldest_pending_age_seconds: float  # 0 when nothing is pending
    attempts_recent: int  # attempts started within `recent` of now
    failed_attempts_recent: int
    deactivated_subscriptions: int  # deactivated or disabled
    active_subscriptions: int


async def outbox_stats(
    now: dt.datetime | None = None,
    workspace_id: int | None = None,
    recent: dt.timedelta = RECENT,
) -> OutboxStats:
    """The whole deployment's figures, or one workspace's; attempts counted over `recent`."""
    now = now or clock.now()
    deliveries: Any = (WebhookDelivery.status == DeliveryStatus.PENDING) & (
        WebhookDelivery.subscription.is_active == True  # noqa: E712 - a SQL expression
    )
    attempts: Any = WebhookAttempt.started_at >= now - recent
    if workspace_id is not None:
        deliveries &= WebhookDelivery.workspace == workspace_id
        attempts &= WebhookAttempt.delivery.workspace == workspace_id
    oldest = await WebhookDelivery.select(Min(WebhookDelivery.created_at, alias="oldest")).where(
        deliveries
    )
    oldest_at = oldest[0]["oldest"] if oldest else None
    failed = (
        WebhookAttempt.status_code.is_null()
        | (WebhookAttempt.status_code < 200)
        | (WebhookAttempt.status_code >= 300)
    )
    active: Any = WebhookSubscription.is_active == True  # noqa: E712 - a SQL expression
    inactive: Any = WebhookSubscription.is_active == False  # noqa: E712
    if workspace_id is not None:
        active &= WebhookSubscription.workspace == workspace_id
        inactive &= WebhookSubscription.workspace == workspace_id
    return OutboxStats(
        pending=await WebhookDelivery.count().where(deliveries),
        oldest_pending_age_seconds=0.0
        if oldest_at is None
        else max(0.0, (now - statements.when(oldest_at)).total_seconds()),
        attempts_recent=await WebhookAttempt.count().where(attempts),
        failed_attempts_recent=await WebhookAttempt.count().where(attempts & failed),
        deactivated_subscriptions=await WebhookSubscription.count().where(inactive),
        active_subscriptions=await WebhookSubscription.count().where(active),
    )


async def health(workspace_id: int, now: dt.datetime | None = None) -> dict[str, Any]:
    """The admin Webhooks page's figures for one workspace (failures over the last 24 h)."""
    outbox = await outbox_stats(now, workspace_id, recent=RECENT_FAILURES)
    return {
        "subscriptions_active": outbox.active_subscriptions,
        "subscriptions_deactivated": outbox.deactivated_subscriptions,
        "pending": outbox.pending,
        "oldest_pending_age": dt.timedelta(seconds=outbox.oldest_pending_age_seconds)
        if outbox.pending
        else None,
        "failures_24h": outbox.failed_attempts_recent,
    }
