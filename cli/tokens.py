"""`pressline token create|list|revoke`: personal access tokens, shown once at creation."""

from __future__ import annotations

import datetime as dt

import click

from cli.output import TIMESTAMP, Result, command, moment
from models import accounts


def _one_expiry(ctx: click.Context, param: click.Parameter, value: object) -> object:
    given = {"expires_in_days", "expires_at"} - {param.name}
    if value is not None and any(ctx.params.get(name) is not None for name in given):
        raise click.UsageError("give --expires-in-days or --expires-at, not both", ctx)
    return value


@click.group()
def token() -> None:
    """Issue, list and revoke API tokens."""


@command(token, "create")
@click.option("--user", type=int, required=True, help="User id (must be active).")
@click.option("--name", default="", help="A label, e.g. 'shopify sync'.")
@click.option(
    "--expires-in-days",
    type=int,
    metavar="D",
    callback=_one_expiry,
    help="Lifetime in days, 1-3650 (default 365).",
)
@click.option(
    "--expires-at",
    type=TIMESTAMP,
    callback=_one_expiry,
    help="Exact expiry, ISO 8601; UTC when it has no offset.",
)
async def create(
    user: int, name: str, expires_in_days: int | None, expires_at: dt.datetime | None
) -> Result:
    """Issue a token (printed once: store it)."""
    row, secret = await accounts.issue_token(
        user_id=user, name=name, expires_in_days=expires_in_days, expires_at=expires_at
    )
    data = {**accounts.token_data(row), "token": secret}
    return Result(
        f"created token {row.id} for user {row.user}, expires {moment(data['expires_at'])}\n"
        f"{secret}\n(shown once: store it now)",
        data,
    )


@command(token, "list")
@click.option("--user", type=int, required=True, help="User id.")
async def list_tokens(user: int) -> Result:
    """A user's tokens: prefix, times and state, never the token itself."""
    rows = await accounts.list_tokens(user)
    lines = [f"{len(rows)} token(s) of user {user}"]
    for row in rows:
        state = f"revoked {moment(row['revoked_at'])}" if row["revoked_at"] else "live"
        lines.append(
            f"  {row['id']}  {row['prefix']}…  {row['name'] or '-'}"
            f"  created {moment(row['created_at'])}  expires {moment(row['expires_at'])}  {state}"
        )
    return Result("\n".join(lines), {"user_id": user, "tokens": rows})


@command(token, "revoke")
@click.argument("token_id", metavar="ID", type=int)
async def revoke(token_id: int) -> Result:
    """Revoke a token: it answers 401 from the next request. ID: token id."""
    row, changed = await accounts.revoke_token(token_id)
    data = {**accounts.token_data(row), "revoked_now": changed}
    if changed:
        return Result(f"token {row.id} revoked: it now answers 401", data)
    return Result(f"token {row.id} was already revoked at {moment(data['revoked_at'])}", data)
