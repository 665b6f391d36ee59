"""Webhook subscriptions and the operator's replay tools: one place for their rules."""

from __future__ import annotations

import datetime as dt
import json
import secrets
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import msgspec

from models import clock, db, statements
from models.errors import ConflictError, InvalidFields, NotFoundError
from models.outbox import EVENT_NAMES
from models.queries.filters import MAX_ID
from models.tables import (
    Customer,
    WebhookAttempt,
    WebhookDelivery,
    WebhookSubscription,
    Workspace,
)
from models.urls import MASK, masked_url, password

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
    """An absolute http(s) URL with a host; where it points is checked at send time. A
    password that is the mask (`****`) is refused: it stands for one that is not shown."""
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
    if password(url) == MASK:
        problems.append(
            f"Type the password again: {MASK} stands for the stored one, which is kept only "
            "when the rest of the URL is unchanged."
        )
    if problems:
        raise InvalidFields({"url": problems})
    return url


def new_secret() -> str:
    """The signing secret shown once to the operator, who hands it to the receiver."""
    return "whsec_" + secrets.token_hex(32)


def _row(sub: dict[str, Any]) -> dict[str, Any]:
    """A subscription as it is shown: its URL with any password masked (only the worker
    reads the stored URL, to send)."""
    deactivated = sub["deactivated_at"]
    return {
        "id": sub["id"],
        "workspace": sub["workspace"],
        "url": masked_url(sub["url"]),
        "events": sub["events"],
        "customer": sub["customer"],
        "is_active": bool(sub["is_active"]),
        "consecutive_failures": sub["consecutive_failures"],
        "deactivated_at": clock.iso(deactivated) if deactivated else None,
        "deactivated_reason": sub["deactivated_reason"],
        "created_at": clock.iso(sub["created_at"]),
    }


def _checked(url: str, events: str) -> tuple[str, str]:
    """The URL and event list as stored, or every problem with either at once."""
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
    return url, events


async def _check_customer(workspace_id: int, customer_id: int | None) -> None:
    """A customer scope must be one of the workspace's customers."""
    if customer_id is not None and not await Customer.exists().where(
        (Customer.id == customer_id) & (Customer.workspace == workspace_id)
    ):
        raise NotFoundError(f"Customer {customer_id} not found in workspace {workspace_id}.")


async def create(
    workspace_id: int, url: str, events: str = ALL_EVENTS, customer_id: int | None = None
) -> tuple[dict[str, Any], str]:
    """A new active subscription; returns its row and the generated secret."""
    url, events = _checked(url, events)
    if not await Workspace.exists().where(Workspace.id == workspace_id):
        raise NotFoundError(f"Workspace {workspace_id} not found.")
    await _check_customer(workspace_id, customer_id)
    secret = new_secret()
    row = WebhookSubscription(
        workspace=workspace_id, url=url, events=events, secret=secret, customer=customer_id
    )
    await row.save()
    return await get(row.id), secret


async def get(subscription_id: int) -> dict[str, Any]:
    rows = []
    if 0 < subscription_id <= MAX_ID:
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


class Delivery(msgspec.Struct, frozen=True):
    """One delivery as operators see it. `next_attempt_at` is set while it is pending and
    its subscription is active; a pending delivery of an inactive subscription is
    `waiting_for_reenable` instead (the worker leaves it until the subscription is enabled)."""

    id: int
    subscription: int
    subscription_active: bool
    event: str
    event_id: str
    order_number: str | None
    status: str
    attempts: int
    next_attempt_at: str | None
    waiting_for_reenable: bool
    last_status_code: int | None
    last_error: str | None
    created_at: str
    completed_at: str | None


def _delivery(row: dict[str, Any]) -> Delivery:
    pending = row["status"] == "pending"
    active = bool(row["subscription_active"])
    return Delivery(
        id=row["id"],
        subscription=row["subscription"],
        subscription_active=active,
        event=row["event.name"],
        event_id=row["event.event_id"],
        order_number=row["order_number"],
        status=row["status"],
        attempts=row["attempts"],
        next_attempt_at=statements.iso_or_none(row["next_attempt_at"])
        if pending and active
        else None,
        waiting_for_reenable=pending and not active,
        last_status_code=row["last_status_code"],
        last_error=row["last_error"],
        created_at=statements.iso(row["created_at"]),
        completed_at=statements.iso_or_none(row["completed_at"]),
    )


