"""`pressline user create|list|deactivate|activate|set-password`: a workspace's people, whose
tokens call the API and who log in to the admin."""

from __future__ import annotations

import sys

import click

from cli.output import CommandError, Result, command, moment
from models import members


@click.group()
def user() -> None:
    """Add, list and (de)activate users; set their admin passwords."""


def _line(member: members.Member) -> str:
    state = "active" if member.is_active else f"deactivated {moment(member.deactivated_at)}"
    return (
        f"{member.id}  workspace {member.workspace_id}  {member.name} <{member.email}>"
        f"  {member.role}  {state}"
    )


@command(user, "create")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
@click.option("--name", required=True, help="The person's name.")
@click.option("--email", required=True, help="Email address, unique in the workspace.")
@click.option(
    "--role",
    type=click.Choice(members.ROLES),
    help="Admin role; default: owner for a workspace's first user, staff after that.",
)
async def create(workspace: int, name: str, email: str, role: str | None) -> Result:
    """Add a user to a workspace (prints its id)."""
    member = await members.add_member(workspace_id=workspace, name=name, email=email, role=role)
    return Result(
        f"created user {member.id} {member.name} <{member.email}> in workspace "
        f"{member.workspace_id}",
        member,
    )


@command(user, "list")
@click.option("--workspace", type=int, help="Only this workspace's users (default: all).")
async def list_users(workspace: int | None) -> Result:
    """Users with their workspace, role and state, by workspace and name."""
    rows = await members.list_members(workspace)
    return Result("\n".join(_line(m) for m in rows) or "no users", {"users": rows})


@command(user, "deactivate")
@click.argument("user_id", metavar="ID", type=int)
async def deactivate(user_id: int) -> Result:
    """Block a user: their tokens answer 403 and their admin sessions end. ID: user id."""
    member = await members.set_user_active(user_id, False)
    return Result(
        f"user {member.id} deactivated: their tokens answer 403 until reactivated", member
    )


@command(user, "activate")
@click.argument("user_id", metavar="ID", type=int)
async def activate(user_id: int) -> Result:
    """Restore a deactivated user's access. ID: user id."""
    member = await members.set_user_active(user_id, True)
    return Result(f"user {member.id} active", member)


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        text = sys.stdin.read()
        # One trailing line break is the end of the input, not part of the password.
        return text.removesuffix("\n").removesuffix("\r")
    try:
        return str(click.prompt("New password", hide_input=True, confirmation_prompt=True))
    except click.Abort:
        raise CommandError("no password given") from None


@command(user, "set-password")
@click.argument("user_id", metavar="ID", type=int)
@click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the password from standard input instead of a hidden prompt.",
)
async def set_password(user_id: int, password_stdin: bool) -> Result:
    """Set a user's admin password (at least 12 characters); their admin sessions end.
    ID: user id."""
    member = await members.set_password(user_id, _read_password(password_stdin))
    return Result(f"password set for user {member.id} <{member.email}>", member)
