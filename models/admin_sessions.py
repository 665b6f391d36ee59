"""Admin sessions: a random id in the browser's cookie, only its SHA-256 digest stored. Every
request looks the session up again with its user and workspace, so a deactivated user or an
expired session is logged out on the next click, whichever web process answers."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

import msgspec

from models import clock, plans, statements
from models.tables import AdminSession, User

IDLE = dt.timedelta(hours=12)
ABSOLUTE = dt.timedelta(days=7)
TOUCH_EVERY = dt.timedelta(minutes=1)  # last_seen_at is written at most this often
ROLES = ("owner", "staff")


class AdminUser(msgspec.Struct, frozen=True):
    """Who is using the admin, and the one workspace every page is scoped to."""

    session_id: int
    user_id: int
    name: str
    email: str
    role: str
    workspace_id: int
    workspace_name: str
    timezone: str
    currency: str  # what its money fields are typed in (models/money.py)
    plan: str  # the effective plan (a trial counts as premium)

    @property
    def is_owner(self) -> bool:
        return self.role == "owner"


def digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8", "surrogateescape")).hexdigest()


async def create(user_id: int, workspace_id: int, now: dt.datetime | None = None) -> str:
    """A new session for a user who just proved their password; returns the cookie's value."""
    now = now or clock.now()
    clear = secrets.token_urlsafe(32)  # 256 bits
    await AdminSession(
        digest=digest(clear),
        user=user_id,
        workspace=workspace_id,
        created_at=now,
        last_seen_at=now,
        expires_at=now + ABSOLUTE,
    ).save()
    return clear


_COLUMNS = (
    AdminSession.id,
    AdminSession.last_seen_at,
    AdminSession.expires_at,
    AdminSession.workspace,
    AdminSession.user.id,
    AdminSession.user.name,
    AdminSession.user.email,
    AdminSession.user.role,
    AdminSession.user.is_active,
    AdminSession.user.workspace,
    AdminSession.workspace.name,
    AdminSession.workspace.timezone,
    AdminSession.workspace.currency,
    AdminSession.workspace.plan,
    AdminSession.workspace.trial_ends_at,
)


def _good(row: dict[str, Any], now: dt.datetime) -> bool:
    """Not expired, not idle past IDLE, and its user active and still in its workspace."""
    return bool(
        statements.when(row["expires_at"]) > now
        and statements.when(row["last_seen_at"]) + IDLE > now
        and row["user.is_active"]
        and row["user.workspace"] == row["workspace"]
    )


async def still_good(session_pk: int) -> bool:
    """Whether the session (by its row id) is still good, read without touching it: an open
    live stream must not keep an idle session alive."""
    rows = await AdminSession.select(
        AdminSession.expires_at,
        AdminSession.last_seen_at,
        AdminSession.workspace,
        AdminSession.user.is_active,
        AdminSession.user.workspace,
    ).where(AdminSession.id == session_pk)
    return bool(rows) and _good(rows[0], clock.now())


async def lookup(session_id: str, now: dt.datetime | None = None) -> AdminUser | None:
    """The session's user if it is still good; an expired session or one whose user was
    deactivated (or moved) is deleted, so it cannot come back."""
    if not session_id or len(session_id) > 200:
        return None
    now = now or clock.now()
    rows = await AdminSession.select(*_COLUMNS).where(AdminSession.digest == digest(session_id))
    if not rows:
        return None
    row = rows[0]
    if not _good(row, now):
        await AdminSession.delete().where(AdminSession.id == row["id"])
        return None
    last_seen = statements.when(row["last_seen_at"])
    if now - last_seen >= TOUCH_EVERY:
        await AdminSession.update({AdminSession.last_seen_at: now}).where(
            AdminSession.id == row["id"]
        )
    trial = row["workspace.trial_ends_at"]
    return AdminUser(
        session_id=row["id"],
        user_id=row["user.id"],
        name=row["user.name"],
        email=row["user.email"],
        role=row["user.role"],
        workspace_id=row["workspace"],
        workspace_name=row["workspace.name"],
        timezone=row["workspace.timezone"],
        currency=row["workspace.currency"],
        plan=plans.effective_plan(
            row["workspace.plan"], None if trial is None else statements.when(trial), now
        ),
    )


async def delete(session_id: str) -> None:
    """Logout: the session is gone, whatever cookie copies remain."""
    await AdminSession.delete().where(AdminSession.digest == digest(session_id))


async def end_for_user(user_id: int, *, keep: int | None = None) -> None:
    """Every session of a user ends (deactivation, a new password), except `keep` (the
    session id of a user who changed their own password in it)."""
    query = AdminSession.delete().where(AdminSession.user == user_id)
    if keep is not None:
        query = query.where(AdminSession.id != keep)
    await query


async def delete_expired(now: dt.datetime | None = None) -> int:
    """Housekeeping: sessions past either expiry."""
    now = now or clock.now()
    gone = (
        await AdminSession.delete()
        .where((AdminSession.expires_at <= now) | (AdminSession.last_seen_at <= now - IDLE))
        .returning(AdminSession.id)
    )
    return len(gone)


async def csrf_key() -> str:
    """The key signing the admin's CSRF tokens, shared by every web process through the
    database: made once, on first use, by whichever process comes first."""
    await User.raw(
        "INSERT INTO admin_keys (name, value) VALUES ('csrf', {}) ON CONFLICT (name) DO NOTHING",
        secrets.token_hex(32),
    )
    rows = await User.raw("SELECT value FROM admin_keys WHERE name = 'csrf'")
    return str(rows[0]["value"])
