"""The worker process's heart: an APScheduler polling job, woken early by LISTEN on PostgreSQL."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from daemon.config import DaemonConfig, worker_name
from daemon.dispatch import Dispatcher, open_session
from daemon.listen import Listener
from daemon.mail import MailSender
from daemon.mail import register as register_mail
from models import admin_sessions, clock, db, idempotency, login_throttle, logs, retention
from models.webhooks import subscriptions

log = logging.getLogger("daemon")

POLL_JOB = "poll-outbox"
HOUSEKEEPING_JOB = "housekeeping"
# Idempotency keys live 24 h and the outbox keeps WEBHOOK_RETENTION_DAYS: an hour's overrun
# is harmless to either.
HOUSEKEEPING_EVERY = dt.timedelta(hours=1)
HOUSEKEEPING_DELAY = dt.timedelta(minutes=1)  # after a start, delivery comes first


class Daemon:
    def __init__(
        self,
        config: DaemonConfig,
        *,
        worker: str | None = None,
        now: Callable[[], dt.datetime] = clock.now,
    ) -> None:
        self.config = config
        self.worker = worker or worker_name()
        self.now = now
        self.scheduler = AsyncIOScheduler(timezone=dt.UTC)
        self.dispatcher: Dispatcher | None = None
        self.listener: Listener | None = None
        self.mail: MailSender | None = None  # the email job (daemon/mail.py)
        self._polling = False
        self._poll_again = False
        self._wake_scheduled = False
        self._idle = asyncio.Event()
        self._idle.set()
        self._stopping = False

    async def start(self) -> None:
        session = open_session(self.config)
        self.dispatcher = Dispatcher(
            self.config, session, worker=self.worker, now=self.now, on_slot_free=self.wake
        )
        self.scheduler.add_job(
            self.poll,
            "interval",
            seconds=self.config.poll_interval,
            id=POLL_JOB,
            max_instances=1,
            coalesce=True,
            misfire_grace_time=None,
            next_run_time=dt.datetime.now(dt.UTC),
        )
        self.scheduler.add_job(
            self.housekeeping,
            "interval",
            seconds=HOUSEKEEPING_EVERY.total_seconds(),
            id=HOUSEKEEPING_JOB,
            max_instances=1,
            coalesce=True,
            next_run_time=dt.datetime.now(dt.UTC) + HOUSEKEEPING_DELAY,
        )
        self.mail = register_mail(self.scheduler, worker=self.worker, now=self.now)
        self.scheduler.start()
        if db.is_postgres():
            self.listener = Listener(self.config.database_url, on_notify=self.wake)
            await self.listener.start()
        log.info(
            "worker started",
            extra=logs.fields(
                worker=self.worker,
                database="postgresql" if db.is_postgres() else "sqlite",
                wake_up="LISTEN pressline_outbox" if self.listener else "polling only",
                poll_interval=self.config.poll_interval,
                concurrency=self.config.concurrency,
                lease=self.config.lease,
            ),
        )

    async def poll(self) -> None:
        """The polling job: claim what is due and start sending it (does not wait for replies)."""
        self._wake_scheduled = False
        if self._stopping or self.dispatcher is None:
            return
        self._polling = True
        self._idle.clear()
        try:
            self._poll_again = True
            while self._poll_again and not self._stopping:
                self._poll_again = False
                await self.dispatcher.fill()
        except Exception:
            log.exception("claiming deliveries failed; retrying at the next poll")
        finally:
            self._polling = False
            self._idle.set()

    async def housekeeping(self) -> None:
        """Delete what has outlived its use: expired Idempotency-Key rows, admin sessions and
        failed logins, rotated-out signing secrets past their overlap, and the outbox's
        history past WEBHOOK_RETENTION_DAYS
        (models/retention.py; `pending` is never touched). A failure is logged and retried at
        the next run; delivery goes on meanwhile."""
        now = self.now()
        try:
            keys = await idempotency.purge_expired(now)
            sessions = await admin_sessions.delete_expired(now)
            failed_logins = await login_throttle.delete_expired(now)
            pruned = await retention.prune(self.config.retention_days, now)
            secrets = await subscriptions.erase_expired_secrets(now)
        except Exception:
            log.exception("housekeeping failed; retrying in an hour")
            return
        log.info(
            "housekeeping done",
            extra=logs.fields(
                idempotency_keys=keys,
                admin_sessions=sessions,
                failed_logins=failed_logins,
                deliveries=pruned.deliveries,
                events=pruned.events,
                previous_secrets_erased=secrets,
            ),
        )

    def wake(self) -> None:
        """Run the polling job now (new outbox rows, a free slot); never lost while it runs."""
        if self._stopping:
            return
        if self._polling:
            self._poll_again = True
            return
        if self._wake_scheduled:  # one early run is already on its way
            return
        job = self.scheduler.get_job(POLL_JOB)
        if job is not None:
            self._wake_scheduled = True
            job.modify(next_run_time=dt.datetime.now(dt.UTC))

    async def stop(self) -> None:
        """Stop claiming, let attempts in flight finish within the grace time, release the rest."""
        self._stopping = True
        if self.scheduler.running:
            self.scheduler.pause()
        if self.listener is not None:
            await self.listener.stop()
        try:
            await asyncio.wait_for(self._idle.wait(), timeout=self.config.shutdown_grace)
        except TimeoutError:
            log.warning("the polling job did not finish in time")
        if self.mail is not None:
            await self.mail.stop(self.config.shutdown_grace)
        if self.dispatcher is not None:
            await self.dispatcher.stop(self.config.shutdown_grace)
            await self.dispatcher.close()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
            await asyncio.sleep(0)  # AsyncIOScheduler shuts down on the next loop turn
        log.info("worker stopped", extra=logs.fields(worker=self.worker))
