"""The admin's reads, every one scoped to the session's workspace (the admin's tenancy choke
point: an id from another workspace is simply not found)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from piccolo.columns import Column
from piccolo.query.functions.aggregate import Max
from piccolo.table import Table

from models import clock, plans, statements
from models import subscriptions as webhook_subscriptions
from models.errors import NotFoundError
from models.queries.filters import MAX_ID
from models.tables import (
    ApiToken,
    Customer,
    Order,
    WebhookDelivery,
    WebhookSubscription,
    Workspace,
)
from models.webhooks.stats import outbox_stats

PAGE_SIZE = 50
DELIVERY_STATUSES = ("pending", "succeeded", "failed", "skipped")
CLOSED_STAGES = ("dispatched", "cancelled")
RECENT_FAILURES = dt.timedelta(hours=24)


def _known(row_id: int | None) -> bool:
    return row_id is not None and 0 < row_id <= MAX_ID


async def ensure_in_workspace(table: type[Table], row_id: int, workspace_id: int) -> None:
    """NotFoundError unless the row exists in this workspace."""
    workspace: Column = table._meta.get_column_by_name("workspace")
    if not _known(row_id) or not await table.exists().where(
        (table._meta.primary_key == row_id) & (workspace == workspace_id)
    ):
        raise NotFoundError(f"{table._meta.tablename} {row_id} not found")


# --- overview --------------------------------------------------------------------------------


async def overview(workspace_id: int) -> dict[str, Any]:
    now = clock.now()
    ws = await Workspace.select().where(Workspace.id == workspace_id).first()
    if ws is None:
        raise NotFoundError("workspace not found")
    trial = None if ws["trial_ends_at"] is None else statements.when(ws["trial_ends_at"])
    plan = plans.effective_plan(ws["plan"], trial, now)
    open_orders = await Order.count().where(
        (Order.workspace == workspace_id) & Order.stage.not_in(list(CLOSED_STAGES))
    )
    outbox = await outbox_stats(now, workspace_id, recent=RECENT_FAILURES)
    return {
        "name": ws["name"],
        "plan": ws["plan"],
        "effective_plan": plan,
        "trial_ends_at": trial if trial is not None and trial > now else None,
        "includes_api": plans.includes_api(plan),
        "open_orders": open_orders,
        "open_order_limit": plans.open_order_limit(plan, ws["open_order_limit"]),
        "subscriptions_active": outbox.active_subscriptions,
        "subscriptions_deactivated": outbox.deactivated_subscriptions,
        "pending": outbox.pending,
        "oldest_pending_age": dt.timedelta(seconds=outbox.oldest_pending_age_seconds)
        if outbox.pending
        else None,
        "failures_24h": outbox.failed_attempts_recent,
    }


# --- tokens and customers --------------------------------------------------------------------


def token_state(row: dict[str, Any], now: dt.datetime) -> str:
    if row["revoked_at"] is not None:
        return "revoked"
    if statements.when(row["expires_at"]) <= now:
        return "expired"
    return "active"


async def tokens(workspace_id: int, user_id: int | None = None) -> list[dict[str, Any]]:
    """The workspace's tokens (one user's when `user_id` is given), newest first."""
    where: Any = ApiToken.workspace == workspace_id
    if user_id is not None:
        where &= ApiToken.user == user_id
    rows = (
        await ApiToken.select(
            ApiToken.id,
            ApiToken.name,
            ApiToken.prefix,
            ApiToken.user,
            ApiToken.user.name.as_alias("user_name"),
            ApiToken.created_at,
            ApiToken.expires_at,
            ApiToken.revoked_at,
            ApiToken.last_used_at,
        )
        .where(where)
        .order_by(ApiToken.id, ascending=False)
    )
    now = clock.now()
    for row in rows:
        row["state"] = token_state(row, now)
    return rows


async def token(workspace_id: int, token_id: int) -> dict[str, Any]:
    await ensure_in_workspace(ApiToken, token_id, workspace_id)
    rows = await tokens(workspace_id)
    return next(row for row in rows if row["id"] == token_id)


async def customers(workspace_id: int) -> list[dict[str, Any]]:
    return (
        await Customer.select(Customer.id, Customer.name)
        .where(Customer.workspace == workspace_id)
        .order_by(Customer.name)
        .order_by(Customer.id)
    )


# --- webhooks --------------------------------------------------------------------------------


async def subscriptions(workspace_id: int) -> list[dict[str, Any]]:
    rows = (
        await WebhookSubscription.select(
            WebhookSubscription.id,
            WebhookSubscription.url,
            WebhookSubscription.events,
            WebhookSubscription.customer,
            WebhookSubscription.customer.name.as_alias("customer_name"),
            WebhookSubscription.is_active,
            WebhookSubscription.consecutive_failures,
            WebhookSubscription.deactivated_at,
            WebhookSubscription.deactivated_reason,
            WebhookSubscription.created_at,
        )
        .where(WebhookSubscription.workspace == workspace_id)
        .order_by(WebhookSubscription.id)
    )
    last = (
        await WebhookDelivery.select(
            WebhookDelivery.subscription, Max(WebhookDelivery.created_at, alias="last")
        )
        .where(WebhookDelivery.workspace == workspace_id)
        .group_by(WebhookDelivery.subscription)
    )
    latest = {row["subscription"]: row["last"] for row in last}
    for row in rows:
        row["last_delivery_at"] = latest.get(row["id"])
    return rows


async def subscription(workspace_id: int, subscription_id: int) -> dict[str, Any]:
    await ensure_in_workspace(WebhookSubscription, subscription_id, workspace_id)
    rows = await subscriptions(workspace_id)
    return next(row for row in rows if row["id"] == subscription_id)


async def secret(workspace_id: int, subscription_id: int) -> str:
    row = None
    if _known(subscription_id):
        row = (
            await WebhookSubscription.select(WebhookSubscription.secret)
            .where(
                (WebhookSubscription.id == subscription_id)
                & (WebhookSubscription.workspace == workspace_id)
            )
            .first()
        )
    if row is None:
        raise NotFoundError(f"webhook subscription {subscription_id} not found")
    return str(row["secret"])


def _delivery_columns() -> tuple[Any, ...]:
    """What the delivery list and a delivery's page both show of each delivery."""
    return (
        WebhookDelivery.id,
        WebhookDelivery.subscription,
        WebhookDelivery.subscription.url.as_alias("url"),
        WebhookDelivery.event.name.as_alias("event"),
        WebhookDelivery.event.event_id.as_alias("event_id"),
        WebhookDelivery.status,
        WebhookDelivery.attempts,
        WebhookDelivery.next_attempt_at,
        WebhookDelivery.created_at,
        WebhookDelivery.completed_at,
    )


