"""Webhook subscriptions and the operator's replay tools: one place for their rules."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any
from urllib.parse import urlsplit

from models import clock, db
from models.errors import ConflictError, InvalidFields, NotFoundError
from models.outbox import EVENT_NAMES
from models.tables import (
    Customer,
    WebhookAttempt,
    WebhookDelivery,
    WebhookSubscription,
    Workspace,
)

ALL_EVENTS = "*"
OPERATOR_DISABLED = "disabled by an operator"
MAX_URL_LENGTH = 2048


def normalise_events(text: str) -> str:
    """`*` or a comma-separated list of known names → the stored form (sorted, no spaces)."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts:
        raise InvalidFields({"events": ["List at least one event name, or '*'."]})
    if ALL_EVENTS in parts:
        if len(parts) > 1:
            raise InvalidFields({"events": ["'*' cannot be combined with event names."]})
        return ALL_EVENTS
    unknown = sorted({part for part in parts if part not in EVENT_NAMES})
    if unknown:
        allowed = ", ".join(EVENT_NAMES)
        raise InvalidFields(
            {"events": [f"Unknown event {', '.join(unknown)}; use {allowed} or *."]}
        )
    return ",".join(sorted(set(parts)))


def check_url(url: str) -> str:
    """An absolute http(s) URL with a host; where it points is checked at send time."""
    url = url.strip()
    problems: list[str] = []
    try:
        parts = urlsplit(url)
        host = parts.hostname
        _ = parts.port  # raises on a malformed port
    except ValueError:
        parts, host = None, None
    if parts is None or parts.scheme not in {"http", "https"} or not host:
        problems.append("The URL must be absolute, with http or https and a host.")
    if len(url) > MAX_URL_LENGTH:
        problems.append(f"The URL must be at most {MAX_URL_LENGTH} characters.")
    if problems:
        raise InvalidFields({"url": problems})
    return url


def new_secret() -> str:
    """The signing secret shown once to the operator, who hands it to the receiver."""
    return "whsec_" + secrets.token_hex(32)


def _row(sub: dict[str, Any]) -> dict[str, Any]:
    deactivated = sub["deactivated_at"]
    return {
        "id": sub["id"],
        "workspace": sub["workspace"],
        "url": sub["url"],
        "events": sub["events"],
        "customer": sub["customer"],
        "is_active": bool(sub["is_active"]),
        "consecutive_failures": sub["consecutive_failures"],
        "deactivated_at": clock.iso(deactivated) if deactivated else None,
        "deactivated_reason": sub["deactivated_reason"],
        "created_at": clock.iso(sub["created_at"]),
    }


async def create(
    workspace_id: int, url: str, events: str = ALL_EVENTS, customer_id: int | None = None
) -> tuple[dict[str, Any], str]:
    """A new active subscription; returns its row and the generated secret."""
    errors: dict[str, list[str]] = {}
    try:
        url = check_url(url)
    except InvalidFields as exc:
        errors.update(exc.errors)
    try:
        events = normalise_events(events)
    except InvalidFields as exc:
        errors.update(exc.errors)
    if errors:
        raise InvalidFields(errors)
    if not await Workspace.exists().where(Workspace.id == workspace_id):
        raise NotFoundError(f"Workspace {workspace_id} not found.")
    if customer_id is not None and not await Customer.exists().where(
        (Customer.id == customer_id) & (Customer.workspace == workspace_id)
    ):
        raise NotFoundError(f"Customer {customer_id} not found in workspace {workspace_id}.")
    secret = new_secret()
    row = WebhookSubscription(
        workspace=workspace_id, url=url, events=events, secret=secret, customer=customer_id
    )
    await row.save()
    return await get(row.id), secret


async def get(subscription_id: int) -> dict[str, Any]:
    rows = await WebhookSubscription.select().where(WebhookSubscription.id == subscription_id)
    if not rows:
        raise NotFoundError(f"Webhook subscription {subscription_id} not found.")
    return _row(rows[0])


async def list_for_workspace(workspace_id: int) -> list[dict[str, Any]]:
    rows = (
        await WebhookSubscription.select()
        .where(WebhookSubscription.workspace == workspace_id)
        .order_by(WebhookSubscription.id)
    )
    return [_row(row) for row in rows]


def _queued_again(now: dt.datetime) -> dict[Any, Any]:
    """A delivery sent again from its first attempt, due now (re-queue and redeliver)."""
    return {
        WebhookDelivery.status: "pending",
        WebhookDelivery.attempts: 0,
        WebhookDelivery.next_attempt_at: now,
        WebhookDelivery.lease_expires_at: None,
        WebhookDelivery.leased_by: None,
        WebhookDelivery.completed_at: None,
        WebhookDelivery.updated_at: now,
    }


async def enable(subscription_id: int, requeue_since: dt.datetime | None = None) -> dict[str, Any]:
    """Re-activate (counter back to 0); optionally re-queue failed/skipped deliveries since then."""
    now = clock.now()
    async with db.transaction():
        updated = (
            await WebhookSubscription.update(
                {
                    WebhookSubscription.is_active: True,
                    WebhookSubscription.consecutive_failures: 0,
                    WebhookSubscription.deactivated_at: None,
                    WebhookSubscription.deactivated_reason: None,
                    WebhookSubscription.updated_at: now,
                }
            )
            .where(WebhookSubscription.id == subscription_id)
            .returning(WebhookSubscription.id)
        )
        if not updated:
            raise NotFoundError(f"Webhook subscription {subscription_id} not found.")
        requeued: list[dict[str, Any]] = []
        if requeue_since is not None:
            requeued = (
                await WebhookDelivery.update(_queued_again(now))
                .where(
                    (WebhookDelivery.subscription == subscription_id)
                    & WebhookDelivery.status.is_in(["failed", "skipped"])
                    & (WebhookDelivery.created_at >= requeue_since)
                )
                .returning(WebhookDelivery.id)
            )
    result = await get(subscription_id)
    result["requeued"] = len(requeued)
    return result


