"""The worker's second job: sends queued email rows (models/mail/queue.py) over SMTP.

Independent of webhook delivery: its own APScheduler job, its own SMTP connections (at most
MAIL_CONCURRENCY at once, each reused for the messages of one poll), its own database
connections (the engine's pool, never the webhook store's), and a timeout on every SMTP step,
so a slow or dead mail server never holds up a webhook, nor the reverse.

Each poll claims a batch and sends it through the lanes; each message's outcome is recorded
as soon as its attempt ends (outcomes that end together share one short write), before its
lane takes the next, so a worker that dies can only send again the one message each lane had
in flight. Temporary failures (refused or lost connection, timeout, SMTP 4xx) are retried on
the webhook schedule (daemon/retry.py); a permanent refusal (5xx) fails the row at once with
the server's reply kept; so does an address that is not one (rows stored
before the rule) and any unexpected error in one message, which never stops the rest of its
batch. A message whose lease would run out before its attempt could finish is not sent: it
waits for its lease to lapse and is claimed again.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import functools
import logging
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from email.header import Header
from email.utils import formataddr, formatdate

import aiosmtplib
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from daemon import retry
from models import clock, logs
from models.errors import EMAIL
from models.mail import links, notices, queue
from models.mail.queue import Email, Outcome
from models.mail.status import MessageStatus, Transport
from models.settings import Settings, get_settings
from models.smtp_url import SmtpTarget, parse_smtp_url

log = logging.getLogger("daemon.mail")

MAIL_JOB = "send-mail"
BATCH_PER_LANE = 8  # rows claimed per poll for each concurrent SMTP connection
LEASE_MARGIN = 0.5  # seconds: an attempt starts only if the lease outlasts its timeout by this


@dataclass(frozen=True, slots=True)
class MailConfig:
    smtp: SmtpTarget | None  # None: write each email to the log (transport `log`)
    sender: str
    backoff: tuple[int, ...]
    max_attempts: int
    timeout: float
    lease: float
    poll_interval: float
    concurrency: int

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> MailConfig:
        s = settings or get_settings()
        return cls(
            smtp=parse_smtp_url(s.smtp_url) if s.smtp_url else None,
            sender=s.sender,
            backoff=s.webhook_backoff,
            max_attempts=s.webhook_max_attempts,
            timeout=s.webhook_timeout,
            lease=s.webhook_lease,
            poll_interval=s.webhook_poll_interval,
            concurrency=s.mail_concurrency,
        )


def compose(email: Email, sender: str) -> bytes:
    """The email as sent (CRLF lines): From name the shop's, Reply-To the shop's address, a
    plain-text part and an HTML part, each UTF-8 in base64.

    Written out directly: the email package's message classes fold and re-parse every header,
    which cost more worker CPU than all the rest of a send (docs/benchmarks.md, Mail). Every
    header is one line of ASCII: names and subjects are flattened and encoded, the recipient
    was checked, and a Reply-To that is not an address, `local@domain` in ASCII (a non-ASCII
    one stored before the rule), is left out: an address cannot be encoded into ASCII without
    SMTPUTF8, and the email is still worth sending without it. Anything else not ASCII raises
    ValueError (the message fails; never a raw 8-bit header)."""
    subject = " ".join(email.subject.split())
    reply_to = email.reply_to if is_address(email.reply_to) else ""
    head = [
        b"From: " + _from(email.from_name, sender),
        b"To: " + email.recipient.encode(),
        *([b"Reply-To: " + reply_to.encode()] if reply_to else []),
        b"Subject: " + _header_text(subject),
        b"Message-ID: " + email.message_id.encode(),
        b"Date: " + formatdate(usegmt=True).encode(),
        b"MIME-Version: 1.0",
    ]
    if not all(line.isascii() for line in head):
        raise ValueError("a header is not ASCII (MAIL_FROM or the Message-ID)")
    text = _part("plain", email.text)
    if not email.html:
        return CRLF.join(head) + CRLF + text
    boundary = b"=_pressline_" + secrets.token_hex(12).encode()
    return (
        CRLF.join(head)
        + CRLF
        + b'Content-Type: multipart/alternative; boundary="' + boundary + b'"' + CRLF + CRLF
        + b"--" + boundary + CRLF + text + CRLF
        + b"--" + boundary + CRLF + _part("html", email.html) + CRLF
        + b"--" + boundary + b"--" + CRLF
    )  # fmt: skip


CRLF = b"\r\n"


def _part(subtype: str, content: str) -> bytes:
    body = base64.encodebytes(content.encode("utf-8")).replace(b"\n", CRLF)
    return (
        b'Content-Type: text/' + subtype.encode() + b'; charset="utf-8"' + CRLF
        + b"Content-Transfer-Encoding: base64" + CRLF + CRLF + body
    )  # fmt: skip


@functools.lru_cache(maxsize=256)
def _from(name: str, sender: str) -> bytes:
    """`"Inkwell Prints" <no-reply@…>`, the name encoded when it is not ASCII (per shop)."""
    return formataddr((" ".join(name.split()), sender), charset="utf-8").encode()


def _header_text(value: str) -> bytes:
    if value.isascii():
        return value.encode()
    return Header(value, "utf-8").encode(linesep="\r\n").encode()


def is_address(address: str) -> bool:
    """`local@domain`, ASCII: the one rule every typed address meets (admin,
    command line), checked again here for rows stored before it."""
    return EMAIL.fullmatch(address) is not None


class _Lane:
    """One SMTP connection, opened on first use, reused, dropped after any error."""

    def __init__(self, config: MailConfig, target: SmtpTarget) -> None:
        self.config = config
        self.target = target
        self.client: aiosmtplib.SMTP | None = None

    async def send(self, recipient: str, message: bytes) -> str:
        target = self.target
        if self.client is None or not self.client.is_connected:
            client = aiosmtplib.SMTP(
                hostname=target.host,
                port=target.port,
                username=target.username,
                password=target.password,
                use_tls=target.implicit_tls,
                start_tls=target.starttls,
                timeout=self.config.timeout,
            )
            await client.connect()
            self.client = client
        _, reply = await self.client.sendmail(self.config.sender, [recipient], message)
        return f"250 {reply}".strip()

    async def close(self) -> None:
        client, self.client = self.client, None
        if client is not None and client.is_connected:
            try:
                await asyncio.wait_for(client.quit(), timeout=self.config.timeout)
            except (aiosmtplib.SMTPException, OSError, TimeoutError):
                client.close()

    def drop(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            client.close()


def _refusal(exc: BaseException) -> tuple[int | None, str]:
    """The SMTP code (None for a network error) and the words to keep."""
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused) and exc.recipients:
        first = exc.recipients[0]
        return first.code, f"{first.code} {first.message}"
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return exc.code, f"{exc.code} {exc.message}"
    if isinstance(exc, TimeoutError | aiosmtplib.SMTPTimeoutError):
        return None, "timed out"
    return None, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class MailSender:
    """The mail job of one worker process."""

    def __init__(
        self,
        config: MailConfig,
        *,
        worker: str,
        now: Callable[[], dt.datetime] = clock.now,
    ) -> None:
        self.config = config
        self.worker = worker
        self.now = now
        self.stopping = False
        self._idle = asyncio.Event()
        self._idle.set()
        self._running: asyncio.Task[None] | None = None

    async def poll(self) -> None:
        """The scheduler's job: start a drain unless one is still running (a slow SMTP server
        keeps one drain busy; the job itself returns at once, so the scheduler never has to
        skip it)."""
        if self.stopping:
            return
        if self._running is None or self._running.done():
            self._running = asyncio.create_task(self.drain(), name="send-mail")

    async def drain(self) -> None:
        """Claim and send until nothing is due (or stopping); errors wait for the next poll."""
        limit = self.config.concurrency * BATCH_PER_LANE
        smtp = self.config.smtp
        lanes = [_Lane(self.config, smtp) for _ in range(self.config.concurrency)] if smtp else []
        self._idle.clear()
        try:
            await notices.queue_deactivation_notices(self.now())
            if not await queue.anything_due(self.now()):
                return  # an idle poll: one read, no claim
            while not self.stopping:
                emails = await queue.claim(
                    worker=self.worker, limit=limit, now=self.now(), lease=self.config.lease
                )
                if not emails:
                    return
                await self._send_all(emails, lanes)
                if len(emails) < limit:
                    return
        except Exception:
            log.exception("sending email failed; retrying at the next poll")
        finally:
            await asyncio.gather(*(lane.close() for lane in lanes))
            self._idle.set()

    async def stop(self, grace: float) -> None:
        """Send nothing new; wait up to `grace` seconds for the sends in flight to record."""
        self.stopping = True
        try:
            await asyncio.wait_for(self._idle.wait(), timeout=grace)
        except TimeoutError:
            log.warning("the mail job did not finish in time; its leases will lapse")

    async def _send_all(self, emails: list[Email], lanes: list[_Lane]) -> None:
        """Each lane takes the next message, tries it, waits for its outcome to be written,
        then takes another: at any moment a lane holds at most one message whose outcome is
        not yet written. When a write fails (the database is away), no lane takes another
        message (the rest wait for their leases to lapse) and the error goes to the drain."""
        pending = deque(emails)
        broken: list[Exception] = []
        recorder = _Recorder(self.worker, self.now)

        async def run(lane: _Lane | None) -> None:
            while pending and not self.stopping and not broken:
                email = pending.popleft()
                outcome = _not_an_address(email)
                if outcome is None:
                    outcome = self._log(email) if lane is None else await self._attempt(lane, email)
                if outcome is None:
                    continue
                try:
                    await recorder.record(outcome)
                except Exception as exc:
                    broken.append(exc)

        if self.config.smtp is None:
            await run(None)
        else:
            await asyncio.gather(*(run(lane) for lane in lanes[: len(emails)]))
        if broken:
            raise broken[0]

    async def _attempt(self, lane: _Lane, email: Email) -> Outcome | None:
        """Send one email on `lane`; None when its lease is too short to try now. Whatever
        goes wrong ends in this message's outcome, never in an error that stops its batch."""
        budget = (email.lease_expires_at - self.now()).total_seconds() - LEASE_MARGIN
        if budget < self.config.timeout:
            return None
        try:
            message = compose(email, self.config.sender)
            async with asyncio.timeout(self.config.timeout):
                reply = await lane.send(email.recipient, message)
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            lane.drop()
            code, error = _refusal(exc)
            return self._failure(email, code, error)
        except Exception as exc:  # a bug or bad data in this one message: fail it, go on
            lane.drop()
            error = f"not sent: {type(exc).__name__}: {exc}".rstrip(": ")
            log.exception("email failed with an unexpected error", extra=_fields(email))
            return Outcome(email, MessageStatus.FAILED, error=error)
        log.debug("email sent", extra=_fields(email, reply=reply))
        return Outcome(email, MessageStatus.SENT, reply=reply, transport=Transport.SMTP)

    def _failure(self, email: Email, code: int | None, error: str) -> Outcome:
        permanent = code is not None and 500 <= code < 600
        retry_at = None
        if not permanent:
            retry_at = retry.next_attempt_at(
                self.now(), email.attempt, self.config.backoff, self.config.max_attempts
            )
        fields = _fields(email, error=error)
        if retry_at is None:
            log.warning("email failed", extra=fields)
            return Outcome(email, MessageStatus.FAILED, error=error)
        log.info("email attempt failed; will retry", extra=fields)
        return Outcome(email, MessageStatus.QUEUED, error=error, retry_at=retry_at)

    def _log(self, email: Email) -> Outcome:
        log.info(
            "email (not sent: SMTP_URL is unset)",
            extra=logs.fields(
                to=email.recipient,
                from_name=email.from_name,
                reply_to=email.reply_to,
                subject=email.subject,
                message_id=email.message_id,
                text=email.text,
            ),
        )
        return Outcome(
            email, MessageStatus.SENT, reply="written to the log", transport=Transport.LOG
        )


