"""The sending queue: email rows claimed with a lease and their outcomes recorded.

Customer messages and staff notices carry the same sending columns, so each statement is
written once per table from one text. A claim is one short transaction that stamps
`lease_expires_at`/`leased_by` on up to `limit` due rows and returns what sending needs; no
transaction is held across the SMTP conversation. An outcome is written only while the
worker still holds the lease (`leased_by` and `lease_expires_at` unchanged, still queued), so
a worker whose lease ran out cannot overwrite what another worker recorded. The worker
records each message's outcome as its attempt ends, so a worker that dies lets its leases run
out and only what it had in flight is sent again: at least once across a crash, and never a
whole batch twice.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from models import db, statements
from models.mail.status import MessageStatus, Transport
from models.statements import Reader, Sql
from models.tables import CustomerMessage

TABLES = ("customer_messages", "staff_notices")


# A row to send at $1: queued, due, and not leased (or its lease lapsed).
_DUE = (
    "status = 'queued' AND next_attempt_at <= $1 "
    "AND (lease_expires_at IS NULL OR lease_expires_at < $1)"
)


def _claim(table: str) -> Sql:
    return Sql(
        f"""
        UPDATE {table} SET lease_expires_at = $3, leased_by = $4
        WHERE id IN (
            SELECT id FROM {table}
            WHERE {_DUE}
            ORDER BY next_attempt_at, id
            LIMIT $2
            FOR UPDATE SKIP LOCKED
        )
        RETURNING id, attempts, recipient, from_name, reply_to, message_id, subject, body,
                  body_html
        """  # noqa: S608  # the table is one of TABLES, never input
    )


# Only while the lease is still this worker's; the row comes back so a lost lease shows.
_HELD = (
    "WHERE id = $1 AND leased_by = $2 AND lease_expires_at = $3 AND status = 'queued' RETURNING id"
)


def _sent(table: str) -> Sql:
    return Sql(
        f"""
        UPDATE {table} SET status = 'sent', attempts = attempts + 1, reply = $4,
            transport = $5, sent_at = $6, updated_at = $6, lease_expires_at = NULL,
            leased_by = NULL
        {_HELD}
        """  # noqa: S608
    )


def _retry(table: str) -> Sql:
    return Sql(
        f"""
        UPDATE {table} SET attempts = attempts + 1, last_error = $4, next_attempt_at = $5,
            updated_at = $6, lease_expires_at = NULL, leased_by = NULL
        {_HELD}
        """  # noqa: S608
    )


def _failed(table: str) -> Sql:
    return Sql(
        f"""
        UPDATE {table} SET status = 'failed', attempts = attempts + 1, last_error = $4,
            updated_at = $5, lease_expires_at = NULL, leased_by = NULL
        {_HELD}
        """  # noqa: S608
    )


_STATEMENTS = {
    table: {
        "claim": _claim(table),
        "sent": _sent(table),
        "retry": _retry(table),
        "failed": _failed(table),
    }
    for table in TABLES
}


@dataclass(frozen=True, slots=True)
class Email:
    """One claimed row, held by this worker until `lease_expires_at`."""

    table: str
    id: int
    attempt: int  # the number of the attempt about to be made (1-based)
    lease_expires_at: dt.datetime
    recipient: str
    from_name: str
    reply_to: str
    message_id: str
    subject: str
    text: str
    html: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one attempt: `status` is SENT, FAILED, or QUEUED (to be retried at
    `retry_at`)."""

    email: Email
    status: MessageStatus
    reply: str | None = None  # the server's reply when sent
    transport: str | None = None
    error: str | None = None
    retry_at: dt.datetime | None = None


# Anything to send in either table: a plain read, so an idle poll opens no write transaction.
_ANY_DUE = " OR ".join(
    f"EXISTS (SELECT 1 FROM {table} WHERE {_DUE})"  # noqa: S608  # TABLES only, never input
    for table in TABLES
)
DUE = Sql(f"SELECT {_ANY_DUE}")


async def anything_due(now: dt.datetime) -> bool:
    """A plain read (the claims' index): an idle poll opens no write transaction."""
    async with statements.connection() as conn:
        row = await conn.row(DUE, now)
    return bool(row and row[0])


async def claim(*, worker: str, limit: int, now: dt.datetime, lease: float) -> list[Email]:
    """Lease up to `limit` due rows (customer messages first, then staff notices)."""
    expires = now + dt.timedelta(seconds=lease)

    async def write() -> list[Email]:
        claimed: list[Email] = []
        async with statements.connection() as conn:
            for table in TABLES:
                room = limit - len(claimed)
                if room <= 0:
                    break
                rows = await conn.rows(_STATEMENTS[table]["claim"], now, room, expires, worker)
                claimed += [
                    Email(
                        table=table,
                        id=row[0],
                        attempt=row[1] + 1,
                        lease_expires_at=expires,
                        recipient=row[2],
                        from_name=row[3],
                        reply_to=row[4],
                        message_id=row[5],
                        subject=row[6],
                        text=row[7],
                        html=row[8],
                    )
                    for row in rows
                ]
            return claimed

    return await db.atomic(write)


async def record(outcomes: Sequence[Outcome], *, worker: str, now: dt.datetime) -> int:
    """Write the outcomes (the worker gives one at a time, as each attempt ends); returns how
    many were still held (written). One outcome is one UPDATE, atomic on its own: on
    PostgreSQL it is sent without BEGIN/COMMIT around it (two round trips fewer a message);
    SQLite's statement connection is read-only, so there every write is a transaction."""
    if len(outcomes) == 1 and db.is_postgres():
        async with statements.connection() as conn:
            return await _write(conn, outcomes[0], worker, now)

    async def write() -> int:
        written = 0
        async with statements.connection() as conn:
            for outcome in outcomes:
                written += await _write(conn, outcome, worker, now)
            return written

    return await db.atomic(write)


async def _write(conn: Reader, outcome: Outcome, worker: str, now: dt.datetime) -> int:
    email = outcome.email
    held = (email.id, worker, email.lease_expires_at)
    sql = _STATEMENTS[email.table]
    if outcome.status is MessageStatus.SENT:
        args: tuple[object, ...] = (*held, outcome.reply, outcome.transport, now)
        rows = await conn.rows(sql["sent"], *args)
    elif outcome.status is MessageStatus.FAILED:
        rows = await conn.rows(sql["failed"], *held, outcome.error, now)
    else:
        args = (*held, outcome.error, outcome.retry_at, now)
        rows = await conn.rows(sql["retry"], *args)
    return len(rows)


DEMO_REPLY = "sample data made by `pressline demo`: not sent"


async def record_sample_history(workspace_id: int, now: dt.datetime) -> int:
    """The workspace's queued customer messages become history that was never sent: `sent`
    with transport `demo`, so no worker, with SMTP_URL or without, ever sends them. For the
    demo's made-up past only (inside its build); returns how many."""
    rows = (
        await CustomerMessage.update(
            {
                CustomerMessage.status: MessageStatus.SENT,
                CustomerMessage.transport: Transport.DEMO,
                CustomerMessage.reply: DEMO_REPLY,
                CustomerMessage.sent_at: now,
                CustomerMessage.updated_at: now,
            }
        )
        .where(
            (CustomerMessage.workspace == workspace_id)
            & (CustomerMessage.status == MessageStatus.QUEUED)
        )
        .returning(CustomerMessage.id)
    )
    return len(rows)
