"""`python -m daemon` as real processes: two workers on one database, SIGKILL, SIGTERM.

Every worker gets DATABASE_URL of the test database and WEBHOOK_ALLOW_PRIVATE_TARGETS=1 (the
receiver listens on 127.0.0.1); counts and waits are bounded so a failure never hangs the run.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from models.tables import WebhookAttempt, WebhookDelivery
from tests.daemon import support
from tests.daemon.support import Receiver

ROOT = Path(__file__).resolve().parents[2]


class Worker:
    def __init__(self, process: asyncio.subprocess.Process, log: Path) -> None:
        self.process, self.log = process, log

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def lines(self) -> list[dict[str, Any]]:
        """The output as the worker's log lines: every line one JSON object."""
        lines = [json.loads(text) for text in self.output().splitlines()]
        assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)
        return lines

    async def started(self, seconds: float = 20.0) -> None:
        async with asyncio.timeout(seconds):
            while '"message":"worker started"' not in self.output():
                assert self.process.returncode is None, self.output()
                await asyncio.sleep(0.05)

    async def exit_code(self, seconds: float = 20.0) -> int:
        async with asyncio.timeout(seconds):
            return await self.process.wait()


@pytest.fixture
async def spawn(backend: str, tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    workers: list[Worker] = []

    async def start(**env: str) -> Worker:
        environment = {
            **os.environ,
            "DATABASE_URL": backend,
            "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1",
            "WEBHOOK_POLL_INTERVAL": "0.2",
            "PYTHONUNBUFFERED": "1",
            **env,
        }
        log = tmp_path / f"worker-{len(workers)}.log"
        with log.open("wb") as sink:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "daemon", cwd=ROOT, env=environment, stdout=sink, stderr=sink
            )
        worker = Worker(process, log)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        if worker.process.returncode is None:
            worker.process.kill()
            await worker.process.wait()


async def wait_until_succeeded(count: int, seconds: float = 30.0) -> None:
    succeeded = WebhookDelivery.status == "succeeded"
    async with asyncio.timeout(seconds):
        while True:
            if await WebhookDelivery.count().where(succeeded) >= count:
                return
            await asyncio.sleep(0.1)


@pytest.mark.postgres_only
async def test_two_workers_on_one_database_never_send_a_delivery_twice(spawn, receiver: Receiver):
    async def quick(_: web.Request, n: int) -> web.Response:
        await asyncio.sleep(0.01 * (n % 5))
        return web.Response(text="ok")

    receiver.behaviour = quick
    ws = await support.workspace()
    # Several subscriptions: one alone is capped at WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION
    # attempts at once, which the first worker to claim may hold every time.
    subs = [await support.subscription(ws, receiver.url()) for _ in range(4)]
    workers = [await spawn(WEBHOOK_CONCURRENCY="5") for _ in range(2)]
    for worker in workers:
        await worker.started()

    deliveries = []
    for _ in range(4):  # in waves, so both workers are claiming at the same time
        for sub in subs:
            deliveries += await support.queued(ws, sub, 5)
        await asyncio.sleep(0.1)
    await wait_until_succeeded(80)

    sent = Counter(receiver.deliveries())
    assert sent == Counter({d.public_id: 1 for d in deliveries})
    assert all(r.signature_ok for r in receiver.requests)
    by_worker = {row["worker"] for row in await WebhookAttempt.select(WebhookAttempt.worker)}
    assert len(by_worker) == 2, "both workers should have sent some deliveries"


@pytest.mark.postgres_only
async def test_a_worker_killed_mid_batch_loses_nothing(spawn, receiver: Receiver):
    hold = asyncio.Event()
    hold.set()

    async def held_while_first_worker_runs(_: web.Request, __: int) -> web.Response:
        if hold.is_set():
            await asyncio.sleep(60)  # the first worker is killed while waiting here
        return web.Response(text="ok")

    receiver.behaviour = held_while_first_worker_runs
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    deliveries = await support.queued(ws, sub, 10)
    short_lease = {
        "WEBHOOK_TIMEOUT": "2",
        "WEBHOOK_LEASE": "3",
        "WEBHOOK_CONCURRENCY": "4",
        "WEBHOOK_BACKOFF": "1",
    }

    first = await spawn(**short_lease)
    await receiver.wait_for(4, seconds=20)
    first.process.send_signal(signal.SIGKILL)
    assert await first.exit_code() == -signal.SIGKILL
    ids = {d.public_id: d.id for d in deliveries}  # webhook-id → the row's id
    held = {ids[webhook_id] for webhook_id in receiver.deliveries()}
    assert len(held) == 4
    assert await WebhookAttempt.count() == 0  # nothing was recorded: the kill came first
    hold.clear()

    second = await spawn(**short_lease)
    await wait_until_succeeded(10, seconds=30)

    assert set(receiver.deliveries()) == {d.public_id for d in deliveries}
    rows = await WebhookDelivery.select(
        WebhookDelivery.id, WebhookDelivery.status, WebhookDelivery.attempts
    )
    # The four attempts the kill cut off count as failed; each delivery's next one succeeded.
    assert {r["id"]: (r["status"], r["attempts"]) for r in rows} == {
        d.id: ("succeeded", 2 if d.id in held else 1) for d in deliveries
    }
    cut = await WebhookAttempt.select(WebhookAttempt.delivery).where(
        WebhookAttempt.error == "worker stopped during the attempt"
    )
    assert {r["delivery"] for r in cut} == held
    second.process.send_signal(signal.SIGTERM)
    assert await second.exit_code() == 0