class _Recorder:
    """Writes outcomes as their attempts end. Outcomes that end while a write is in flight
    share the next one (a group commit): with many lanes this costs about one transaction per
    lane's round rather than per message (on SQLite each transaction opens a connection),
    and no lane goes on before its own outcome is written."""

    def __init__(self, worker: str, now: Callable[[], dt.datetime]) -> None:
        self.worker, self.now = worker, now
        self.waiting: list[tuple[Outcome, asyncio.Future[None]]] = []
        self.writing: asyncio.Task[None] | None = None

    async def record(self, outcome: Outcome) -> None:
        """Return once `outcome` is written (raise what the write raised)."""
        done = asyncio.get_running_loop().create_future()
        self.waiting.append((outcome, done))
        if self.writing is None or self.writing.done():
            self.writing = asyncio.create_task(self._write())
        await done

    async def _write(self) -> None:
        while self.waiting:
            batch, self.waiting = self.waiting, []
            try:
                await queue.record([o for o, _ in batch], worker=self.worker, now=self.now())
            except Exception as exc:
                for _, done in batch:
                    if not done.done():  # its lane may have been cancelled meanwhile
                        done.set_exception(exc)
            else:
                for _, done in batch:
                    if not done.done():
                        done.set_result(None)


def _not_an_address(email: Email) -> Outcome | None:
    """A recipient stored before addresses were checked when typed, that is not an address:
    the message fails at once, whatever the transport, with the reason kept (None for a good
    one)."""
    if is_address(email.recipient):
        return None
    error = f"not sent: {email.recipient!r} is not an email address (local@domain, ASCII only)"
    log.warning("email failed", extra=_fields(email, error=error))
    return Outcome(email, MessageStatus.FAILED, error=error)


def _fields(email: Email, **more: object) -> dict[str, object]:
    return logs.fields(table=email.table, id=email.id, attempt=email.attempt, **more)


def register(
    scheduler: AsyncIOScheduler, *, worker: str, now: Callable[[], dt.datetime] = clock.now
) -> MailSender:
    """Add the mail job to the worker's scheduler (beside, never inside, webhook delivery)."""
    settings = get_settings()
    config = MailConfig.from_settings(settings)
    sender = MailSender(config, worker=worker, now=now)
    scheduler.add_job(
        sender.poll,
        "interval",
        seconds=config.poll_interval,
        id=MAIL_JOB,
        max_instances=1,
        coalesce=True,
        misfire_grace_time=None,
        next_run_time=dt.datetime.now(dt.UTC),
    )
    if config.smtp is None:
        log.warning(
            "SMTP_URL is unset: emails are written to this log (transport log), not sent",
            extra=logs.fields(mail_from=config.sender),
        )
    if settings.public_url is None:
        log.warning(
            "PUBLIC_URL is unset: links in emails start with the local address",
            extra=logs.fields(base_url=links.base_url()),
        )
    return sender