_DELIVERY_COLUMNS = (
    WebhookDelivery.id,
    WebhookDelivery.subscription,
    WebhookDelivery.subscription.is_active.as_alias("subscription_active"),
    WebhookDelivery.event.name,
    WebhookDelivery.event.event_id,
    WebhookDelivery.event._.order._.number.as_alias("order_number"),
    WebhookDelivery.status,
    WebhookDelivery.attempts,
    WebhookDelivery.next_attempt_at,
    WebhookDelivery.last_status_code,
    WebhookDelivery.last_error,
    WebhookDelivery.created_at,
    WebhookDelivery.completed_at,
)


async def deliveries(subscription_id: int, limit: int = 50) -> list[Delivery]:
    """The subscription's most recent deliveries, newest first."""
    await get(subscription_id)
    rows = (
        await WebhookDelivery.select(*_DELIVERY_COLUMNS)
        .where(WebhookDelivery.subscription == subscription_id)
        .order_by(WebhookDelivery.id, ascending=False)
        .limit(limit)
    )
    return [_delivery(row) for row in rows]


async def delivery(delivery_id: int) -> Delivery:
    rows = []
    if 0 < delivery_id <= MAX_ID:
        rows = await WebhookDelivery.select(*_DELIVERY_COLUMNS).where(
            WebhookDelivery.id == delivery_id
        )
    if not rows:
        raise NotFoundError(f"Webhook delivery {delivery_id} not found.")
    return _delivery(rows[0])


class Attempt(msgspec.Struct, frozen=True):
    """One HTTP attempt. `number` counts the delivery's attempts 1, 2, 3… in time order
    across redeliveries; `sent_as` is the X-SVC-Attempt value it carried, which a redeliver
    starts again at 1. `response_length` is the full body's size in bytes, and
    `response_body` the (possibly cut, see `response_truncated`) text kept."""

    id: int
    number: int
    sent_as: int
    started_at: str
    duration_ms: int
    status_code: int | None
    error: str | None
    response_headers: dict[str, str]
    response_body: str
    response_truncated: bool
    response_length: int
    worker: str | None


def _headers(stored: str | None) -> dict[str, str]:
    """The recorded headers (a JSON object; older rows may hold a list of pairs) as an object."""
    try:
        value = json.loads(stored or "{}")
    except ValueError:
        return {}
    pairs = value.items() if isinstance(value, dict) else value
    headers: dict[str, str] = {}
    for pair in pairs if isinstance(pairs, Iterable) else ():
        if isinstance(pair, list | tuple) and len(pair) == 2:
            name, text = str(pair[0]), str(pair[1])
            headers[name] = f"{headers[name]}, {text}" if name in headers else text
    return headers


async def attempts(delivery_id: int) -> list[Attempt]:
    """Every recorded attempt of one delivery, oldest first, with the response kept."""
    await delivery(delivery_id)
    rows = (
        await WebhookAttempt.select()
        .where(WebhookAttempt.delivery == delivery_id)
        .order_by(WebhookAttempt.started_at)
        .order_by(WebhookAttempt.id)
    )
    return [
        Attempt(
            id=row["id"],
            number=position,
            sent_as=row["number"],
            started_at=statements.iso(row["started_at"]),
            duration_ms=row["duration_ms"],
            status_code=row["status_code"],
            error=row["error"],
            response_headers=_headers(row["response_headers"]),
            response_body=row["response_body"] or "",
            response_truncated=bool(row["response_truncated"]),
            response_length=row["response_length"],
            worker=row["worker"],
        )
        for position, row in enumerate(rows, start=1)
    ]


async def redeliver(delivery_id: int) -> Delivery:
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
    return await delivery(delivery_id)


async def edit(
    subscription_id: int, *, url: str, events: str, customer_id: int | None
) -> dict[str, Any]:
    """Change a subscription's URL, events and customer scope; its secret and state stay.
    The URL as it is shown (password masked) stands for the stored one, so a form sent
    back unchanged keeps the password; with anything else changed it must be typed again."""
    stored = []
    if 0 < subscription_id <= MAX_ID:
        stored = await WebhookSubscription.select(WebhookSubscription.url).where(
            WebhookSubscription.id == subscription_id
        )
    if stored and url.strip() == masked_url(stored[0]["url"]):
        url = stored[0]["url"]
    url, events = _checked(url, events)
    current = await get(subscription_id)
    await _check_customer(current["workspace"], customer_id)
    await WebhookSubscription.update(
        {
            WebhookSubscription.url: url,
            WebhookSubscription.events: events,
            WebhookSubscription.customer: customer_id,
            WebhookSubscription.updated_at: clock.now(),
        }
    ).where(WebhookSubscription.id == subscription_id)
    return await get(subscription_id)
