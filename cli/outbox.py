"""`pressline outbox stats`: how far behind webhook delivery is, across the deployment."""

from __future__ import annotations

import click

from cli.output import Result, command
from models.webhooks.stats import outbox_stats


@click.group()
def outbox() -> None:
    """The webhook outbox (deliveries waiting to be sent)."""


@command(outbox, "stats")
async def stats() -> Result:
    """Pending deliveries, the oldest one's age, attempts and failures in the last 5
    minutes, and deactivated subscriptions (the figures /metrics exports)."""
    s = await outbox_stats()
    human = (
        f"pending deliveries: {s.pending}\n"
        f"oldest pending: {s.oldest_pending_age_seconds:.0f} s\n"
        f"attempts in the last 5 min: {s.attempts_recent} ({s.failed_attempts_recent} failed)\n"
        f"subscriptions: {s.active_subscriptions} active,"
        f" {s.deactivated_subscriptions} deactivated or disabled"
    )
    return Result(human, s)