async def disable(subscription_id: int, reason: str = OPERATOR_DISABLED) -> dict[str, Any]:
    """Stop sending: pending deliveries wait, new events are recorded as skipped."""
    now = clock.now()
    updated = (
        await WebhookSubscription.update(
            {
                WebhookSubscription.is_active: False,
                WebhookSubscription.deactivated_at: now,
                WebhookSubscription.deactivated_reason: reason,
                WebhookSubscription.updated_at: now,
            }
        )
        .where(WebhookSubscription.id == subscription_id)
        .returning(WebhookSubscription.id)
    )
    if not updated:
        raise NotFoundError(f"Webhook subscription {subscription_id} not found.")
    return await get(subscription_id)


def _delivery_row(row: dict[str, Any]) -> dict[str, Any]:
    def stamp(value: dt.datetime | None) -> str | None:
        return clock.iso(value) if value else None

    return {
        "id": row["id"],
        "subscription": row["subscription"],
        "event": row["event.name"],
        "event_id": row["event.event_id"],
        "status": row["status"],
        "attempts": row["attempts"],
        "next_attempt_at": stamp(row["next_attempt_at"]) if row["status"] == "pending" else None,
        "last_status_code": row["last_status_code"],
        "last_error": row["last_error"],
        "created_at": stamp(row["created_at"]),
        "completed_at": stamp(row["completed_at"]),
    }


_DELIVERY_COLUMNS = (
    WebhookDelivery.id,
    WebhookDelivery.subscription,
    WebhookDelivery.event.name,
    WebhookDelivery.event.event_id,
    WebhookDelivery.status,
    WebhookDelivery.attempts,
    WebhookDelivery.next_attempt_at,
    WebhookDelivery.last_status_code,
    WebhookDelivery.last_error,
    WebhookDelivery.created_at,
    WebhookDelivery.completed_at,
)


async def deliveries(subscription_id: int, limit: int = 50) -> list[dict[str, Any]]:
    """The subscription's most recent deliveries, newest first."""
    await get(subscription_id)
    rows = (
        await WebhookDelivery.select(*_DELIVERY_COLUMNS)
        .where(WebhookDelivery.subscription == subscription_id)
        .order_by(WebhookDelivery.id, ascending=False)
        .limit(limit)
    )
    return [_delivery_row(row) for row in rows]


async def delivery(delivery_id: int) -> dict[str, Any]:
    rows = await WebhookDelivery.select(*_DELIVERY_COLUMNS).where(WebhookDelivery.id == delivery_id)
    if not rows:
        raise NotFoundError(f"Webhook delivery {delivery_id} not found.")
    return _delivery_row(rows[0])


async def attempts(delivery_id: int) -> list[dict[str, Any]]:
    """Every recorded attempt of one delivery, oldest first, with the response kept."""
    await delivery(delivery_id)
    rows = (
        await WebhookAttempt.select()
        .where(WebhookAttempt.delivery == delivery_id)
        .order_by(WebhookAttempt.id)
    )
    return [
        {
            "id": row["id"],
            "number": row["number"],
            "started_at": clock.iso(row["started_at"]),
            "duration_ms": row["duration_ms"],
            "status_code": row["status_code"],
            "error": row["error"],
            "response_headers": row["response_headers"],
            "response_body": row["response_body"],
            "response_truncated": bool(row["response_truncated"]),
            "response_length": row["response_length"],
            "worker": row["worker"],
        }
        for row in rows
    ]


async def redeliver(delivery_id: int) -> dict[str, Any]:
    """Queue one delivery again, whatever its state, for a fresh round of attempts."""
    now = clock.now()
    async with db.transaction():
        rows = await WebhookDelivery.select(
            WebhookDelivery.status, WebhookDelivery.lease_expires_at
        ).where(WebhookDelivery.id == delivery_id)
        if not rows:
            raise NotFoundError(f"Webhook delivery {delivery_id} not found.")
        lease = rows[0]["lease_expires_at"]
        if rows[0]["status"] == "pending" and lease is not None and lease > now:
            raise ConflictError(f"Webhook delivery {delivery_id} is being sent right now.")
        await WebhookDelivery.update(_queued_again(now)).where(WebhookDelivery.id == delivery_id)
    result = await delivery(delivery_id)
    sub = await get(result["subscription"])
    result["subscription_active"] = sub["is_active"]
    return result


async def edit(
    subscription_id: int, *, url: str, events: str, customer_id: int | None
) -> dict[str, Any]:
    """Change a subscription's URL, events and customer scope; its secret and state stay."""
    errors: dict[str, list[str]] = {}
    try:
        url = check_url(url)
    except InvalidFields as exc:
        errors.update(exc.errors)
    try:
        events = normalise_events(events)
    except InvalidFields as exc:
        errors.update(exc.errors)
    if errors:
        raise InvalidFields(errors)
    current = await get(subscription_id)
    if customer_id is not None and not await Customer.exists().where(
        (Customer.id == customer_id) & (Customer.workspace == current["workspace"])
    ):
        raise NotFoundError(
            f"Customer {customer_id} not found in workspace {current['workspace']}."
        )
    await WebhookSubscription.update(
        {
            WebhookSubscription.url: url,
            WebhookSubscription.events: events,
            WebhookSubscription.customer: customer_id,
            WebhookSubscription.updated_at: clock.now(),
        }
    ).where(WebhookSubscription.id == subscription_id)
    return await get(subscription_id)
