"""Webhook subscriptions: their rules, reads and writes, secret rotation and the test event.

Every function takes the workspace it acts in (`workspace_id`; `None` is the operator's
command line, acting on any workspace): an id from another workspace is simply not found."""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import urlsplit

from piccolo.query.functions.aggregate import Max

from models import clock, db, statements
from models.errors import ConflictError, InvalidFields, NotFoundError, storable
from models.filters import MAX_ID
from models.tables import Customer, WebhookDelivery, WebhookSubscription, Workspace
from models.urls import MASK, masked_url, password
from models.webhooks import deliveries, events, signing
from models.webhooks.names import EVENT_NAMES, DeliveryStatus

ALL_EVENTS = "*"
OPERATOR_DISABLED = "disabled by an operator"
MAX_URL_LENGTH = 2048
DEFAULT_OVERLAP_HOURS = 24
MAX_OVERLAP_HOURS = 168  # a week


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
    if not storable(url):  # NUL would fail PostgreSQL, the rest every sender
        problems.append("The URL must be one line of text, without control characters.")
    elif parts is None or parts.scheme not in {"http", "https"} or not host:
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


new_secret = signing.new_secret


def _row(sub: dict[str, Any]) -> dict[str, Any]:
    """A subscription as it is shown: its URL with any password masked (only the worker
    reads the stored URL, to send), never a secret."""
    deactivated = sub["deactivated_at"]
    until = sub["previous_secret_expires_at"]
    return {
        "id": sub["id"],
        "workspace": sub["workspace"],
        "url": masked_url(sub["url"]),
        "events": sub["events"],
        "customer": sub["customer"],
        "customer_name": sub.get("customer_name"),
        "is_active": bool(sub["is_active"]),
        "consecutive_failures": sub["consecutive_failures"],
        "deactivated_at": clock.iso(statements.when(deactivated)) if deactivated else None,
        "deactivated_reason": sub["deactivated_reason"],
        "previous_secret_until": clock.iso(statements.when(until))
        if until and sub["previous_secret"]
        else None,
        "created_at": clock.iso(statements.when(sub["created_at"])),
    }


_COLUMNS = (
    WebhookSubscription.id,
    WebhookSubscription.workspace,
    WebhookSubscription.url,
    WebhookSubscription.events,
    WebhookSubscription.customer,
    WebhookSubscription.customer.name.as_alias("customer_name"),
    WebhookSubscription.is_active,
    WebhookSubscription.consecutive_failures,
    WebhookSubscription.deactivated_at,
    WebhookSubscription.deactivated_reason,
    WebhookSubscription.previous_secret,
    WebhookSubscription.previous_secret_expires_at,
    WebhookSubscription.created_at,
)


def _scope(where: Any, workspace_id: int | None) -> Any:
    if workspace_id is None:
        return where
    return where & (WebhookSubscription.workspace == workspace_id)


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


async def get(subscription_id: int, workspace_id: int | None = None) -> dict[str, Any]:
    rows = []
    if 0 < subscription_id <= MAX_ID:
        rows = await WebhookSubscription.select(*_COLUMNS).where(
            _scope(WebhookSubscription.id == subscription_id, workspace_id)
        )
    if not rows:
        raise NotFoundError(f"Webhook subscription {subscription_id} not found.")
    return _row(rows[0])