async def deliveries(
    workspace_id: int,
    *,
    subscription_id: int | None = None,
    status: str | None = None,
    event: str | None = None,
    page: int = 1,
) -> tuple[list[dict[str, Any]], bool]:
    """One page of deliveries, newest first, and whether another page follows."""
    where: Any = WebhookDelivery.workspace == workspace_id
    if subscription_id is not None:
        where &= WebhookDelivery.subscription == subscription_id
    if status is not None:
        where &= WebhookDelivery.status == status
    if event is not None:
        where &= WebhookDelivery.event.name == event
    # The page's ids first, from the deliveries alone; then only those rows joined to their
    # subscription and event (joining before the OFFSET joined every skipped row too).
    ids = (
        await WebhookDelivery.select(WebhookDelivery.id)
        .where(where)
        .order_by(WebhookDelivery.id, ascending=False)
        .limit(PAGE_SIZE + 1)
        .offset((page - 1) * PAGE_SIZE)
        .output(as_list=True)
    )
    if not ids:
        return [], False
    rows = (
        await WebhookDelivery.select(
            *_delivery_columns(),
            WebhookDelivery.last_status_code,
            WebhookDelivery.last_error,
        )
        .where(WebhookDelivery.id.is_in(ids[:PAGE_SIZE]))
        .order_by(WebhookDelivery.id, ascending=False)
    )
    return rows, len(ids) > PAGE_SIZE


async def delivery(workspace_id: int, delivery_id: int) -> dict[str, Any]:
    """One delivery with its event's exact body, the subscription's secret and every attempt."""
    if not _known(delivery_id):
        raise NotFoundError(f"webhook delivery {delivery_id} not found")
    row = (
        await WebhookDelivery.select(
            *_delivery_columns(),
            WebhookDelivery.subscription.secret.as_alias("secret"),
            WebhookDelivery.event.body.as_alias("body"),
        )
        .where((WebhookDelivery.id == delivery_id) & (WebhookDelivery.workspace == workspace_id))
        .first()
    )
    if row is None:
        raise NotFoundError(f"webhook delivery {delivery_id} not found")
    row["attempt_rows"] = await webhook_subscriptions.attempts(delivery_id)
    return row
