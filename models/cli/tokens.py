"""`pressline token create|list|revoke`: personal access tokens, shown once at creation."""

from __future__ import annotations

import argparse
from typing import Any

from models import accounts
from models.cli.output import Result, add_json_flag, timestamp


async def create(args: argparse.Namespace) -> Result:
    row, token = await accounts.issue_token(
        user_id=args.user,
        name=args.name,
        expires_in_days=args.expires_in_days,
        expires_at=args.expires_at,
    )
    data = {**accounts.token_data(row), "token": token}
    return Result(
        f"created token {row.id} for user {row.user}, expires {data['expires_at']}\n"
        f"{token}\n(shown once: store it now)",
        data,
    )


async def list_tokens(args: argparse.Namespace) -> Result:
    rows = await accounts.list_tokens(args.user)
    lines = [f"{len(rows)} token(s) of user {args.user}"]
    for row in rows:
        state = f"revoked {row['revoked_at']}" if row["revoked_at"] else "live"
        lines.append(
            f"  {row['id']}  {row['prefix']}…  {row['name'] or '-'}  created {row['created_at']}"
            f"  expires {row['expires_at']}  {state}"
        )
    return Result("\n".join(lines), {"user_id": args.user, "tokens": rows})


async def revoke(args: argparse.Namespace) -> Result:
    row, changed = await accounts.revoke_token(args.id)
    data = {**accounts.token_data(row), "revoked_now": changed}
    if changed:
        return Result(f"token {row.id} revoked: it now answers 401", data)
    return Result(f"token {row.id} was already revoked at {data['revoked_at']}", data)


def register(sub: Any) -> None:
    group = sub.add_parser("token", help="API tokens")
    commands = group.add_subparsers(dest="action", required=True, metavar="ACTION")

    parser = commands.add_parser("create", help="issue a token (printed once)")
    parser.add_argument("--user", type=int, required=True, help="user id")
    parser.add_argument("--name", default="", help="a label, e.g. 'shopify sync'")
    expiry = parser.add_mutually_exclusive_group()
    expiry.add_argument("--expires-in-days", type=int, metavar="D", help="default 365")
    expiry.add_argument("--expires-at", type=timestamp, metavar="ISO", help="UTC if no offset")
    add_json_flag(parser)
    parser.set_defaults(handler=create)

    parser = commands.add_parser("list", help="a user's tokens (never the token itself)")
    parser.add_argument("--user", type=int, required=True, help="user id")
    add_json_flag(parser)
    parser.set_defaults(handler=list_tokens)

    parser = commands.add_parser("revoke", help="revoke a token (answers 401 from now on)")
    parser.add_argument("id", type=int, metavar="ID", help="token id")
    add_json_flag(parser)
    parser.set_defaults(handler=revoke)
