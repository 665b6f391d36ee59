"""Admin login: the throttle's reservation, the password check and a new session, in that order;
a password hashed with older parameters is hashed again with the current ones as it logs in."""

from __future__ import annotations

import datetime as dt

from piccolo.query import WhereRaw

from models import admin_sessions, emails, login_throttle, passwords
from models.errors import DomainError
from models.login_throttle import Refusal
from models.tables import User

# The same words for an unknown email, a wrong password and a deactivated user: the answer
# never tells whoever is guessing that the password was right.
WRONG = "Wrong email or password."


class LoginRefused(DomainError):
    """The login is refused; `wait` is set when the email or the address is throttled, `busy`
    when the process has too many passwords to check (nothing was counted then)."""

    def __init__(
        self, message: str, wait: dt.timedelta | None = None, *, busy: bool = False
    ) -> None:
        super().__init__(message)
        self.wait = wait
        self.busy = busy


def _throttled(refusal: Refusal) -> LoginRefused:
    minutes = max(1, round(refusal.wait.total_seconds() / 60))
    whose = "this email" if refusal.by == "email" else "your network address"
    return LoginRefused(
        f"Too many failed logins for {whose}. Try again in {minutes} minute"
        f"{'s' if minutes != 1 else ''}.",
        refusal.wait,
    )


async def log_in(email: str, password: str, address: str = "") -> str:
    """The new session's cookie value for the right email and password, else LoginRefused.

    The attempt is counted (for the email and for the client `address`) before the password
    is checked, and given back only when the login succeeds. An email may belong to users of
    several workspaces: the first active one (by id) whose password matches is logged in. The
    email's ASCII letters match in any case, nothing else is folded (models/emails.py)."""
    email = email.strip()
    reservation = await login_throttle.reserve(email, address)
    if isinstance(reservation, Refusal):
        raise _throttled(reservation)
    users = (
        await User.select(User.id, User.workspace, User.is_active, User.password_hash)
        .where(WhereRaw(f"{emails.column_key('email')} = {{}}", emails.key(email)))
        .order_by(User.id)
        if email and len(email) <= 254 and "\x00" not in email
        else []
    )
    for user in users or [{"password_hash": None, "is_active": False}]:
        # A deactivated user's password is still checked, so the time taken tells nothing.
        stored = user["password_hash"]
        try:
            verdict = await passwords.check_login(stored, password, upgrade=user["is_active"])
        except passwords.Busy as busy:
            await login_throttle.release(reservation)  # not checked, so not counted
            raise LoginRefused(busy.message, busy=True) from None
        if verdict.right and user["is_active"]:
            if verdict.upgraded is not None:  # unless the password changed meanwhile
                await User.update({User.password_hash: verdict.upgraded}).where(
                    (User.id == user["id"]) & (User.password_hash == stored)
                )
            session = await admin_sessions.create(user["id"], user["workspace"])
            await login_throttle.release(reservation)
            return session
    raise LoginRefused(WRONG)
