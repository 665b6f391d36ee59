"""`pressline webhook ...`: subscriptions, secret rotation, the test event, and inspecting and
replaying deliveries."""

from __future__ import annotations

import datetime as dt
from typing import Any

import click

from cli.output import TIMESTAMP, Result, command, moment
from models.delivery_ids import PREFIX as DELIVERY_ID_PREFIX
from models.webhooks import deliveries as delivery_reads
from models.webhooks import subscriptions
from models.webhooks.names import EVENT_NAMES

BODY_SHOWN = 2000  # characters of a response body printed for people; --json has all of it


class DeliveryRef(click.ParamType):
    """A delivery by its number (`42`) or by the `webhook-id` its requests carry (`dlv_…`)."""

    name = "DELIVERY"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> int | str:
        text = str(value).strip()
        if text.isdigit():
            return int(text)
        if text.startswith(DELIVERY_ID_PREFIX):
            return text
        self.fail(f"expected a delivery id (42) or a webhook-id (dlv_…), got {value!r}", param, ctx)


async def _delivery_id(ref: int | str) -> int:
    return ref if isinstance(ref, int) else await delivery_reads.by_webhook_id(ref)


@click.group()
def webhook() -> None:
    """Webhook subscriptions, their deliveries and attempts."""


def _state(sub: dict[str, Any]) -> str:
    if sub["is_active"]:
        return f"active, {sub['consecutive_failures']} consecutive failures"
    return f"inactive since {moment(sub['deactivated_at'])} ({sub['deactivated_reason']})"


@command(webhook, "create")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
@click.option("--url", required=True, help="Absolute http(s) URL the events are POSTed to.")
@click.option(
    "--events",
    default="*",
    show_default=True,
    help="'*' for every event, or a comma-separated list of: " + ", ".join(EVENT_NAMES) + ".",
)
@click.option("--customer", type=int, help="Only this customer's events (customer id).")
async def create(workspace: int, url: str, events: str, customer: int | None) -> Result:
    """Subscribe a URL; prints the signing secret (hand it to the receiver)."""
    sub, secret = await subscriptions.create(workspace, url, events, customer)
    scope = f", customer {sub['customer']}" if sub["customer"] else ""
    human = (
        f"webhook subscription {sub['id']} created: {sub['url']} ({sub['events']}{scope})\n"
        f"secret: {secret}"
    )
    return Result(human, {**sub, "secret": secret})


@command(webhook, "list")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
async def list_subscriptions(workspace: int) -> Result:
    """A workspace's subscriptions and their state (never the secret)."""
    subs = await subscriptions.list_for_workspace(workspace)
    lines = [f"{s['id']}  {s['url']}  events={s['events']}  {_state(s)}" for s in subs]
    return Result("\n".join(lines) or "no webhook subscriptions", {"subscriptions": subs})


@command(webhook, "enable")
@click.argument("subscription_id", metavar="ID", type=int)
@click.option(
    "--requeue-since",
    type=TIMESTAMP,
    help="Also queue again the failed and skipped deliveries created since then (ISO 8601; "
    "UTC when it has no offset).",
)
async def enable(subscription_id: int, requeue_since: dt.datetime | None) -> Result:
    """Re-activate a subscription (its failure count starts again at 0). ID: subscription id."""
    sub = await subscriptions.enable(subscription_id, requeue_since)
    human = f"webhook subscription {sub['id']} enabled"
    if requeue_since is not None:
        n = sub["requeued"]
        human += f"; {n} failed or skipped {'delivery' if n == 1 else 'deliveries'} queued again"
    return Result(human, sub)


@command(webhook, "disable")
@click.argument("subscription_id", metavar="ID", type=int)
async def disable(subscription_id: int) -> Result:
    """Stop sending: pending deliveries wait, new events are kept as skipped.
    ID: subscription id."""
    sub = await subscriptions.disable(subscription_id)
    return Result(f"webhook subscription {sub['id']} disabled", sub)


def _delivery_line(d: delivery_reads.Delivery) -> str:
    line = f"{d.id}  {d.event}  {d.status}  attempts={d.attempts}  webhook-id={d.webhook_id}"
    if d.order_number:
        line += f"  order={d.order_number}"
    if d.waiting_for_reenable:
        line += "  next=waiting for re-enable"
    elif d.status == "pending":
        line += f"  next={moment(d.next_attempt_at)}"
    if d.last_error:
        line += f"  last={d.last_error}"
    elif d.last_status_code is not None:
        line += f"  last=HTTP {d.last_status_code}"
    return line


