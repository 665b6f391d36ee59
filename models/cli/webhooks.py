"""`pressline webhook ...`: subscriptions, and inspecting and replaying their deliveries."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import Any

from models import subscriptions
from models.cli.output import Result, add_json_flag, timestamp

Handler = Callable[[argparse.Namespace], Awaitable[Result]]


def _state(sub: dict[str, Any]) -> str:
    if sub["is_active"]:
        return f"active, {sub['consecutive_failures']} consecutive failures"
    return f"inactive since {sub['deactivated_at']} ({sub['deactivated_reason']})"


async def create(args: argparse.Namespace) -> Result:
    sub, secret = await subscriptions.create(args.workspace, args.url, args.events, args.customer)
    scope = f", customer {sub['customer']}" if sub["customer"] else ""
    human = (
        f"webhook subscription {sub['id']} created: {sub['url']} ({sub['events']}{scope})\n"
        f"secret: {secret}"
    )
    return Result(human, {**sub, "secret": secret})


async def list_subscriptions(args: argparse.Namespace) -> Result:
    subs = await subscriptions.list_for_workspace(args.workspace)
    lines = [f"{s['id']}  {s['url']}  events={s['events']}  {_state(s)}" for s in subs]
    return Result("\n".join(lines) or "no webhook subscriptions", {"subscriptions": subs})


async def enable(args: argparse.Namespace) -> Result:
    sub = await subscriptions.enable(args.id, args.requeue_since)
    human = f"webhook subscription {sub['id']} enabled"
    if args.requeue_since is not None:
        human += f"; {sub['requeued']} failed or skipped deliveries queued again"
    return Result(human, sub)


async def disable(args: argparse.Namespace) -> Result:
    sub = await subscriptions.disable(args.id)
    return Result(f"webhook subscription {sub['id']} disabled", sub)


def _delivery_line(d: dict[str, Any]) -> str:
    line = f"{d['id']}  {d['event']}  {d['status']}  attempts={d['attempts']}"
    if d["status"] == "pending":
        line += f"  next={d['next_attempt_at']}"
    if d["last_error"]:
        line += f"  last={d['last_error']}"
    elif d["last_status_code"] is not None:
        line += f"  last=HTTP {d['last_status_code']}"
    return line


async def deliveries(args: argparse.Namespace) -> Result:
    rows = await subscriptions.deliveries(args.id, args.limit)
    human = "\n".join(_delivery_line(d) for d in rows) or "no deliveries"
    return Result(human, {"deliveries": rows})


def _attempt_line(a: dict[str, Any]) -> str:
    answer = a["error"] or f"HTTP {a['status_code']}"
    size = f"{a['response_length']} bytes" + (" (truncated)" if a["response_truncated"] else "")
    return f"#{a['number']}  {a['started_at']}  {a['duration_ms']} ms  {answer}  body {size}"


async def attempts(args: argparse.Namespace) -> Result:
    rows = await subscriptions.attempts(args.delivery)
    human = "\n".join(_attempt_line(a) for a in rows) or "no attempts yet"
    return Result(human, {"attempts": rows})


async def redeliver(args: argparse.Namespace) -> Result:
    d = await subscriptions.redeliver(args.delivery)
    human = f"webhook delivery {d['id']} queued again"
    if not d["subscription_active"]:
        human += f" (subscription {d['subscription']} is inactive: enable it to send)"
    return Result(human, d)


def _command(sub: Any, name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help_text)
    add_json_flag(parser)
    parser.set_defaults(handler=handler)
    return parser


def register(sub: Any) -> None:
    group = sub.add_parser("webhook", help="webhook subscriptions and deliveries")
    commands = group.add_subparsers(dest="webhook_command", required=True, metavar="ACTION")

    p = _command(commands, "create", create, "subscribe a URL; prints the signing secret")
    p.add_argument("--workspace", type=int, required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--events", default="*", help="'*' or a comma-separated list of event names")
    p.add_argument("--customer", type=int, help="only this customer's events")

    p = _command(commands, "list", list_subscriptions, "a workspace's subscriptions")
    p.add_argument("--workspace", type=int, required=True)

    p = _command(commands, "enable", enable, "re-activate (resets the failure count)")
    p.add_argument("id", type=int)
    p.add_argument(
        "--requeue-since",
        type=timestamp,
        metavar="ISO",
        help="also queue again the failed and skipped deliveries created since then",
    )

    p = _command(commands, "disable", disable, "stop sending; new events are kept as skipped")
    p.add_argument("id", type=int)

    p = _command(commands, "deliveries", deliveries, "a subscription's latest deliveries")
    p.add_argument("id", type=int)
    p.add_argument("--limit", type=int, default=50)

    p = _command(commands, "attempts", attempts, "every attempt of one delivery")
    p.add_argument("delivery", type=int)

    p = _command(commands, "redeliver", redeliver, "queue one delivery again")
    p.add_argument("delivery", type=int)
