"""`pressline user create|deactivate|activate`: the staff whose tokens call the API."""

from __future__ import annotations

import argparse
from typing import Any

from models import accounts
from models.cli.output import Result, add_json_flag


async def create(args: argparse.Namespace) -> Result:
    row = await accounts.create_user(workspace_id=args.workspace, name=args.name, email=args.email)
    return Result(
        f"created user {row.id} {row.name} <{row.email}> in workspace {row.workspace}",
        accounts.user_data(row),
    )


async def deactivate(args: argparse.Namespace) -> Result:
    row = await accounts.set_user_active(args.id, False)
    return Result(
        f"user {row.id} deactivated: their tokens answer 403 until reactivated",
        accounts.user_data(row),
    )


async def activate(args: argparse.Namespace) -> Result:
    row = await accounts.set_user_active(args.id, True)
    return Result(f"user {row.id} active", accounts.user_data(row))


def register(sub: Any) -> None:
    group = sub.add_parser("user", help="manage a workspace's users")
    commands = group.add_subparsers(dest="action", required=True, metavar="ACTION")

    parser = commands.add_parser("create", help="add a user to a workspace (prints its id)")
    parser.add_argument("--workspace", type=int, required=True, help="workspace id")
    parser.add_argument("--name", required=True)
    parser.add_argument("--email", required=True)
    add_json_flag(parser)
    parser.set_defaults(handler=create)

    for name, handler, text in (
        ("deactivate", deactivate, "block a user's API access (403)"),
        ("activate", activate, "restore a deactivated user's API access"),
    ):
        parser = commands.add_parser(name, help=text)
        parser.add_argument("id", type=int, metavar="ID", help="user id")
        add_json_flag(parser)
        parser.set_defaults(handler=handler)