@command(webhook, "deliveries")
@click.argument("subscription_id", metavar="ID", type=int)
@click.option(
    "--limit", type=int, default=50, show_default=True, help="How many of the newest to show."
)
async def deliveries(subscription_id: int, limit: int) -> Result:
    """A subscription's latest deliveries, newest first, with their event's order number.
    ID: subscription id."""
    rows = await delivery_reads.for_subscription(subscription_id, limit)
    human = "\n".join(_delivery_line(d) for d in rows) or "no deliveries"
    return Result(human, {"deliveries": rows})


def _attempt_lines(a: delivery_reads.Attempt) -> list[str]:
    answer = f"network error: {a.error}" if a.status_code is None else f"HTTP {a.status_code}"
    size = f"{a.response_length} bytes" + (" (truncated when kept)" if a.response_truncated else "")
    lines = [
        f"#{a.number}  {moment(a.started_at)}  {a.duration_ms} ms  {answer}  body {size}"
        f"  (X-SVC-Attempt {a.sent_as})"
    ]
    if a.response_body:
        body = a.response_body
        if len(body) > BODY_SHOWN:
            body = (
                f"{body[:BODY_SHOWN]}\n… the first {BODY_SHOWN} of {len(a.response_body)} "
                "characters shown; --json shows all of them"
            )
        lines += [f"    {text}" for text in body.splitlines()]
    return lines


@command(webhook, "attempts")
@click.argument("delivery", metavar="DELIVERY", type=DeliveryRef())
async def attempts(delivery: int | str) -> Result:
    """Every attempt of one delivery, numbered 1, 2, 3… in time order across redeliveries,
    with each response's status and body. DELIVERY: delivery id, or the webhook-id its
    requests carry (dlv_…)."""
    rows = await delivery_reads.attempts(await _delivery_id(delivery))
    human = "\n".join(line for a in rows for line in _attempt_lines(a)) or "no attempts yet"
    return Result(human, {"attempts": rows})


@command(webhook, "redeliver")
@click.argument("delivery", metavar="DELIVERY", type=DeliveryRef())
async def redeliver(delivery: int | str) -> Result:
    """Queue one delivery again, for a fresh round of attempts with the same webhook-id
    (refused while its subscription is inactive: enable it first). DELIVERY: delivery id,
    or the webhook-id its requests carry (dlv_…)."""
    d = await delivery_reads.redeliver(await _delivery_id(delivery))
    return Result(f"webhook delivery {d.id} queued again (webhook-id {d.webhook_id})", d)


@command(webhook, "rotate-secret")
@click.argument("subscription_id", metavar="ID", type=int)
@click.option(
    "--overlap-hours",
    type=click.IntRange(0, subscriptions.MAX_OVERLAP_HOURS),
    default=subscriptions.DEFAULT_OVERLAP_HOURS,
    show_default=True,
    help="Hours the old secret still signs beside the new one (0-168), then it is erased.",
)
async def rotate_secret(subscription_id: int, overlap_hours: int) -> Result:
    """Give a subscription a new signing secret; prints it once (hand it to the receiver).
    ID: subscription id."""
    sub, secret = await subscriptions.rotate_secret(subscription_id, overlap_hours)
    until = sub["previous_secret_until"]
    human = f"webhook subscription {sub['id']}: new secret: {secret}\n" + (
        f"the old secret also signs until {moment(until)}, then it is erased"
        if until
        else "the old secret no longer signs"
    )
    return Result(human, {**sub, "secret": secret})


@command(webhook, "test")
@click.argument("subscription_id", metavar="ID", type=int)
async def send_test(subscription_id: int) -> Result:
    """Send a `webhook.test` event to one subscription, whatever its event filter; it is
    recorded as a delivery and does not change the failure count. ID: subscription id."""
    d = await subscriptions.send_test(subscription_id)
    return Result(
        f"test event queued as webhook delivery {d.id}, webhook-id {d.webhook_id} "
        f"(see: pressline webhook attempts {d.id})",
        d,
    )
