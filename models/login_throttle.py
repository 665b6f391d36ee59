"""Admin login throttling: at most 10 checked attempts per email and 30 per
client address within 15 minutes.

An attempt is counted before its password is checked: `reserve` inserts its row in the same
statement that counts the window's rows, and inserts nothing once either count is full. So
however many guesses arrive at once, no more than the limit get as far as the password
check; a login that succeeds gives its row back (`release`), so only failures stay counted.
The rows are in the database, so every web process counts the same ones.

Counting and inserting in one statement is not enough on its own under PostgreSQL's read
committed isolation (two statements can count the same snapshot), so the reservation first
takes a transaction-scoped advisory lock per email and per address; SQLite's write
transaction (BEGIN IMMEDIATE) already serialises writers across processes.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib

from models import clock, db, emails, statements
from models.tables import FailedLogin

MAX_PER_EMAIL = 10
MAX_PER_ADDRESS = 30
WINDOW = dt.timedelta(minutes=15)


@dataclasses.dataclass(frozen=True)
class Refusal:
    """Why an attempt was not allowed, and how long until it may be: `by` is "email" or
    "address"."""

    by: str
    wait: dt.timedelta


def email_key(email: str) -> str:
    # One counter per address as logging in finds users (models/emails.py). NUL cannot be
    # stored in PostgreSQL text, and an overlong email is still one email.
    return emails.key(email.strip()).replace("\x00", "")[:254]


def address_key(address: str) -> str:
    return address.replace("\x00", "")[:64]


def _lock_id(kind: str, key: str) -> int:
    """A signed 64-bit advisory lock number for one email or address."""
    raw = hashlib.sha256(f"pressline:login:{kind}:{key}".encode()).digest()[:8]
    return int.from_bytes(raw, "big", signed=True)


_LOCK = statements.Sql("SELECT pg_advisory_xact_lock($1), pg_advisory_xact_lock($2)")

_RESERVE = statements.Sql(
    """
    INSERT INTO failed_logins (email, address, at)
    SELECT CAST($1 AS VARCHAR(254)), CAST($2 AS VARCHAR(64)), $3
    WHERE (SELECT count(*) FROM failed_logins WHERE email = $1 AND at > $4) < $5
      AND (SELECT count(*) FROM failed_logins WHERE address = $2 AND at > $4) < $6
    RETURNING id
    """
)

# The oldest of the newest `limit` attempts in the window: the wait ends when it leaves it.
_OLDEST_BY_EMAIL = statements.Sql(
    """
    SELECT at FROM failed_logins WHERE email = $1 AND at > $2
    ORDER BY at DESC LIMIT 1 OFFSET $3
    """
)
_OLDEST_BY_ADDRESS = statements.Sql(
    """
    SELECT at FROM failed_logins WHERE address = $1 AND at > $2
    ORDER BY at DESC LIMIT 1 OFFSET $3
    """
)


async def reserve(email: str, address: str, now: dt.datetime | None = None) -> int | Refusal:
    """Count one attempt for `email` from `address` before its password is checked: the
    reservation's id, or the Refusal when the email or the address used up its window."""
    now = now or clock.now()
    email, address = email_key(email), address_key(address)
    since = now - WINDOW

    async def write() -> int | Refusal:
        async with statements.connection() as conn:
            if db.is_postgres():
                first, second = sorted((_lock_id("email", email), _lock_id("address", address)))
                await conn.row(_LOCK, first, second)
            row = await conn.row(
                _RESERVE, email, address, now, since, MAX_PER_EMAIL, MAX_PER_ADDRESS
            )
            if row is not None:
                return int(row[0])
            by_email = await conn.row(_OLDEST_BY_EMAIL, email, since, MAX_PER_EMAIL - 1)
            by_address = await conn.row(_OLDEST_BY_ADDRESS, address, since, MAX_PER_ADDRESS - 1)
            waits = [
                Refusal(by, max(statements.when(found[0]) + WINDOW - now, dt.timedelta(seconds=1)))
                for by, found in (("email", by_email), ("address", by_address))
                if found is not None
            ]
            # Both may be full: the caller must wait for the later of the two.
            return max(waits, key=lambda refusal: refusal.wait, default=Refusal("email", WINDOW))

    return await db.atomic(write)


async def release(reservation: int) -> None:
    """A login that succeeded: its attempt no longer counts."""
    await FailedLogin.delete().where(FailedLogin.id == reservation)


async def attempts(email: str, now: dt.datetime | None = None) -> int:
    """Attempts counted against `email` in the window (checked and failed, or in flight)."""
    now = now or clock.now()
    return await FailedLogin.count().where(
        (FailedLogin.email == email_key(email)) & (FailedLogin.at > now - WINDOW)
    )


async def delete_expired(now: dt.datetime | None = None) -> int:
    """Housekeeping: attempts older than the window no longer count for anyone."""
    now = now or clock.now()
    gone = (
        await FailedLogin.delete().where(FailedLogin.at <= now - WINDOW).returning(FailedLogin.id)
    )
    return len(gone)
