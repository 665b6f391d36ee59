"""Starts every claimable attempt at once, fairly per subscription; writes results in batches.

An attempt waiting on a socket costs a coroutine, not a scarce slot: a claim takes what can be
sent now (daemon/claim.py: at most WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION per subscription,
first of every subscription before the second of any) and each claimed delivery is sent at
once by one of the worker's senders, up to WEBHOOK_CONCURRENCY attempts in flight per worker
(a bound on memory and sockets, not a queue). A receiver that hangs holds its own
subscription's few attempts and nothing else. An attempt holds its subscription's slot until
its result is written, so a worker killed at any moment has cut off at most the cap's
attempts of each subscription. Results are kept until they are written (a failed write is
tried again, with backoff): a live worker never sends again what a receiver answered. When
results are written, the subscriptions' room frees and the worker claims again; when sends
end while more was due than the worker had room for, it claims again without waiting for the
write. Attempts whose worker died are found by their expired lease and recorded as failed
(counted against their delivery's attempts, not the subscription's failures).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import random
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import aiohttp

from daemon import deliver, record, targets
from daemon.claim import Claimed, Limits
from daemon.config import DaemonConfig
from daemon.store import STATEMENT_TIMEOUT, Store, open_store
from models import clock, logs

log = logging.getLogger("daemon.dispatch")

RECORD_BATCH = 500  # finished attempts written in one statement (transaction) at most
UNRECORDED_LIMIT = 4 * RECORD_BATCH  # no new claims while this many results wait to be written
RECOVER_EVERY = 1.0  # seconds between looks for expired leases (attempts cut off by a crash)
RECORD_RETRY_FIRST, RECORD_RETRY_MOST = 0.05, 5.0  # seconds before writing results again


def record_retry_delay(failures: int) -> float:
    """Doubling from RECORD_RETRY_FIRST up to RECORD_RETRY_MOST, with jitter, so workers that
    failed together do not retry together."""
    delay = min(RECORD_RETRY_MOST, RECORD_RETRY_FIRST * 2 ** (failures - 1))
    return delay * random.uniform(0.5, 1.0)  # noqa: S311 - jitter, not a secret


def open_session(config: DaemonConfig) -> aiohttp.ClientSession:
    """The one HTTP session of the process; its resolver refuses private addresses if asked."""
    connector = aiohttp.TCPConnector(
        limit=config.concurrency,  # the ceiling on attempts in flight, not a queue
        limit_per_host=0,
        resolver=None if config.allow_private_targets else targets.GuardedResolver(),
    )
    return aiohttp.ClientSession(
        connector=connector,
        timeout=aiohttp.ClientTimeout(total=config.timeout),
        # Receivers' cookies are neither kept nor sent: each attempt stands alone.
        cookie_jar=aiohttp.DummyCookieJar(),
        trust_env=False,  # no proxy from the environment: the address checked is the one called
    )


class Recorder:
    """Writes finished attempts in batches (those that finish while a write runs go in the
    next one) and logs each attempt with its delivery's new status."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        self.pending = 0  # attempts added and not yet written
        self.writes = 0  # batches written (or failed to be) so far
        self._queue: list[record.Entry] = []
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None

    def add(self, entry: record.Entry) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="record-attempts")
        self._queue.append(entry)
        self.pending += 1
        self._idle.clear()
        self._wake.set()

    async def _run(self) -> None:
        d = self.dispatcher
        while True:
            await self._wake.wait()
            self._wake.clear()
            failures = 0
            while self._queue:
                batch = self._queue[:RECORD_BATCH]
                try:
                    statuses = await d.store.record(
                        batch, worker=d.worker, config=d.config, now=d.now()
                    )
                except Exception:
                    # Kept, and written again until it is: these attempts were made, and a
                    # receiver that answered must not be sent them again.
                    failures += 1
                    delay = record_retry_delay(failures)
                    log.exception(
                        "recording delivery attempts failed; trying again",
                        extra=logs.fields(count=len(batch), retry_in=round(delay, 2)),
                    )
                    await asyncio.sleep(delay)
                    continue
                failures = 0
                del self._queue[: len(batch)]  # those added meanwhile are behind it
                self.pending -= len(batch)
                self.writes += 1
                _log_attempts(batch, statuses)
                d.recorded()  # the subscriptions' attempts in flight went down: claim again
            self._idle.set()

    def holds(self) -> set[int]:
        """The deliveries whose attempts are waiting to be written."""
        return {item.id for item, _ in self._queue}

    async def idle(self, timeout: float) -> bool:  # noqa: ASYNC109 - a plain bound on waiting
        """Wait until every attempt added is written; False on timeout."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


def _log_attempts(batch: list[record.Entry], statuses: list[str | None]) -> None:
    """One line per attempt: at INFO when it failed or its lease was lost, at DEBUG when it
    succeeded (every attempt is in webhook_attempts; docs/webhooks.md, "Logs")."""
    for (item, outcome), status in zip(batch, statuses, strict=True):
        if status is None:
            log.warning(
                "lease lost before the attempt was recorded", extra=logs.fields(delivery_id=item.id)
            )
        level = logging.DEBUG if outcome.succeeded else logging.INFO
        if not log.isEnabledFor(level):
            continue
        # The target's host only: a receiver's URL may carry its own secret in the query.
        log.log(
            level,
            "delivery attempt",
            extra=_attempt_fields(
                item,
                event=item.event,
                host=urlsplit(item.url).hostname,
                status_code=outcome.status_code,
                error=outcome.error,
                delivery_status=status or "lease lost",
            ),
        )


def _attempt_fields(item: Claimed, **more: object) -> dict[str, object]:
    """The log fields naming one attempt, and `more`."""
    return logs.fields(
        delivery_id=item.id,
        webhook_id=item.webhook_id,
        attempt=item.attempt,
        subscription_id=item.subscription_id,
        **more,
    )


class Dispatcher:
    def __init__(
        self,
        config: DaemonConfig,
        session: aiohttp.ClientSession,
        *,
        worker: str,
        now: Callable[[], dt.datetime] = clock.now,
        on_slot_free: Callable[[], None] | None = None,
        store: Store | None = None,
    ) -> None:
        self.config = config
        self.session = session
        self.worker = worker
        self.now = now
        self.on_slot_free = on_slot_free
        self.store = store or open_store()
        self.closing = False
        self.recorder = Recorder(self)
        # Claimed deliveries wait here for a sender; senders are coroutines that each make one
        # attempt at a time, started as needed (never more than WEBHOOK_CONCURRENCY) and kept:
        # cheaper than a task per attempt.
        self._claimed: asyncio.Queue[Claimed] = asyncio.Queue()
        self._senders: list[asyncio.Task[None]] = []
        self._attempts: dict[int, Claimed] = {}  # being made now, by sender
        self._attempt_ended = asyncio.Event()
        self._more_due = False  # the last claim was cut short by room, not by the due rows
        self._recovered_at = -RECOVER_EVERY
        # Sends that end free the worker's room before their results are written; with more
        # due, a claim is made once this many have ended (a batch, not a claim per attempt).
        self._claim_batch = max(1, config.concurrency // 4)

    def room(self) -> int:
        """How many more attempts may start now."""
        sending_room = self.config.concurrency - len(self._attempts) - self._claimed.qsize()
        recording_room = UNRECORDED_LIMIT - self.recorder.pending
        return min(sending_room, recording_room)

    def limits(self, room: int) -> Limits:
        return Limits(
            room=room,
            per_subscription=self.config.max_in_flight_per_subscription,
            deactivate_after=self.config.deactivate_after,
        )

    async def fill(self) -> int:
        """Claim what can be sent now and start sending it; returns how many."""
        await self.recover()
        started = 0
        while not self.closing:
            room = self.room()
            if room <= 0:
                self._more_due = True  # not known: look again when room frees up
                break
            limits, lease = self.limits(room), self.config.lease
            batch = await self.store.claim(
                worker=self.worker,
                limits=limits,
                now=self.now(),
                lease=lease,
            )
            for item in batch:
                self._start(item)
            started += len(batch)
            self._more_due = len(batch) == room
            if not self._more_due:
                break
        return started

    async def recover(self, force: bool = False) -> int:
        """Record attempts cut off by a stopped worker (their lease ran out) as failed, so
        they count towards their delivery's attempts (never the subscription's failures).
        This worker's own attempts are not among them, whatever their lease says: those being
        made, and those whose results wait to be written, are still to be recorded."""
        if not force and time.monotonic() - self._recovered_at < RECOVER_EVERY:
            return 0
        self._recovered_at = time.monotonic()
        now = self.now()
        found = await self.store.expired(now=now, limit=RECORD_BATCH, lease=self.config.lease)
        mine = self.recorder.holds() | {item.id for item in self._attempts.values()}
        found = [item for item in found if item.id not in mine]
        if not found:
            return 0
        entries = [record.cut_off(item, now) for item in found]
        statuses = await self.store.record(entries, worker=self.worker, config=self.config, now=now)
        for item, status in zip(found, statuses, strict=True):
            if status is not None:
                log.warning(
                    "attempt cut off by a stopped worker recorded as failed",
                    extra=_attempt_fields(item, held_by=item.worker, delivery_status=status),
                )
        return sum(status is not None for status in statuses)

    def _start(self, item: Claimed) -> None:
        self._claimed.put_nowait(item)
        while len(self._senders) < len(self._attempts) + self._claimed.qsize():
            sender = self._sender(len(self._senders))
            self._senders.append(asyncio.create_task(sender, name="webhook-sender"))

    async def _sender(self, n: int) -> None:
        while True:
            item = await self._claimed.get()
            self._attempts[n] = item
            try:
                await self._attempt(item)
            except Exception:
                log.exception(
                    "a delivery attempt failed unexpectedly", extra=logs.fields(delivery_id=item.id)
                )
            finally:
                del self._attempts[n]
                self._attempt_ended.set()
            if self._more_due and self.room() >= self._claim_batch:
                self._slot_free()

    def recorded(self) -> None:
        """Results were written: subscriptions may have room again, and so may the worker."""
        if self.room() > 0:
            self._slot_free()

    def _slot_free(self) -> None:
        if not self.closing and self.on_slot_free is not None:
            self.on_slot_free()

    def _lease_allows(self, item: Claimed) -> bool:
        """A whole attempt must fit in what is left of the lease."""
        return self.now() + dt.timedelta(seconds=self.config.timeout) < item.lease_expires_at

    async def _attempt(self, item: Claimed) -> None:
        if not self._lease_allows(item):
            log.warning(
                "lease too short to send now; delivery given back",
                extra=logs.fields(delivery_id=item.id),
            )
            await asyncio.shield(self.store.release([item], self.worker))
            return
        outcome = await deliver.send(
            self.session,
            item,
            timeout=self.config.timeout,
            allow_private=self.config.allow_private_targets,
            now=self.now,
        )
        self.recorder.add((item, outcome))  # from here on the attempt is the recorder's

    async def run_once(self) -> int:
        """Claim and send everything due now, and wait for the results (tests, one-shot use)."""
        total = 0
        self._recovered_at = -RECOVER_EVERY
        while True:
            writes = self.recorder.writes
            total += await self.fill()
            if self._attempts or self._claimed.qsize():
                self._attempt_ended.clear()
                await self._attempt_ended.wait()
            elif self.recorder.pending:
                await self.recorder.idle(timeout=STATEMENT_TIMEOUT)
            elif self.recorder.writes == writes:  # else a write during the claim freed room
                return total

    async def stop(self, grace: float) -> None:
        """Stop claiming; give attempts `grace` seconds, then cancel and release the rest."""
        self.closing = True
        unstarted = []  # claimed, not yet taken by a sender: not started any more
        while not self._claimed.empty():
            unstarted.append(self._claimed.get_nowait())
        await self._attempts_over(grace)
        # Senders still on an attempt after the grace time are cancelled with their attempt.
        unfinished = list(self._attempts.values())
        for task in self._senders:
            task.cancel()
        await asyncio.gather(*self._senders, return_exceptions=True)
        self._senders.clear()
        unfinished += unstarted
        if unfinished:
            log.info("releasing unfinished deliveries", extra=logs.fields(count=len(unfinished)))
            await self.store.release(unfinished, self.worker)
        # Attempts already made have their results written (it is quick).
        if not await self.recorder.idle(timeout=max(grace, 5.0)):
            log.warning(
                "results of attempts not written in time; they are sent again after their lease",
                extra=logs.fields(count=self.recorder.pending),
            )

    async def _attempts_over(self, grace: float) -> None:
        """Wait up to `grace` seconds for the attempts being made to end."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while self._attempts and (left := deadline - loop.time()) > 0:
            self._attempt_ended.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._attempt_ended.wait(), left)

    async def close(self) -> None:
        for task in self._senders:
            task.cancel()
        await asyncio.gather(*self._senders, return_exceptions=True)
        await self.recorder.close()
        await self.session.close()
        await self.store.close()
