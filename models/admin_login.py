"""Admin login: the throttle, the password check and a new session, in that order."""

from __future__ import annotations

import asyncio
import datetime as dt

from piccolo.query import WhereRaw

from models import admin_sessions, login_throttle, passwords
from models.errors import DomainError
from models.tables import User

WRONG = "Wrong email or password."  # the same words for an unknown email and a wrong password


class LoginRefused(DomainError):
    """The login is refused; `wait` is set when the email is throttled."""

    def __init__(self, message: str, wait: dt.timedelta | None = None) -> None:
        super().__init__(message)
        self.wait = wait


async def log_in(email: str, password: str) -> str:
    """The new session's cookie value for the right email and password, else LoginRefused.

    An email may belong to users of several workspaces: the first active one (by id) whose
    password matches is logged in."""
    email = email.strip()
    wait = await login_throttle.wait(email)
    if wait is not None:
        minutes = max(1, round(wait.total_seconds() / 60))
        raise LoginRefused(
            f"Too many failed logins for this email. Try again in {minutes} minute"
            f"{'s' if minutes != 1 else ''}.",
            wait,
        )
    users = (
        await User.select(User.id, User.workspace, User.is_active, User.password_hash)
        .where(WhereRaw("lower(email) = {}", email.lower()))
        .order_by(User.id)
        if email and len(email) <= 254 and "\x00" not in email
        else []
    )
    for user in users or [{"password_hash": None}]:
        if await asyncio.to_thread(passwords.verify, user["password_hash"], password):
            if not user["is_active"]:
                raise LoginRefused("This account is deactivated; ask an owner of your workspace.")
            await login_throttle.clear(email)
            return await admin_sessions.create(user["id"], user["workspace"])
    await login_throttle.record_failure(email)
    raise LoginRefused(WRONG)
