"""Claims as many deliveries as there are free send slots and runs each attempt as a task."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Callable

import aiohttp

from daemon import claim, deliver, record, targets
from daemon.config import DaemonConfig
from models import clock, db

log = logging.getLogger("daemon.dispatch")

RECORD_BATCH = 50  # finished attempts written in one transaction at most


def open_session(config: DaemonConfig) -> aiohttp.ClientSession:
    """The one HTTP session of the process; its resolver refuses private addresses if asked."""
    connector = aiohttp.TCPConnector(
        limit=config.concurrency,
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
                async with d.write_lock:
                    results = await record.record_batch(
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
    ) -> None:
        self.config = config
        self.session = session
        self.worker = worker
        self.now = now
        self.on_slot_free = on_slot_free
        self.closing = False
        self.recorder = Recorder(self)
        # SQLite has one writer at a time: queueing here is cheaper than its busy-wait.
        self.write_lock: asyncio.Lock | contextlib.nullcontext[None] = (
            contextlib.nullcontext() if db.is_postgres() else asyncio.Lock()
        )
        self._tasks: dict[asyncio.Task[None], claim.Claimed] = {}
        self._sending: set[asyncio.Task[None]] = set()  # still in the HTTP part, may be cancelled
        self._saturated = False

    @property
    def in_flight(self) -> int:
        return len(self._tasks)

    async def fill(self) -> int:
        """Claim due deliveries up to the free slots and start sending them; returns how many."""
        started = 0
        while not self.closing:
            free = self.config.concurrency - len(self._tasks)
            if free <= 0:
                self._saturated = True
                break
            async with self.write_lock:
                batch = await claim.claim(
                    worker=self.worker, limit=free, now=self.now(), lease=self.config.lease
                )
            for item in batch:
                self._start(item)
            started += len(batch)
            self._saturated = len(batch) == free
            if len(batch) < free:
                break
        return started

    def _start(self, item: claim.Claimed) -> None:
        task = asyncio.create_task(self._attempt(item), name=f"delivery-{item.id}")
        self._tasks[task] = item
        self._sending.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.pop(task, None)
        self._sending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("recording delivery attempt failed", exc_info=task.exception())
        if self._saturated and not self.closing and self.on_slot_free is not None:
            self.on_slot_free()  # there may be more due work waiting for this slot

    async def _attempt(self, item: claim.Claimed) -> None:
        outcome = await deliver.send(
            self.session,
            item,
            timeout=self.config.timeout,
            allow_private=self.config.allow_private_targets,
            now=self.now,
        )
        task = asyncio.current_task()
        if task is not None:
            self._sending.discard(task)  # from here on, finish rather than cancel
        status = await self.recorder.submit((item, outcome))
        log.info(
            "delivery %s attempt %s to %s: %s → %s",
            item.id,
            item.attempt,
            item.url,
            outcome.error or outcome.status_code,
            status or "lease lost",
        )

    async def run_once(self) -> int:
        """Claim and send everything due now, and wait for the results (tests, one-shot use)."""
        total = 0
        while True:
            total += await self.fill()
            if not self._tasks:
                return total
            await asyncio.wait(list(self._tasks), return_when=asyncio.FIRST_COMPLETED)

    async def stop(self, grace: float) -> None:
        """Stop claiming; give attempts `grace` seconds, then cancel and release the rest."""
        self.closing = True
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=grace)
        unfinished = [self._tasks[task] for task in self._sending if task in self._tasks]
        for task in list(self._sending):
            task.cancel()
        if self._tasks:
            # Attempts already recording their result finish that (it is quick).
            await asyncio.wait(list(self._tasks), timeout=max(grace, 5.0))
        if unfinished:
            log.info("releasing %s unfinished deliveries", len(unfinished))
            async with self.write_lock:
                await claim.release(unfinished, self.worker)

    async def close(self) -> None:
        await self.recorder.close()
        await self.session.close()