async def test_a_delivery_that_kills_every_worker_runs_out_of_attempts(spawn, receiver: Receiver):
    async def hang(_: web.Request, __: int) -> web.Response:
        await asyncio.sleep(60)  # the worker is killed while waiting here
        return web.Response(text="too late")

    receiver.behaviour = hang
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    env = {
        "WEBHOOK_TIMEOUT": "2",
        "WEBHOOK_LEASE": "3",
        "WEBHOOK_BACKOFF": "1",
        "WEBHOOK_MAX_ATTEMPTS": "2",
    }
    for n in (1, 2):  # each attempt kills its worker
        worker = await spawn(**env)
        await receiver.wait_for(n, seconds=30)
        worker.process.send_signal(signal.SIGKILL)
        assert await worker.exit_code() == -signal.SIGKILL

    last = await spawn(**env)  # finds the second attempt's lease expired
    async with asyncio.timeout(30):
        while True:
            if (await support.load(d)).status == "failed":
                break
            await asyncio.sleep(0.1)

    row = await support.load(d)
    assert (row.attempts, row.last_error) == (2, "worker stopped during the attempt")
    attempts = await WebhookAttempt.select(WebhookAttempt.number, WebhookAttempt.error).where(
        WebhookAttempt.delivery == d.id
    )
    assert sorted((a["number"], a["error"]) for a in attempts) == [
        (1, "worker stopped during the attempt"),
        (2, "worker stopped during the attempt"),
    ]
    assert len(receiver.requests) == 2
    counted = await support.load_subscription(sub)
    # Lost to crashes, not answered by the receiver: they never count towards deactivation.
    assert (counted.consecutive_failures, counted.in_flight, counted.is_active) == (0, 0, True)
    last.process.send_signal(signal.SIGTERM)
    assert await last.exit_code() == 0


async def test_sigterm_finishes_the_attempt_in_flight_and_exits_0(spawn, receiver: Receiver):
    async def slow(_: web.Request, __: int) -> web.Response:
        await asyncio.sleep(1)
        return web.Response(text="ok")

    receiver.behaviour = slow
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    worker = await spawn()
    await receiver.wait_for(1, seconds=20)

    worker.process.send_signal(signal.SIGTERM)

    assert await worker.exit_code() == 0, worker.output()
    assert (await support.load(d)).status == "succeeded"
    lines = worker.lines()
    assert [line["message"] for line in lines if line["logger"] == "daemon"] == [
        "worker started",
        "stopping: finishing deliveries in flight",
        "worker stopped",
    ]
    # A successful attempt is logged at DEBUG only: at the default level its row is the record.
    assert not [line for line in lines if line["message"] == "delivery attempt"]


async def test_at_debug_every_attempt_has_its_line(spawn, receiver: Receiver):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    worker = await spawn(LOG_LEVEL="DEBUG")
    await receiver.wait_for(1, seconds=20)
    async with asyncio.timeout(20):
        while '"message":"delivery attempt"' not in worker.output():
            assert worker.process.returncode is None, worker.output()
            await asyncio.sleep(0.05)
    worker.process.send_signal(signal.SIGTERM)
    assert await worker.exit_code() == 0, worker.output()
    [attempt] = [line for line in worker.lines() if line["message"] == "delivery attempt"]
    shown = (attempt["level"], attempt["delivery_id"], attempt["status_code"], attempt["host"])
    assert shown == ("DEBUG", d.id, 200, "127.0.0.1")
    assert attempt["delivery_status"] == "succeeded"


async def test_sigint_on_an_idle_worker_exits_0(spawn):
    worker = await spawn()
    await worker.started()
    worker.process.send_signal(signal.SIGINT)
    assert await worker.exit_code() == 0, worker.output()


async def test_a_lease_shorter_than_the_timeout_is_refused_at_start(spawn):
    worker = await spawn(WEBHOOK_TIMEOUT="10", WEBHOOK_LEASE="5")
    assert await worker.exit_code() == 1
    assert worker.output() == (
        "invalid configuration: WEBHOOK_LEASE (5 s) must be longer than WEBHOOK_TIMEOUT (10 s)\n"
    )


@pytest.mark.parametrize("value", ["0", "-1", "abc"])
async def test_a_bad_retention_period_is_refused_at_start(spawn, value):
    worker = await spawn(WEBHOOK_RETENTION_DAYS=value)
    assert await worker.exit_code() == 1
    assert worker.output() == (
        "invalid configuration: WEBHOOK_RETENTION_DAYS must be a whole number of at least 1, "
        f"got {value!r}\n"
    )
