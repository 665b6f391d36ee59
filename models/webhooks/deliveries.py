"""The delivery read model: one shape of a delivery and its attempts for the admin, the CLI and
the worker's operators, every read scoped to a workspace (`None`: the operator, all of them)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from typing import Any

import msgspec

from models import clock, db, statements
from models.delivery_ids import MAX_LENGTH as DELIVERY_ID_LENGTH
from models.errors import ConflictError, NotFoundError
from models.filters import MAX_ID
from models.tables import WebhookAttempt, WebhookDelivery
from models.urls import masked_url
from models.webhooks.names import DeliveryStatus
from models.webhooks.stats import RECENT_FAILURES

__all__ = ["RECENT_FAILURES", "Attempt", "Delivery", "DeliveryDetail"]

PAGE_SIZE = 50
INACTIVE_REFUSAL = (
    "Subscription {sub} is inactive ({reason}): nothing is sent to it, so the delivery was not "
    "queued. Re-enable the subscription first; re-enabling can also queue again what failed "
    "or was skipped since a given time."
)


class Delivery(msgspec.Struct, frozen=True):
    """One delivery as operators see it. `next_attempt_at` is set while it is pending and
    its subscription is active; a pending delivery of an inactive subscription is
    `waiting_for_reenable` instead (the worker leaves it until the subscription is enabled).
    `url` is the subscription's, with any password masked. `webhook_id` is what its requests
    carry as `webhook-id` and `X-SVC-Delivery` (`dlv_…`, the same on every attempt);
    `workspace` is what they carry as `X-SVC-Workspace`."""

    id: int
    webhook_id: str
    workspace: int
    subscription: int
    subscription_active: bool
    url: str
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


class DeliveryDetail(msgspec.Struct, frozen=True):
    """A delivery with its event's exact body, the subscription's secrets and every attempt."""

    delivery: Delivery
    body: str
    secret: str
    previous_secret: str | None
    attempts: list[Attempt]


_COLUMNS = (
    WebhookDelivery.id,
    WebhookDelivery.public_id,
    WebhookDelivery.workspace,
    WebhookDelivery.subscription,
    WebhookDelivery.subscription.is_active.as_alias("subscription_active"),
    WebhookDelivery.subscription.url.as_alias("url"),
    WebhookDelivery.event.name.as_alias("event"),
    WebhookDelivery.event.event_id.as_alias("event_id"),
    WebhookDelivery.event._.order._.number.as_alias("order_number"),
    WebhookDelivery.status,
    WebhookDelivery.attempts,
    WebhookDelivery.next_attempt_at,
    WebhookDelivery.last_status_code,
    WebhookDelivery.last_error,
    WebhookDelivery.created_at,
    WebhookDelivery.completed_at,
)


def _delivery(row: dict[str, Any]) -> Delivery:
    pending = row["status"] == DeliveryStatus.PENDING
    active = bool(row["subscription_active"])
    return Delivery(
        id=row["id"],
        webhook_id=row["public_id"],
        workspace=row["workspace"],
        subscription=row["subscription"],
        subscription_active=active,
        url=masked_url(row["url"]),
        event=row["event"],
        event_id=row["event_id"],
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


def _scope(where: Any, workspace_id: int | None) -> Any:
    return where if workspace_id is None else where & (WebhookDelivery.workspace == workspace_id)


async def page(
    workspace_id: int,
    *,
    subscription_id: int | None = None,
    status: str | None = None,
    event: str | None = None,
    failed_since: dt.datetime | None = None,
    page_number: int = 1,
) -> tuple[list[Delivery], bool]:
    """One page of a workspace's deliveries, newest first, and whether another page follows.
    `failed_since`: only deliveries with a failed attempt since then (the overview's "failed
    attempts, last 24 h")."""
    where: Any = WebhookDelivery.workspace == workspace_id
    if subscription_id is not None:
        where &= WebhookDelivery.subscription == subscription_id
    if status is not None:
        where &= WebhookDelivery.status == status
    if event is not None:
        where &= WebhookDelivery.event.name == event
    if failed_since is not None:
        failed = await _failed_since(workspace_id, failed_since)
        where &= WebhookDelivery.id.is_in(failed or [0])
    # The page's ids first, from the deliveries alone; then only those rows joined to their
    # subscription and event (joining before the OFFSET joined every skipped row too).
    ids = (
        await WebhookDelivery.select(WebhookDelivery.id)
        .where(where)
        .order_by(WebhookDelivery.id, ascending=False)
        .limit(PAGE_SIZE + 1)
        .offset((page_number - 1) * PAGE_SIZE)
        .output(as_list=True)
    )
    if not ids:
        return [], False
    rows = (
        await WebhookDelivery.select(*_COLUMNS)
        .where(WebhookDelivery.id.is_in(ids[:PAGE_SIZE]))
        .order_by(WebhookDelivery.id, ascending=False)
    )
    return [_delivery(row) for row in rows], len(ids) > PAGE_SIZE


async def _failed_since(workspace_id: int, since: dt.datetime) -> list[int]:
    failed = (
        WebhookAttempt.status_code.is_null()
        | (WebhookAttempt.status_code < 200)
        | (WebhookAttempt.status_code >= 300)
    )
    rows = (
        await WebhookAttempt.select(WebhookAttempt.delivery)
        .where(
            (WebhookAttempt.started_at >= since)
            & failed
            & (WebhookAttempt.delivery.workspace == workspace_id)
        )
        .distinct()
        .output(as_list=True)
    )
    return list(rows)


async def for_subscription(
    subscription_id: int, limit: int = 50, workspace_id: int | None = None
) -> list[Delivery]:
    """A subscription's most recent deliveries, newest first."""
    where = _scope(WebhookDelivery.subscription == subscription_id, workspace_id)
    rows = (
        await WebhookDelivery.select(*_COLUMNS)
        .where(where)
        .order_by(WebhookDelivery.id, ascending=False)
        .limit(limit)
    )
    return [_delivery(row) for row in rows]


async def get(delivery_id: int, workspace_id: int | None = None) -> Delivery:
    rows = []
    if 0 < delivery_id <= MAX_ID:
        rows = await WebhookDelivery.select(*_COLUMNS).where(
            _scope(WebhookDelivery.id == delivery_id, workspace_id)
        )
    if not rows:
        raise NotFoundError(f"Webhook delivery {delivery_id} not found.")
    return _delivery(rows[0])


async def by_webhook_id(webhook_id: str, workspace_id: int | None = None) -> int:
    """The id of the delivery whose requests carry this `webhook-id` (`dlv_…`), as an
    integrator quotes it."""
    rows = []
    if len(webhook_id) <= DELIVERY_ID_LENGTH:
        rows = (
            await WebhookDelivery.select(WebhookDelivery.id)
            .where(_scope(WebhookDelivery.public_id == webhook_id, workspace_id))
            .output(as_list=True)
        )
    if not rows:
        raise NotFoundError(f"Webhook delivery {webhook_id} not found.")
    return int(rows[0])


async def detail(delivery_id: int, workspace_id: int | None = None) -> DeliveryDetail:
    delivery = await get(delivery_id, workspace_id)
    row = (
        await WebhookDelivery.select(
            WebhookDelivery.event.body.as_alias("body"),
            WebhookDelivery.subscription.secret.as_alias("secret"),
            WebhookDelivery.subscription.previous_secret.as_alias("previous_secret"),
            WebhookDelivery.subscription.previous_secret_expires_at.as_alias("previous_until"),
        )
        .where(WebhookDelivery.id == delivery_id)
        .first()
    )
    if row is None:  # deleted meanwhile
        raise NotFoundError(f"Webhook delivery {delivery_id} not found.")
    until = row["previous_until"]
    overlap = until is not None and statements.when(until) > clock.now()
    return DeliveryDetail(
        delivery=delivery,
        body=str(row["body"]),
        secret=str(row["secret"]),
        previous_secret=row["previous_secret"] if overlap else None,
        attempts=await attempts(delivery_id, workspace_id),
    )


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


async def attempts(delivery_id: int, workspace_id: int | None = None) -> list[Attempt]:
    """Every recorded attempt of one delivery, oldest first, with the response kept."""
    await get(delivery_id, workspace_id)
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


def queued_again(now: dt.datetime) -> dict[Any, Any]:
    """A delivery sent again from its first attempt, due now (re-queue and redeliver)."""
    return {
        WebhookDelivery.status: DeliveryStatus.PENDING,
        WebhookDelivery.attempts: 0,
        WebhookDelivery.next_attempt_at: now,
        WebhookDelivery.lease_expires_at: None,
        WebhookDelivery.leased_by: None,
        WebhookDelivery.completed_at: None,
        WebhookDelivery.updated_at: now,
    }


async def redeliver(delivery_id: int, workspace_id: int | None = None) -> Delivery:
    """Queue one delivery again, whatever its state, for a fresh round of attempts. Refused
    (ConflictError, with the reason) while it is being sent, or when its subscription is
    inactive: a queued delivery would never be sent, so none is queued."""
    now = clock.now()

    async def write() -> None:
        rows = await WebhookDelivery.select(
            WebhookDelivery.status,
            WebhookDelivery.leased_by,
            WebhookDelivery.subscription,
            WebhookDelivery.subscription.is_active.as_alias("active"),
            WebhookDelivery.subscription.deactivated_reason.as_alias("reason"),
        ).where(_scope(WebhookDelivery.id == delivery_id, workspace_id))
        if not rows or not 0 < delivery_id <= MAX_ID:
            raise NotFoundError(f"Webhook delivery {delivery_id} not found.")
        row = rows[0]
        if not row["active"]:
            raise ConflictError(
                INACTIVE_REFUSAL.format(sub=row["subscription"], reason=row["reason"] or "disabled")
            )
        # A leased delivery is being sent (or its lost attempt is about to be recorded).
        if row["status"] == DeliveryStatus.PENDING and row["leased_by"] is not None:
            raise ConflictError(f"Webhook delivery {delivery_id} is being sent right now.")
        await WebhookDelivery.update(queued_again(now)).where(WebhookDelivery.id == delivery_id)

    await db.atomic(write)
    return await get(delivery_id, workspace_id)
