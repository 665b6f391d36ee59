"""The admin's people rules: roles, passwords, and the last active owner who must remain.

The command line (`pressline user ...`) and the admin's staff page call these same functions.
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec

from models import accounts, admin_sessions, clock, db, passwords, statements
from models.errors import InvalidFields, NotFoundError, RuleRefused
from models.filters import MAX_ID
from models.tables import User

ROLES = ("owner", "staff")
LAST_OWNER = "A workspace needs at least one active owner; make another member an owner first."


class Member(msgspec.Struct, frozen=True):
    """A user as the command line and the admin show one (timestamps in the API's form)."""

    id: int
    workspace_id: int
    name: str
    email: str
    role: str
    is_active: bool
    deactivated_at: str | None
    created_at: str


_COLUMNS = (
    User.id,
    User.workspace,
    User.name,
    User.email,
    User.role,
    User.is_active,
    User.deactivated_at,
    User.created_at,
)


def _member(row: dict[str, Any]) -> Member:
    return Member(
        id=row["id"],
        workspace_id=row["workspace"],
        name=row["name"],
        email=row["email"],
        role=row["role"],
        is_active=bool(row["is_active"]),
        deactivated_at=statements.iso_or_none(row["deactivated_at"]),
        created_at=statements.iso(row["created_at"]),
    )


async def get_member(user_id: int) -> Member:
    row = None
    if 0 < user_id <= MAX_ID:
        row = await User.select(*_COLUMNS).where(User.id == user_id).first()
    if row is None:
        raise NotFoundError(f"user {user_id} not found")
    return _member(row)


async def list_members(workspace_id: int | None = None) -> list[Member]:
    """One workspace's members (the admin's staff page), or every user of the deployment
    (`pressline user list`), by workspace, then name."""
    query = User.select(*_COLUMNS)
    if workspace_id is not None:
        await accounts.get_workspace(workspace_id)
        query = query.where(User.workspace == workspace_id)
    rows = await query.order_by(User.workspace).order_by(User.name).order_by(User.id)
    return [_member(row) for row in rows]


def check_role(role: str) -> str:
    if role not in ROLES:
        raise InvalidFields({"role": [f"must be one of {', '.join(ROLES)}"]})
    return role


async def default_role(workspace_id: int) -> str:
    """The first user of a workspace is its owner; later ones are staff unless told."""
    return "staff" if await User.exists().where(User.workspace == workspace_id) else "owner"


async def ensure_other_owner(user_id: int, workspace_id: int) -> None:
    """RuleRefused unless an active owner other than `user_id` remains in the workspace.
    Called inside the caller's transaction, before demoting or deactivating an owner."""
    others = await User.exists().where(
        (User.workspace == workspace_id)
        & (User.id != user_id)
        & (User.role == "owner")
        & (User.is_active == True)  # noqa: E712 - SQL
    )
    if not others:
        raise RuleRefused(LAST_OWNER)


async def set_role(user_id: int, role: str) -> Member:
    """Make a member owner or staff; the last active owner cannot become staff."""
    check_role(role)

    async def write() -> Member:
        member = await get_member(user_id)
        if member.role == role:
            return member
        if member.role == "owner" and member.is_active:
            await ensure_other_owner(member.id, member.workspace_id)
        await User.update({User.role: role, User.updated_at: clock.now()}).where(User.id == user_id)
        return await get_member(user_id)

    return await db.atomic(write)


async def set_password(
    user_id: int, password: str, *, field: str = "password", keep_session: int | None = None
) -> Member:
    """A new admin password (at least 12 characters; InvalidFields names `field`); the
    member's open sessions end, except `keep_session` (the one they changed it in)."""
    passwords.check(password, field)
    hashed = await asyncio.to_thread(passwords.hash_password, password)
    member = await get_member(user_id)

    async def write() -> Member:
        await User.update({User.password_hash: hashed, User.updated_at: clock.now()}).where(
            User.id == user_id
        )
        await admin_sessions.end_for_user(user_id, keep=keep_session)
        return member

    return await db.atomic(write)


WRONG_CURRENT = "is not your current password"


async def change_own_password(
    *, user_id: int, session_id: int, current: str, new: str, confirm: str
) -> Member:
    """A member's own change in the admin: the current password must match, the new one is
    typed twice; their other sessions end, the one they are using stays."""
    rows = await User.select(User.password_hash).where(User.id == user_id)
    stored = rows[0]["password_hash"] if rows else None
    errors: dict[str, list[str]] = {}
    if not await asyncio.to_thread(passwords.verify, stored, current):
        errors["current_password"] = [WRONG_CURRENT]
    try:
        passwords.check(new, "new_password")
    except InvalidFields as invalid:
        errors.update(invalid.errors)
    if new != confirm:
        errors.setdefault("confirm_password", []).append("does not match the new password")
    if errors:
        raise InvalidFields(errors)
    return await set_password(user_id, new, field="new_password", keep_session=session_id)


async def set_active(user_id: int, active: bool) -> Member:
    """(De)activate a member from the admin: `set_user_active` (as the command line
    does), except that the workspace's last active owner stays. Operators of the deployment
    may still deactivate anyone with `pressline user deactivate`."""

    async def write() -> Member:
        member = await get_member(user_id)
        if not active and member.is_active and member.role == "owner":
            await ensure_other_owner(member.id, member.workspace_id)
        await set_user_active(user_id, active)
        return await get_member(user_id)

    return await db.atomic(write)


async def set_user_active(user_id: int, active: bool) -> Member:
    """(De)activate a user; a deactivated user's tokens answer 403 until reactivated and
    their admin sessions end (operators: `pressline user deactivate` / `activate`)."""

    async def write() -> Member:
        row = await accounts.get_user(user_id)
        if row.is_active != active:
            if not active:
                await admin_sessions.end_for_user(user_id)
            now = clock.now()
            await User.update(
                {
                    User.is_active: active,
                    User.deactivated_at: None if active else now,
                    User.updated_at: now,
                }
            ).where(User.id == user_id)
        return await get_member(user_id)

    return await db.atomic(write)


async def add_member(
    *,
    workspace_id: int,
    name: str,
    email: str,
    role: str | None = None,
    password: str | None = None,
) -> Member:
    """A new member with a role (by default: owner if first, else staff) and optionally an
    admin password; every problem with the input is refused at once, and nothing is kept."""
    errors: dict[str, list[str]] = {}
    hashed = None
    try:
        if role is not None:
            check_role(role)
    except InvalidFields as invalid:
        errors.update(invalid.errors)
    try:
        if password is not None:
            passwords.check(password)
    except InvalidFields as invalid:
        errors.update(invalid.errors)
    if password is not None and not errors:
        hashed = await asyncio.to_thread(passwords.hash_password, password)

    async def write() -> Member:
        chosen = role or await default_role(workspace_id)
        try:
            created = await accounts.create_user(workspace_id=workspace_id, name=name, email=email)
        except InvalidFields as invalid:
            raise InvalidFields({**invalid.errors, **errors}) from None
        if errors:
            raise InvalidFields(errors)  # leaves the transaction: the user is not kept
        await User.update({User.role: chosen, User.password_hash: hashed}).where(
            User.id == created.id
        )
        return await get_member(created.id)

    return await db.atomic(write)
