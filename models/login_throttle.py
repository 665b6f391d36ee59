"""Admin login throttling: after 10 failed logins for one email within 15 minutes, that email
is refused until the oldest of those failures is 15 minutes old. Failures are rows in the
database, so every web process counts the same ones."""

from __future__ import annotations

import datetime as dt

from models import clock, statements
from models.tables import FailedLogin

MAX_FAILURES = 10
WINDOW = dt.timedelta(minutes=15)


def _key(email: str) -> str:
    # NUL cannot be stored in PostgreSQL text, and an overlong email is still one email.
    return email.strip().lower().replace("\x00", "")[:254]


async def wait(email: str, now: dt.datetime | None = None) -> dt.timedelta | None:
    """How long `email` must wait before its next try, or None when it may try now."""
    now = now or clock.now()
    rows = (
        await FailedLogin.select(FailedLogin.at)
        .where((FailedLogin.email == _key(email)) & (FailedLogin.at > now - WINDOW))
        .order_by(FailedLogin.at, ascending=False)
        .limit(MAX_FAILURES)
    )
    if len(rows) < MAX_FAILURES:
        return None
    oldest = statements.when(rows[-1]["at"])
    return max(oldest + WINDOW - now, dt.timedelta(seconds=1))


async def record_failure(email: str, now: dt.datetime | None = None) -> None:
    """Count one failure; failures older than the window are of no use, so they go now."""
    now = now or clock.now()
    key = _key(email)
    await FailedLogin.delete().where((FailedLogin.email == key) & (FailedLogin.at <= now - WINDOW))
    await FailedLogin(email=key, at=now).save()


async def clear(email: str) -> None:
    """A successful login starts the count again."""
    await FailedLogin.delete().where(FailedLogin.email == _key(email))


async def delete_expired(now: dt.datetime | None = None) -> int:
    """Housekeeping: failures older than the window no longer count for any email."""
    now = now or clock.now()
    gone = (
        await FailedLogin.delete().where(FailedLogin.at <= now - WINDOW).returning(FailedLogin.id)
    )
    return len(gone)
