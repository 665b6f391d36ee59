"""`pressline workspace create|set`: tenants, their plan, trial and order-flow settings."""

from __future__ import annotations

import argparse
from decimal import Decimal
from typing import Any

from models import accounts
from models.cli.output import Result, add_json_flag, on_off
from models.tables import Workspace

NONE_WORDS = ("none", "default")


def limit_or_none(value: str) -> int | None:
    """`--open-order-limit`: a whole number, or `none` to fall back to the plan's figure."""
    if value.strip().lower() in NONE_WORDS:
        return None
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a whole number or 'none'") from None


def _describe(row: Workspace) -> str:
    data = accounts.workspace_data(row)
    plan = data["plan"]
    if data["effective_plan"] != plan:
        plan += f", trial as {data['effective_plan']} until {data['trial_ends_at']}"
    limit = data["open_order_limit"]
    return (
        f"workspace {row.id} {row.name!r}: plan {plan}; {data['currency']}, "
        f"tax {data['tax_rate']}%, {data['timezone']}; open-order limit "
        f"{'plan default' if limit is None else limit}; artwork approval "
        f"{'on' if data['require_artwork_approval'] else 'off'}; strict sequence "
        f"{'on' if data['strict_sequence'] else 'off'}"
    )


async def create(args: argparse.Namespace) -> Result:
    row = await accounts.create_workspace(
        name=args.name,
        plan=args.plan,
        currency=args.currency,
        tax_rate=args.tax_rate,
        timezone=args.timezone,
        open_order_limit=args.open_order_limit,
        trial_days=args.trial_days,
    )
    return Result(f"created {_describe(row)}", accounts.workspace_data(row))


async def update(args: argparse.Namespace) -> Result:
    changes: dict[str, Any] = {
        "plan": args.plan,
        "require_artwork_approval": args.require_artwork_approval,
        "strict_sequence": args.strict_sequence,
    }
    if args.open_order_limit is not accounts.KEEP:
        changes["open_order_limit"] = args.open_order_limit
    row = await accounts.set_workspace(args.id, **changes)
    return Result(f"updated {_describe(row)}", accounts.workspace_data(row))


def register(sub: Any) -> None:
    group = sub.add_parser("workspace", help="create and configure workspaces")
    commands = group.add_subparsers(dest="action", required=True, metavar="ACTION")

    parser = commands.add_parser("create", help="create a workspace (prints its id)")
    parser.add_argument("--name", required=True)
    parser.add_argument("--plan", default="starter", help="starter|standard|premium|enterprise")
    parser.add_argument("--currency", default="GBP", help="three-letter code (default GBP)")
    parser.add_argument("--tax-rate", type=Decimal, default=Decimal(20), help="percent, 0-100")
    parser.add_argument("--timezone", default="Europe/London", help="IANA zone name")
    parser.add_argument("--open-order-limit", type=int, help="override the plan's figure")
    parser.add_argument("--trial-days", type=int, help="premium trial for N days")
    add_json_flag(parser)
    parser.set_defaults(handler=create)

    parser = commands.add_parser("set", help="change a workspace's plan or settings")
    parser.add_argument("--id", type=int, required=True, help="workspace id")
    parser.add_argument("--plan", help="starter|standard|premium|enterprise")
    parser.add_argument(
        "--open-order-limit",
        type=limit_or_none,
        default=accounts.KEEP,
        metavar="N|none",
        help="override the plan's open-order limit; 'none' removes the override",
    )
    parser.add_argument("--require-artwork-approval", type=on_off, metavar="on|off")
    parser.add_argument("--strict-sequence", type=on_off, metavar="on|off")
    add_json_flag(parser)
    parser.set_defaults(handler=update)