async def list_for_workspace(workspace_id: int) -> list[dict[str, Any]]:
    """The workspace's subscriptions, oldest first, each with its latest delivery's time."""
    rows = (
        await WebhookSubscription.select(*_COLUMNS)
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
    result = []
    for row in rows:
        shown = _row(row)
        at = latest.get(row["id"])
        shown["last_delivery_at"] = clock.iso(statements.when(at)) if at else None
        result.append(shown)
    return result


async def enable(
    subscription_id: int,
    requeue_since: dt.datetime | None = None,
    workspace_id: int | None = None,
) -> dict[str, Any]:
    """Re-activate (counter back to 0); optionally re-queue failed/skipped deliveries since then."""
    await get(subscription_id, workspace_id)
    now = clock.now()

    async def write() -> int:
        # The subscription before its deliveries: the one lock order.
        await _set(
            subscription_id,
            {
                WebhookSubscription.is_active: True,
                WebhookSubscription.consecutive_failures: 0,
                WebhookSubscription.deactivated_at: None,
                WebhookSubscription.deactivated_reason: None,
                WebhookSubscription.updated_at: now,
            },
        )
        if requeue_since is None:
            return 0
        requeued = (
            await WebhookDelivery.update(deliveries.queued_again(now))
            .where(
                (WebhookDelivery.subscription == subscription_id)
                & WebhookDelivery.status.is_in([DeliveryStatus.FAILED, DeliveryStatus.SKIPPED])
                & (WebhookDelivery.created_at >= requeue_since)
            )
            .returning(WebhookDelivery.id)
        )
        return len(requeued)

    requeued = await db.atomic(write)
    result = await get(subscription_id)
    result["requeued"] = requeued
    return result


async def disable(
    subscription_id: int, reason: str = OPERATOR_DISABLED, workspace_id: int | None = None
) -> dict[str, Any]:
    """Stop sending: pending deliveries wait, new events are recorded as skipped."""
    await get(subscription_id, workspace_id)
    now = clock.now()
    await _set(
        subscription_id,
        {
            WebhookSubscription.is_active: False,
            WebhookSubscription.deactivated_at: now,
            WebhookSubscription.deactivated_reason: reason,
            WebhookSubscription.updated_at: now,
        },
    )
    return await get(subscription_id)


async def _set(subscription_id: int, values: dict[Any, Any]) -> None:
    """Change one subscription's columns; NotFoundError if it is gone."""
    updated = (
        await WebhookSubscription.update(values)
        .where(WebhookSubscription.id == subscription_id)
        .returning(WebhookSubscription.id)
    )
    if not updated:
        raise NotFoundError(f"Webhook subscription {subscription_id} not found.")


async def edit(
    subscription_id: int,
    *,
    url: str,
    events: str,
    customer_id: int | None,
    workspace_id: int | None = None,
) -> dict[str, Any]:
    """Change a subscription's URL, events and customer scope; its secret and state stay.
    The URL as it is shown (password masked) stands for the stored one, so a form sent
    back unchanged keeps the password; with anything else changed it must be typed again."""
    current = await get(subscription_id, workspace_id)
    stored = await WebhookSubscription.select(WebhookSubscription.url).where(
        WebhookSubscription.id == subscription_id
    )
    if stored and url.strip() == masked_url(stored[0]["url"]):
        url = stored[0]["url"]
    url, events = _checked(url, events)
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


async def rotate_secret(
    subscription_id: int,
    overlap_hours: int = DEFAULT_OVERLAP_HOURS,
    workspace_id: int | None = None,
) -> tuple[dict[str, Any], str]:
    """A new signing secret (returned, to be shown once). For `overlap_hours` (0-168) the old
    one signs too (`webhook-signature` lists both, `X-SVC-Signature-Previous` carries the old),
    so the receiver can switch without refusing anything; then it is erased. A rotation
    during an overlap drops the secret before the current one."""
    if not 0 <= overlap_hours <= MAX_OVERLAP_HOURS:
        raise InvalidFields(
            {"overlap_hours": [f"Give a whole number of hours from 0 to {MAX_OVERLAP_HOURS}."]}
        )
    await get(subscription_id, workspace_id)
    now = clock.now()
    secret = new_secret()

    async def write() -> None:
        [row] = await WebhookSubscription.select(WebhookSubscription.secret).where(
            WebhookSubscription.id == subscription_id
        )
        keep = overlap_hours > 0
        await WebhookSubscription.update(
            {
                WebhookSubscription.secret: secret,
                WebhookSubscription.previous_secret: row["secret"] if keep else None,
                WebhookSubscription.previous_secret_expires_at: now
                + dt.timedelta(hours=overlap_hours)
                if keep
                else None,
                WebhookSubscription.updated_at: now,
            }
        ).where(WebhookSubscription.id == subscription_id)

    await db.atomic(write)
    return await get(subscription_id), secret


async def erase_expired_secrets(now: dt.datetime) -> int:
    """Erase previous secrets whose overlap has ended (the worker's housekeeping; claims stop
    signing with them as soon as the overlap ends)."""
    erased = (
        await WebhookSubscription.update(
            {
                WebhookSubscription.previous_secret: None,
                WebhookSubscription.previous_secret_expires_at: None,
            }
        )
        .where(
            WebhookSubscription.previous_secret_expires_at.is_not_null()
            & (WebhookSubscription.previous_secret_expires_at <= now)
        )
        .returning(WebhookSubscription.id)
    )
    return len(erased)


async def send_test(subscription_id: int, workspace_id: int | None = None) -> deliveries.Delivery:
    """Queue a `webhook.test` event for this subscription alone, whatever its event filter.
    Refused while the subscription is inactive (nothing is sent to it then)."""
    sub = await get(subscription_id, workspace_id)
    if not sub["is_active"]:
        raise ConflictError(
            f"Subscription {subscription_id} is inactive ({sub['deactivated_reason']}): "
            "re-enable it to send a test event."
        )
    _, delivery_id = await events.record_test_event(sub["workspace"], subscription_id)
    return await deliveries.get(delivery_id)
