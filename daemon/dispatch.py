"""Starts every claimable attempt at once, fairly per subscription; writes results in batches.

An attempt waiting on a socket costs a coroutine, not a scarce slot: a claim takes what can be
sent now (daemon/claim.py: at most WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION per subscription,
first of every subscription before the second of any) and each claimed delivery is sent at
once, up to WEBHOOK_CONCURRENCY attempts in flight per worker (a bound on memory and sockets,
not a queue). A receiver that hangs holds its own subscription's few attempts and nothing
else. When results are written, the subscriptions' room frees and the worker claims again.
Attempts whose worker died are found by their expired lease and recorded as failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import aiohttp

from daemon import deliver, record, targets
from daemon.claim import Claimed, Limits
from daemon.config import DaemonConfig
from daemon.store import Store, open_store
from models import clock, logs

log = logging.getLogger("daemon.dispatch")

RECORD_BATCH = 500  # finished attempts written in one statement (transaction) at most
UNRECORDED_LIMIT = 4 * RECORD_BATCH  # no new claims while this many results wait to be written
RECOVER_EVERY = 1.0  # seconds between looks for expired leases (attempts cut off by a crash)


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
        trust_env=False,  # no proxy from the environment: the address checked is the one called
    )


class Recorder:
    """Writes finished attempts; those that finish while a write runs go in the next one."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        self._queue: asyncio.Queue[tuple[record.Entry, asyncio.Future[str | None]]]
        self._queue = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    async def submit(self, entry: record.Entry) -> str | None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="record-attempts")
        done: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((entry, done))
        return await done

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while len(batch) < RECORD_BATCH and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            d = self.dispatcher
            try:
                results = await d.store.record(
                    [entry for entry, _ in batch], worker=d.worker, config=d.config, now=d.now()
                )
            except Exception as exc:  # the database is away: leases expire, attempts repeat
                for _, done in batch:
                    if not done.done():
                        done.set_exception(exc)
            else:
                for (_, done), status in zip(batch, results, strict=True):
                    if not done.done():
                        done.set_result(status)
                d.recorded()  # the subscriptions' attempts in flight went down: claim again

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


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
        self._tasks: dict[asyncio.Task[None], Claimed] = {}  # claimed, result not yet written
        self._unsent: set[asyncio.Task[None]] = set()  # sending: cancellable
        self._more_due = False  # the last claim was cut short by room, not by the due rows
        self._not_started: list[Claimed] = []  # claimed, then not sent because of stop()
        self._recovered_at = -RECOVER_EVERY

    def room(self) -> int:
        """How many more attempts may start now."""
        sending_room = self.config.concurrency - len(self._unsent)
        recording_room = UNRECORDED_LIMIT - (len(self._tasks) - len(self._unsent))
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
                worker=self.worker, limits=limits, now=self.now(), lease=lease
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
        they count towards the delivery's attempts and the subscription's failures."""
        if not force and time.monotonic() - self._recovered_at < RECOVER_EVERY:
            return 0
        self._recovered_at = time.monotonic()
        now = self.now()
        found = await self.store.expired(now=now, limit=RECORD_BATCH)
        if not found:
            return 0
        entries = [record.cut_off(item, now) for item in found]
        statuses = await self.store.record(entries, worker=self.worker, config=self.config, now=now)
        for item, status in zip(found, statuses, strict=True):
            if status is not None:
                log.warning(
                    "attempt cut off by a stopped worker recorded as failed",
                    extra=logs.fields(
                        delivery_id=item.id,
                        attempt=item.attempt,
                        subscription_id=item.subscription_id,
                        held_by=item.worker,
                        delivery_status=status,
                    ),
                )
        return sum(status is not None for status in statuses)

    def _start(self, item: Claimed) -> None:
        task = asyncio.create_task(self._attempt(item), name=f"delivery-{item.id}")
        self._tasks[task] = item
        self._unsent.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.pop(task, None)
        self._unsent.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("recording a delivery attempt failed", exc_info=task.exception())

    def recorded(self) -> None:
        """Results were written: subscriptions may have room again, and so may the worker."""
        if not self.closing and self.on_slot_free is not None and self.room() > 0:
            self.on_slot_free()

    def _lease_allows(self, item: Claimed) -> bool:
        """A whole attempt must fit in what is left of the lease."""
        return self.now() + dt.timedelta(seconds=self.config.timeout) < item.lease_expires_at

    def _sent(self) -> None:
        """The current attempt is past its HTTP part (or never made): finish, don't cancel."""
        task = asyncio.current_task()
        if task is not None:
            self._unsent.discard(task)

    async def _attempt(self, item: Claimed) -> None:
        if self.closing:
            self._not_started.append(item)  # stop() releases it
            return
        if not self._lease_allows(item):
            self._sent()
            log.warning(
                "lease too short to send now; delivery given back",
                extra=logs.fields(delivery_id=item.id),
            )
            await self.store.release([item], self.worker)
            return
        outcome = await deliver.send(
            self.session,
            item,
            timeout=self.config.timeout,
            allow_private=self.config.allow_private_targets,
            now=self.now,
        )
        self._sent()
        status = await self.recorder.submit((item, outcome))
        if status is None:
            log.warning(
                "lease lost before the attempt was recorded", extra=logs.fields(delivery_id=item.id)
            )
        # The target's host only: a receiver's URL may carry its own secret in the query.
        log.info(
            "delivery attempt",
            extra=logs.fields(
                delivery_id=item.id,
                attempt=item.attempt,
                subscription_id=item.subscription_id,
                event=item.event,
                host=urlsplit(item.url).hostname,
                status_code=outcome.status_code,
                error=outcome.error,
                delivery_status=status or "lease lost",
            ),
        )

    async def run_once(self) -> int:
        """Claim and send everything due now, and wait for the results (tests, one-shot use)."""
        total = 0
        self._recovered_at = -RECOVER_EVERY
        while True:
            total += await self.fill()
            if not self._tasks:
                return total
            await asyncio.wait(list(self._tasks), return_when=asyncio.FIRST_COMPLETED)

    async def stop(self, grace: float) -> None:
        """Stop claiming; give attempts `grace` seconds, then cancel and release the rest."""
        self.closing = True  # deliveries claimed and not yet started are not started any more
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=grace)
        unfinished = [self._tasks[task] for task in self._unsent if task in self._tasks]
        for task in list(self._unsent):
            task.cancel()
        if self._tasks:
            # Attempts already recording their result finish that (it is quick).
            await asyncio.wait(list(self._tasks), timeout=max(grace, 5.0))
        unfinished += self._not_started
        if unfinished:
            log.info("releasing unfinished deliveries", extra=logs.fields(count=len(unfinished)))
            await self.store.release(unfinished, self.worker)

    async def close(self) -> None:
        await self.recorder.close()
        await self.session.close()
        await self.store.close()
