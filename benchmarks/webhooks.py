"""The webhook daemon against a raw signed-POST loop, and commit-to-receipt latency.

1. A local aiohttp receiver (its own process) counts deliveries and checks every signature.
2. Baseline: an aiohttp client loop sends N signed POSTs straight to it, as many in flight as
   the daemon sends (its WEBHOOK_CONCURRENCY default, passed to the daemon too).
3. Throughput: N pending deliveries are committed to the outbox at once; the daemon
   (`python -m daemon`) drains them; deliveries/s from commit to the last receipt, and the
   daemon's RSS while they are pending.
4. Latency: single events recorded through the real write path
   (models.webhooks.events.record_event) at a steady rate; commit-to-receipt p50/p99
   (LISTEN/NOTIFY on PostgreSQL, polling on SQLite).
5. Fairness: the same healthy latency while 0, 20 and 200 subscriptions (another workspace)
   point at a receiver that accepts and never answers, each with a backlog.
6. Exactly 20: a receiver answering 500, many events, WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION
   16 and a 1 s backoff: the subscription must see exactly WEBHOOK_DEACTIVATE_AFTER attempts,
   never one more, in every one of 20 repetitions (two workers on PostgreSQL).
7. Claim cost (PostgreSQL): 10 … 100,000 subscriptions each holding a retry due later, and
   one with deliveries due now; the claim (daemon/claim.py, PG_CLAIM) run and rolled back, its
   execution time from EXPLAIN (ANALYZE, BUFFERS) with custom and generic plans, its round
   trip, and the plan printed. `--only claim` runs this alone.

`--subscriptions 1 --beside-hanging 50` measures one subscription's drain while 50 others hang.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pressline_bench python -m benchmarks.webhooks
    python -m benchmarks.webhooks --smoke
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import hashlib
import hmac
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import common
from models.settings import Settings

# The raw loop keeps 64 requests in flight; the daemon may hold as many in the throughput
# run: SUBSCRIPTIONS x its per-subscription cap (WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION).
IN_FLIGHT = 64
PER_SUBSCRIPTION = Settings().webhook_max_in_flight_per_subscription
DEACTIVATE_AFTER = Settings().webhook_deactivate_after
HANGING = (0, 20, 200)  # hanging subscriptions beside the healthy one (fairness run)
BACKLOG = 5  # deliveries queued for each hanging subscription
EXACT_REPETITIONS = 20
CLAIM_SUBSCRIPTIONS = (10, 1_000, 10_000, 100_000)  # each with a retry due in an hour
CLAIM_DUE = 8  # deliveries due now, for one more subscription: what the claim takes
CLAIM_REPETITIONS = 30
CLAIM_TARGET_MS = 1.5

SECRET = "whsec_benchmark_secret_0123456789"  # noqa: S105 - a benchmark receiver's key
USER_AGENT = "Service-Webhooks/1.0"
SUBSCRIPTIONS = 64  # throughput deliveries are spread over this many subscriptions
TARGETS = {
    "deliveries_per_s": 3000.0,
    "raw_ratio": 0.6,
    "cpu_ms": 0.12,
    "p50_ms": 20.0,
    "p99_ms": 100.0,
}


# --- the receiver (a separate process) -----------------------------------------------------


def receiver_main(port: int) -> None:
    from aiohttp import web

    key = SECRET.encode()
    state: dict[str, Any] = {}

    def reset(track: bool) -> None:
        state.update(count=0, bad=0, deliveries=set(), times={}, track=track, first=0.0, last=0.0,
                     fails={}, hanging=0)  # fmt: skip

    reset(False)

    async def hook(request: web.Request) -> web.Response:
        body = await request.read()
        now = time.time()
        expected = "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(request.headers.get("X-SVC-Signature", ""), expected):
            state["bad"] += 1
        state["count"] += 1
        state["deliveries"].add(request.headers.get("X-SVC-Delivery"))
        state["first"] = state["first"] or now
        state["last"] = now
        if state["track"]:
            state["times"][json.loads(body)["event_id"]] = now
        return web.Response(status=200, text="ok")

    async def hang(request: web.Request) -> web.Response:
        state["hanging"] += 1  # accepted, never answered (the daemon's timeout ends it)
        await asyncio.sleep(3600)
        return web.Response(status=200, text="too late")

    async def fail(request: web.Request) -> web.Response:
        await request.read()
        n = f"{request.match_info['rep']}/{request.match_info['n']}"
        state["fails"][n] = state["fails"].get(n, 0) + 1
        return web.Response(status=500, text="down")

    async def stats(request: web.Request) -> web.Response:
        data = {k: state[k] for k in ("count", "bad", "first", "last", "fails", "hanging")}
        data["distinct"] = len(state["deliveries"])
        if request.query.get("times"):
            data["times"] = state["times"]
        return web.json_response(data)

    async def do_reset(request: web.Request) -> web.Response:
        reset(request.query.get("track") == "1")
        return web.json_response({"ok": True})

    app = web.Application()
    app.router.add_post("/hook/{n}", hook)
    app.router.add_post("/hang/{n}", hang)
    app.router.add_post("/fail/{rep}/{n}", fail)
    app.router.add_get("/stats", stats)
    app.router.add_post("/reset", do_reset)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None, shutdown_timeout=1)


class Receiver:
    def __init__(self) -> None:
        self.port = common.free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Receiver:
        command = [sys.executable, "-m", "benchmarks.webhooks", "--receiver", str(self.port)]
        self.process = subprocess.Popen(command, cwd=common.ROOT)  # noqa: S603 - our own script
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                self.stats()
                return self
            time.sleep(0.1)
        raise RuntimeError("the receiver did not start")

    def __exit__(self, *_: object) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def stats(self, times: bool = False) -> dict[str, Any]:
        _, body = common.http_get(self.base + "/stats" + ("?times=1" if times else ""), token=None)
        data: dict[str, Any] = json.loads(body)
        return data

    def reset(self, track: bool = False) -> None:
        url = self.base + "/reset" + ("?track=1" if track else "")
        common.http_request("POST", url, token=None, body=b"")


# --- outbox rows ---------------------------------------------------------------------------


def event_body(event_id: str, number: int, occurred: dt.datetime, workspace_id: int = 1) -> str:
    """An `order.stage_changed` body of realistic size (built by the real encoder)."""
    from models.webhooks import events as outbox

    fields = outbox.order_fields(
        order_id=number,
        order_number=f"ORD-2026-{number:05d}",
        from_stage="print_queue",
        to_stage="in_production",
        customer={"id": 42, "name": "Harbour Lantern Brewing Co", "slug": "harbour-lantern"},
        due_by=occurred + dt.timedelta(days=10),
        timezone="Europe/London",
    )
    return outbox.encode_body(
        "order.stage_changed", event_id, occurred, fields, workspace_id=workspace_id
    )


class Outbox:
    """Direct access to the webhook tables through the raw driver (bulk inserts)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.pg: Any = None
        self.lite: sqlite3.Connection | None = None

    async def open(self) -> None:
        if common.is_postgres(self.url):
            import asyncpg

            self.pg = await asyncpg.connect(self.url)
        else:
            from models import db  # registers the fixed-width timestamp adapter

            self.lite = sqlite3.connect(db.sqlite_path(self.url), isolation_level=None, timeout=30)

    async def close(self) -> None:
        if self.pg is not None:
            await self.pg.close()
        if self.lite is not None:
            self.lite.close()

    async def value(self, sql: str, *args: Any) -> Any:
        if self.pg is not None:
            return await self.pg.fetchval(sql.replace("?", "${}").format(*range(1, 9)), *args)
        assert self.lite is not None
        row = self.lite.execute(sql, args).fetchone()
        return row[0] if row else None

    async def execute(self, sql: str, *args: Any) -> None:
        if self.pg is not None:
            await self.pg.execute(sql.replace("?", "${}").format(*range(1, 9)), *args)
        else:
            assert self.lite is not None
            self.lite.execute(sql, args)

    async def insert(self, table: str, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
        if self.pg is not None:
            await self.pg.copy_records_to_table(table, records=rows, columns=columns)
        else:
            assert self.lite is not None
            names = ", ".join(f'"{c}"' for c in columns)
            marks = ", ".join("?" * len(columns))
            self.lite.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', rows)  # noqa: S608

    async def worker_backends(self) -> list[int]:
        """PostgreSQL: the process ids of the worker's connections (by application name)."""
        if self.pg is None:
            return []
        rows = await self.pg.fetch(
            "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'pressline-worker-%'"
        )
        return [row[0] for row in rows]

    async def vacuum(self, analyze: bool = True) -> None:
        """PostgreSQL: clear the dead rows earlier runs left in the outbox tables, and bring
        the planner's statistics up to date, as autovacuum would in production (the benchmark
        machine's server may run without it: the claim then slows down run after run)."""
        if self.pg is not None:
            await self.pg.execute(
                f"VACUUM {'ANALYZE' if analyze else ''} webhook_subscriptions, "
                "webhook_deliveries, webhook_events, webhook_attempts"
            )

    async def begin(self) -> None:
        await self.execute("BEGIN IMMEDIATE" if self.lite is not None else "BEGIN")

    async def commit(self) -> None:
        await self.execute("COMMIT")

    async def workspace(
        self, name: str, receiver: Receiver, subscriptions: int, path: str = "hook"
    ) -> int:
        now = dt.datetime.now(dt.UTC)
        await self.execute(
            "INSERT INTO workspaces (name, plan, currency, tax_rate, timezone, "
            "require_artwork_approval, strict_sequence, created_at, updated_at) "
            "VALUES (?, 'premium', 'GBP', 0, 'UTC', ?, ?, ?, ?)",
            name, False, False, now, now,
        )  # fmt: skip
        ws: int = await self.value("SELECT MAX(id) FROM workspaces WHERE name = ?", name)
        for n in range(subscriptions):
            await self.execute(
                "INSERT INTO webhook_subscriptions (workspace, url, events, secret, is_active, "
                "consecutive_failures, created_at, updated_at) VALUES (?, ?, '*', ?, ?, 0, ?, ?)",
                ws, f"{receiver.base}/{path}/{n}", SECRET, True, now, now,
            )  # fmt: skip
        return ws

    async def fill(self, ws: int, count: int) -> None:
        """`count` events, each with one pending delivery, committed in one transaction."""
        subs = await self.ids("SELECT id FROM webhook_subscriptions WHERE workspace = ?", ws)
        first_event = (await self.value("SELECT COALESCE(MAX(id), 0) FROM webhook_events")) + 1
        first_delivery = (
            await self.value("SELECT COALESCE(MAX(id), 0) FROM webhook_deliveries")
        ) + 1
        now = dt.datetime.now(dt.UTC)
        due = now - dt.timedelta(seconds=1)
        events, deliveries = [], []
        for n in range(count):
            event_id = str(uuid.uuid4())
            events.append(
                (first_event + n, ws, event_id, "order.stage_changed", None, None,
                 event_body(event_id, n, now, ws), now)
            )  # fmt: skip
            deliveries.append(
                (first_delivery + n, ws, first_event + n, subs[n % len(subs)], "pending", 0, due,
                 now, now)
            )  # fmt: skip
        await self.begin()
        await self.insert(
            "webhook_events",
            ["id", "workspace", "event_id", "name", "order", "customer", "body", "created_at"],
            events,
        )
        await self.insert(
            "webhook_deliveries",
            ["id", "workspace", "event", "subscription", "status", "attempts", "next_attempt_at",
             "created_at", "updated_at"],
            deliveries,
        )  # fmt: skip
        if self.pg is not None:
            # Statistics that know the backlog, as autovacuum's would, committed with it.
            await self.execute("ANALYZE webhook_deliveries, webhook_events")
            await self.execute("NOTIFY pressline_outbox")
        await self.commit()
        if self.pg is not None:
            for table in ("webhook_events", "webhook_deliveries"):
                await self.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "  # noqa: S608
                    f"(SELECT MAX(id) FROM {table}))"
                )

    async def ids(self, sql: str, *args: Any) -> list[int]:
        if self.pg is not None:
            rows = await self.pg.fetch(sql.replace("?", "$1"), *args)
        else:
            assert self.lite is not None
            rows = self.lite.execute(sql, args).fetchall()
        return [row[0] for row in rows]

    async def drop(self, ws: int) -> None:
        """Remove everything the benchmark added (children first: SQLite has no cascade here)."""
        for sql in (
            "DELETE FROM webhook_attempts WHERE delivery IN "
            "(SELECT id FROM webhook_deliveries WHERE workspace = ?)",
            "DELETE FROM webhook_deliveries WHERE workspace = ?",
            "DELETE FROM webhook_events WHERE workspace = ?",
            "DELETE FROM webhook_subscriptions WHERE workspace = ?",
            "DELETE FROM workspaces WHERE id = ?",
        ):
            await self.execute(sql, ws)


# --- phases --------------------------------------------------------------------------------


async def raw_loop(receiver: Receiver, count: int, in_flight: int = IN_FLIGHT) -> dict[str, Any]:
    """The floor: signed POSTs of the same bodies, straight from an aiohttp client."""
    import aiohttp

    now = dt.datetime.now(dt.UTC)
    from models.delivery_ids import new_delivery_id

    bodies = [event_body(str(uuid.uuid4()), n, now).encode() for n in range(min(count, 1000))]
    ids = [new_delivery_id() for _ in range(count)]  # as the daemon sends them: dlv_…
    key = SECRET.encode()
    receiver.reset()
    queue = iter(range(count))
    statuses: dict[int, int] = {}

    async def worker(session: aiohttp.ClientSession) -> None:
        for n in queue:
            body = bodies[n % len(bodies)]
            headers = {
                "Content-Type": "application/json",
                "User-Agent": USER_AGENT,
                "X-SVC-Event": "order.stage_changed",
                "X-SVC-Signature": "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest(),
                "X-SVC-Delivery": ids[n],
                "X-SVC-Workspace": "1",
                "X-SVC-Attempt": "1",
            }
            async with session.post(
                f"{receiver.base}/hook/{n % SUBSCRIPTIONS}", data=body, headers=headers,
                allow_redirects=False,
            ) as response:  # fmt: skip
                await response.read()
                statuses[response.status] = statuses.get(response.status, 0) + 1

    connector = aiohttp.TCPConnector(limit=in_flight)
    timeout = aiohttp.ClientTimeout(total=10)
    began, cpu_began = time.perf_counter(), time.process_time()
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(*(worker(session) for _ in range(in_flight)))
    seconds = time.perf_counter() - began
    cpu = time.process_time() - cpu_began  # the client's own CPU (the receiver runs apart)
    stats = receiver.stats()
    return {
        "deliveries": count,
        "seconds": seconds,
        "per_s": count / seconds,
        "cpu_ms_per_request": 1000 * cpu / count,
        "received": stats["distinct"],
        "bad_signatures": stats["bad"],
    }


def start_daemon(
    url: str, log: Path, poll_interval: float, **settings: str
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1",
        "WEBHOOK_POLL_INTERVAL": str(poll_interval),
        "PYTHONUNBUFFERED": "1",
        **settings,
    }
    with log.open("wb") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "daemon"], env=env, cwd=common.ROOT, stdout=handle,
            stderr=handle,
        )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the daemon exited: {log.read_text()[-2000:]}")
        if "started" in log.read_text(errors="replace"):
            return process
        time.sleep(0.1)
    process.terminate()
    raise RuntimeError(f"the daemon did not start: {log.read_text()[-2000:]}")


PROFILE = common.BENCH_DIR / "daemon-profile.txt"


def start_recorder(py_spy: str, pid: int) -> subprocess.Popen[bytes]:
    """Sample the daemon for 10 s while it drains (raw stacks for benchmarks.hotpaths)."""
    return subprocess.Popen(  # noqa: S603 - the operator's py-spy
        [py_spy, "record", "--pid", str(pid), "--rate", "250", "--duration", "10",
         "--format", "raw", "--nonblocking", "--output", str(PROFILE)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def stop_daemon(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


async def throughput(
    outbox: Outbox,
    receiver: Receiver,
    daemon: subprocess.Popen[bytes],
    ws: int,
    count: int,
    py_spy: str | None = None,
) -> dict[str, Any]:
    receiver.reset()
    idle_rss = common.memory_kib(daemon.pid)["VmRSS"]
    peak_rss = idle_rss
    await outbox.vacuum(analyze=False)
    filled = time.perf_counter()
    await outbox.fill(ws, count)
    fill_seconds = time.perf_counter() - filled
    committed = time.time()
    cpu_before = common.cpu_seconds(daemon.pid)
    # The database's share, on the same machine: the worker's backends, open since its start.
    backends = await outbox.worker_backends()
    db_before = sum(common.cpu_seconds(pid) for pid in backends)
    recorder = start_recorder(py_spy, daemon.pid) if py_spy else None
    deadline = time.monotonic() + max(60.0, count / 100)
    stats = receiver.stats()
    while stats["distinct"] < count and time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        peak_rss = max(peak_rss, common.memory_kib(daemon.pid)["VmRSS"])
        stats = receiver.stats()
    cpu = common.cpu_seconds(daemon.pid) - cpu_before
    db_cpu = sum(common.cpu_seconds(pid) for pid in backends) - db_before
    if recorder is not None:
        recorder.wait(timeout=60)
    seconds = max(stats["last"] - committed, 1e-6)
    # the daemon marks each delivery after its reply: wait for the rows to say so
    succeeded = 0
    settle = time.monotonic() + 30
    while time.monotonic() < settle:
        succeeded = await outbox.value(
            "SELECT COUNT(*) FROM webhook_deliveries WHERE workspace = ? AND status = 'succeeded'",
            ws,
        )
        if succeeded >= count:
            break
        await asyncio.sleep(0.25)
    return {
        "deliveries": count,
        "received": stats["distinct"],
        "posts": stats["count"],
        "bad_signatures": stats["bad"],
        "seconds": seconds,
        "per_s": stats["distinct"] / seconds,
        "succeeded_rows": succeeded,
        "fill_seconds": fill_seconds,
        "daemon_cpu_ms_per_delivery": 1000 * cpu / max(1, stats["distinct"]),
        "database_cpu_ms_per_delivery": 1000 * db_cpu / max(1, stats["distinct"])
        if backends
        else None,
        "daemon_idle_mib": idle_rss / 1024,
        "daemon_peak_mib": peak_rss / 1024,
    }


async def latency(
    receiver: Receiver,
    ws: int,
    rate: float,
    seconds: float,
    keep_going: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Single events through models.webhooks.events.record_event at `rate`/s for `seconds`
    (and then for as long as `keep_going()` says); commit → receipt."""
    from models.webhooks import events as outbox

    receiver.reset(track=True)
    committed: dict[str, float] = {}
    count = max(1, int(rate * seconds))
    began = time.perf_counter()
    n = -1
    while (n := n + 1) < count or (keep_going is not None and keep_going()):
        delay = began + n / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        fields = outbox.order_fields(
            order_id=n, order_number=f"ORD-2026-{n:05d}", from_stage="artwork",
            to_stage="print_queue", customer={"id": 1, "name": "Latency Ltd", "slug": "latency"},
            due_by=None, timezone="UTC",
        )  # fmt: skip
        # record_event commits in its own transaction (NOTIFY on PostgreSQL)
        event_id = await outbox.record_event(
            workspace_id=ws, name="order.stage_changed", fields=fields
        )
        committed[event_id] = time.time()
    count = len(committed)
    achieved = count / (time.perf_counter() - began)
    deadline = time.monotonic() + 15
    stats = receiver.stats(times=True)
    while len(stats["times"]) < count and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
        stats = receiver.stats(times=True)
    delays = [
        1000 * (stats["times"][event_id] - at)
        for event_id, at in committed.items()
        if event_id in stats["times"]
    ]
    return {
        "events": count,
        "received": len(delays),
        "rate": achieved,
        "p50_ms": common.percentile(delays, 0.5),
        "p99_ms": common.percentile(delays, 0.99),
        "max_ms": max(delays) if delays else float("nan"),
    }


async def fairness(
    outbox: Outbox, receiver: Receiver, ws_single: int, stamp: str, args: argparse.Namespace
) -> list[dict[str, Any]]:
    """Healthy commit-to-receipt beside `hanging` subscriptions (each with a backlog) whose
    receiver accepts and never answers; they live in another workspace, as another tenant."""
    runs = []
    for count in args.hanging:
        await outbox.vacuum()
        ws = None
        if count:
            ws = await outbox.workspace(f"hanging {count} {stamp}", receiver, count, path="hang")
            await outbox.fill(ws, count * BACKLOG)
            await asyncio.sleep(1.0)  # the worker takes their first attempts
        try:
            result = await latency(receiver, ws_single, args.fair_rate, args.fair_seconds)
        finally:
            if ws is not None:
                await outbox.drop(ws)
        hanging_now = receiver.stats()["hanging"]
        runs.append({"hanging": count, "hanging_requests": hanging_now, **result})
        print(f"  fairness, {count} hanging: p99 {result['p99_ms']:.0f} ms", flush=True)
    return runs


async def exact_limit(
    outbox: Outbox, receiver: Receiver, stamp: str, repetitions: int
) -> dict[str, Any]:
    """Each repetition: a new subscription to a receiver answering 500, with 3x the limit of
    events queued at once; wait until it is deactivated and nothing is in flight, then count
    what the receiver saw."""
    seen = []
    for rep in range(repetitions):
        ws = await outbox.workspace(f"exact {rep} {stamp}", receiver, 1, path=f"fail/{rep}")
        await outbox.fill(ws, 3 * DEACTIVATE_AFTER)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            active = await outbox.value(
                "SELECT COUNT(*) FROM webhook_subscriptions "
                "WHERE workspace = ? AND (is_active OR in_flight > 0)",
                ws,
            )
            if not active:
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.5)  # a retry after the 1 s backoff would have come by now
        seen.append(receiver.stats()["fails"].get(f"{rep}/0", 0))
        await outbox.drop(ws)
    return {"repetitions": repetitions, "attempts": seen, "max": max(seen), "min": min(seen)}


# --- claim cost ----------------------------------------------------------------------------


async def seed_waiting(outbox: Outbox, ws: int, count: int) -> None:
    """`count` subscriptions of `ws`, each with one pending delivery whose retry is due in an
    hour (attempt 1 failed), and one more subscription with CLAIM_DUE deliveries due now.
    PostgreSQL, bulk (COPY)."""
    pg = outbox.pg
    now = dt.datetime.now(dt.UTC)
    later = now + dt.timedelta(hours=1)
    first_sub = await pg.fetchval("SELECT COALESCE(MAX(id), 0) + 1 FROM webhook_subscriptions")
    subs = [
        (first_sub + n, ws, f"http://127.0.0.1:9/wait/{n}", "*", SECRET, True, 1, now, now)
        for n in range(count + 1)
    ]
    await pg.copy_records_to_table(
        "webhook_subscriptions",
        records=subs,
        columns=["id", "workspace", "url", "events", "secret", "is_active",
                 "consecutive_failures", "created_at", "updated_at"],
    )  # fmt: skip
    due_sub = first_sub + count
    first_event = await pg.fetchval("SELECT COALESCE(MAX(id), 0) + 1 FROM webhook_events")
    first_delivery = await pg.fetchval("SELECT COALESCE(MAX(id), 0) + 1 FROM webhook_deliveries")
    body = event_body(str(uuid.uuid4()), 1, now, ws)
    events, deliveries = [], []
    for n in range(count + CLAIM_DUE):
        event_id = str(uuid.uuid4())
        events.append((first_event + n, ws, event_id, "order.stage_changed", body, now))
        waiting = n < count
        deliveries.append(
            (first_delivery + n, ws, first_event + n, first_sub + n if waiting else due_sub,
             "pending", 1 if waiting else 0, later if waiting else now - dt.timedelta(seconds=1),
             now, now)
        )  # fmt: skip
    await pg.copy_records_to_table(
        "webhook_events",
        records=events,
        columns=["id", "workspace", "event_id", "name", "body", "created_at"],
    )
    await pg.copy_records_to_table(
        "webhook_deliveries",
        records=deliveries,
        columns=["id", "workspace", "event", "subscription", "status", "attempts",
                 "next_attempt_at", "created_at", "updated_at"],
    )  # fmt: skip
    for table in ("webhook_subscriptions", "webhook_events", "webhook_deliveries"):
        await pg.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))"  # noqa: S608
        )


async def fold_due(pg: Any) -> None:
    """Apply the due marks the seed's deliveries left, as the claims that made those attempts
    did (a tree without marks has nothing to fold)."""
    from daemon import claim

    fold = getattr(claim, "FOLD_DUE", None)
    while fold is not None:  # a fold takes at most 10,000 marks
        await pg.execute(fold)
        if not await pg.fetchval("SELECT EXISTS (SELECT 1 FROM webhook_due_marks)"):
            break


CLAIM_TYPES = ("timestamptz", "integer", "integer", "integer", "timestamptz", "text",
               "integer[]", "timestamptz[]", "integer[]")  # fmt: skip


def claim_args(now: dt.datetime) -> list[Any]:
    """PG_CLAIM's arguments for a worker with room for 1,024 and nothing unwritten (a tree
    whose PG_CLAIM takes fewer parameters gets the first ones: `before` runs use it too)."""
    from daemon import claim

    args: list[Any] = [now, PER_SUBSCRIPTION, DEACTIVATE_AFTER, 1024,
                       now + dt.timedelta(seconds=60), "bench-claim", [], [], []]  # fmt: skip
    used = max(int(n) for n in re.findall(r"\$(\d+)", claim.PG_CLAIM))
    return args[:used]


def _literal(value: Any, kind: str) -> str:
    if isinstance(value, dt.datetime):
        return f"'{value.isoformat()}'::{kind}"
    if isinstance(value, list):
        return f"'{{}}'::{kind}"
    if isinstance(value, str):
        return f"'{value}'"
    return str(value)


async def rolled_back(pg: Any, mode: str, prefix: str, now: dt.datetime) -> tuple[list[Any], float]:
    """PG_CLAIM (after `prefix`, e.g. EXPLAIN) in a transaction rolled back, with PostgreSQL's
    custom or generic plan: its rows and its round trip in ms (with no prefix: the worker's
    whole claim, FOLD_DUE's round trip included where the tree has it). EXPLAIN runs the statement
    prepared under SQL's own PREPARE (`claim_q`), so that the plan cache's choice is the plan
    explained (an EXPLAIN sent with parameters is planned with their values)."""
    from daemon import claim

    await pg.execute(f"BEGIN; SET LOCAL plan_cache_mode = force_{mode}_plan")
    try:
        began = time.perf_counter()
        if prefix:
            args = claim_args(now)
            values = ", ".join(_literal(a, k) for a, k in zip(args, CLAIM_TYPES, strict=False))
            rows = list(await pg.fetch(f"{prefix} EXECUTE claim_q({values})"))
        else:
            fold = getattr(claim, "FOLD_DUE", None)  # the worker's step before each claim
            if fold is not None:
                await pg.execute(fold)
            rows = list(await pg.fetch(claim.PG_CLAIM, *claim_args(now)))
        return rows, 1000 * (time.perf_counter() - began)
    finally:
        await pg.execute("ROLLBACK")


async def prepare_claim(pg: Any) -> None:
    from daemon import claim

    used = len(claim_args(dt.datetime.now(dt.UTC)))
    with contextlib.suppress(Exception):  # a statement of the previous count
        await pg.execute("DEALLOCATE claim_q")
    await pg.execute(f"PREPARE claim_q({', '.join(CLAIM_TYPES[:used])}) AS {claim.PG_CLAIM}")


async def claim_cost(outbox: Outbox, counts: list[int], repetitions: int) -> list[dict[str, Any]]:
    """Per count: the claim's execution time (EXPLAIN ANALYZE) and round trip, rolled back
    each time so every repetition claims the same CLAIM_DUE rows."""
    pg, runs = outbox.pg, []
    for count in counts:
        stamp = f"claim {count} {os.getpid()}-{int(time.time())}"
        await outbox.execute(
            "INSERT INTO workspaces (name, plan, currency, tax_rate, timezone, "
            "require_artwork_approval, strict_sequence, created_at, updated_at) "
            "VALUES (?, 'premium', 'GBP', 0, 'UTC', false, false, now(), now())",
            stamp,
        )
        ws = await outbox.value("SELECT MAX(id) FROM workspaces WHERE name = ?", stamp)
        try:
            await seed_waiting(outbox, ws, count)
            await fold_due(pg)
            await outbox.vacuum()
            await prepare_claim(pg)
            result: dict[str, Any] = {"subscriptions": count}
            for mode in ("custom", "generic"):
                executions, buffers, wall, taken = [], [], [], 0
                plan_text = ""
                for rep in range(repetitions):
                    now = dt.datetime.now(dt.UTC)
                    if rep == 0:
                        rows, _ = await rolled_back(pg, mode, "EXPLAIN (ANALYZE, BUFFERS)", now)
                        plan_text = "\n".join(row[0] for row in rows)
                    [[plan]], _ = await rolled_back(
                        pg, mode, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)", now
                    )
                    top = (json.loads(plan) if isinstance(plan, str) else plan)[0]
                    executions.append(top["Execution Time"])
                    node = top["Plan"]
                    buffers.append(node.get("Shared Hit Blocks", 0)
                                   + node.get("Shared Read Blocks", 0))  # fmt: skip
                    claimed, ms = await rolled_back(pg, mode, "", now)
                    taken = len(claimed)
                    wall.append(ms)
                result[mode] = {
                    "execution_ms_p50": common.percentile(executions, 0.5),
                    "execution_ms_p90": common.percentile(executions, 0.9),
                    "round_trip_ms_p50": common.percentile(wall, 0.5),
                    "buffers_p50": common.percentile(buffers, 0.5),
                    "taken": taken,
                    "plan": plan_text,
                }
            runs.append(result)
            print(
                f"  claim, {count:,} subscriptions waiting: "
                f"{result['custom']['execution_ms_p50']:.2f} ms (custom plan), "
                f"{result['generic']['execution_ms_p50']:.2f} ms (generic), "
                f"{result['custom']['taken']} taken",
                flush=True,
            )
        finally:
            await outbox.drop(ws)
    return runs


def summarise_claims(database: str, runs: list[dict[str, Any]], plans: bool) -> str:
    rows = []
    for run in runs:
        custom, generic = run["custom"], run["generic"]
        worst = max(custom["execution_ms_p50"], generic["execution_ms_p50"])
        rows.append((
            f"{run['subscriptions']:,} waiting + 1 due",
            f"{custom['execution_ms_p50']:.2f} ms",
            f"p90 {custom['execution_ms_p90']:.2f} ms; generic plan p50 "
            f"{generic['execution_ms_p50']:.2f} ms, p90 {generic['execution_ms_p90']:.2f} ms; "
            f"round trip {custom['round_trip_ms_p50']:.2f} ms (custom: planned each time), "
            f"{generic['round_trip_ms_p50']:.2f} ms (generic); "
            f"{custom['buffers_p50']:.0f} buffers; {custom['taken']} taken",
            f"<= {CLAIM_TARGET_MS} ms" + (" met" if worst <= CLAIM_TARGET_MS else " missed"),
        ))  # fmt: skip
    lines = [f"## claim cost on {database} (PG_CLAIM, execution time from EXPLAIN ANALYZE)", "",
             common.table(["subscriptions", "claim p50", "detail", "target"], rows)]  # fmt: skip
    if plans:
        for run in runs:
            for mode in ("custom", "generic"):
                lines += ["", f"### plan at {run['subscriptions']:,} subscriptions ({mode} plan)",
                          "", run[mode]["plan"]]  # fmt: skip
    return "\n".join(lines)


async def benchmark(url: str, args: argparse.Namespace) -> dict[str, Any] | None:
    if not (common.ROOT / "daemon" / "__main__.py").exists():
        print("the webhook daemon (daemon/__main__.py) is not there yet: nothing to measure")
        return None
    from models import db

    db.bind(db.engine_from_url(url))
    await db.migrate()
    await db.start()
    outbox = Outbox(url)
    await outbox.open()
    report: dict[str, Any] = {"database": common.label(url), "kind": common.kind(url)}
    stamp = f"{os.getpid()}-{int(time.time())}"
    if outbox.pg is not None and args.claim_subscriptions:
        try:
            report["claims"] = await claim_cost(
                outbox, args.claim_subscriptions, args.claim_repetitions
            )
        finally:
            if args.only == "claim":
                await outbox.close()
                await db.stop()
    if args.only == "claim":
        report["machine"] = common.machine()
        return report
    with Receiver() as receiver, tempfile.TemporaryDirectory() as tmp:
        ws_bulk = await outbox.workspace(f"webhook bench {stamp}", receiver, args.subscriptions)
        ws_single = await outbox.workspace(f"webhook latency {stamp}", receiver, 1)
        try:
            report["raw"] = await raw_loop(receiver, args.deliveries)
            print(f"  raw signed-POST loop: {report['raw']['per_s']:,.0f}/s", flush=True)
            cap = {"WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION": str(args.per_subscription)}
            daemon = start_daemon(url, Path(tmp) / "daemon.log", args.poll_interval, **cap)
            ws_hanging = None
            try:
                if args.beside_hanging:  # hanging tenants, each with a backlog, beside the drain
                    ws_hanging = await outbox.workspace(
                        f"beside {stamp}", receiver, args.beside_hanging, path="hang"
                    )
                    await outbox.fill(ws_hanging, args.beside_hanging * BACKLOG)
                    await asyncio.sleep(1.0)  # the worker takes their first attempts
                report["daemon"] = await throughput(
                    outbox, receiver, daemon, ws_bulk, args.deliveries, args.py_spy
                )
                report["daemon"]["beside_hanging"] = args.beside_hanging
                if ws_hanging is not None:
                    await outbox.drop(ws_hanging)
                    ws_hanging = None
                print(f"  daemon: {report['daemon']['per_s']:,.0f} deliveries/s", flush=True)
                await outbox.vacuum()
                report["latency"] = await latency(
                    receiver, ws_single, args.rate, args.latency_seconds
                )
                print(f"  latency p50 {report['latency']['p50_ms']:.1f} ms", flush=True)
                report["fairness"] = await fairness(outbox, receiver, ws_single, stamp, args)
                report["daemon_log_tail"] = (Path(tmp) / "daemon.log").read_text()[-1500:]
            finally:
                stop_daemon(daemon)
                if ws_hanging is not None:
                    await outbox.drop(ws_hanging)
            # Concurrency on: 16 attempts of one subscription at once, two workers on
            # PostgreSQL (one per SQLite database, as the README says), retries after 1 s.
            exact = {"WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION": "16", "WEBHOOK_BACKOFF": "1"}
            workers = [
                start_daemon(url, Path(tmp) / f"exact-{n}.log", args.poll_interval, **exact)
                for n in range(2 if common.is_postgres(url) else 1)
            ]
            try:
                report["exact"] = await exact_limit(outbox, receiver, stamp, args.repetitions)
                print(f"  exact limit: at most {report['exact']['max']} attempts", flush=True)
            finally:
                for worker in workers:
                    stop_daemon(worker)
        finally:
            await outbox.drop(ws_bulk)
            await outbox.drop(ws_single)
            await outbox.close()
            await db.stop()
    report["poll_interval"] = args.poll_interval
    report["machine"] = common.machine()
    return report


def summarise(report: dict[str, Any]) -> str:
    raw, daemon, lat = report["raw"], report["daemon"], report["latency"]
    ratio = daemon["per_s"] / raw["per_s"]
    postgres = report["kind"] == "postgres"
    if postgres:
        lat_target = f"p50 <= {TARGETS['p50_ms']:.0f} ms, p99 <= {TARGETS['p99_ms']:.0f} ms"
        lat_met = lat["p50_ms"] <= TARGETS["p50_ms"] and lat["p99_ms"] <= TARGETS["p99_ms"]
    else:
        bound = report["poll_interval"] * 1000 + 100
        lat_target = f"p99 <= poll interval + 100 ms = {bound:.0f} ms"
        lat_met = lat["p99_ms"] <= bound
    rows = [
        (f"raw signed-POST loop ({IN_FLIGHT} in flight)", f"{raw['per_s']:,.0f}/s",
         f"{raw['deliveries']:,} in {raw['seconds']:.1f} s, "
         f"{raw['cpu_ms_per_request']:.3f} ms client CPU each", "-"),
        ("daemon, outbox drained", f"{daemon['per_s']:,.0f}/s ({ratio:.2f}x raw)",
         f"{daemon['received']:,}/{daemon['deliveries']:,} received, "
         f"{daemon['succeeded_rows']:,} rows succeeded, "
         f"{daemon['daemon_cpu_ms_per_delivery']:.3f} ms CPU each",
         f">= {TARGETS['raw_ratio']}x raw, <= {TARGETS['cpu_ms']} ms CPU"
         + (" met" if ratio >= TARGETS["raw_ratio"]
            and daemon["daemon_cpu_ms_per_delivery"] <= TARGETS["cpu_ms"] else " missed")),
    ]  # fmt: skip
    db_cpu = daemon.get("database_cpu_ms_per_delivery")
    if db_cpu is not None:
        rows.append(("database, the worker's connections", "-",
                     f"{db_cpu:.3f} ms CPU per delivery", "-"))  # fmt: skip
    rows += [
        ("daemon RSS", f"{daemon['daemon_peak_mib']:.0f} MiB peak",
         f"idle {daemon['daemon_idle_mib']:.0f} MiB, {daemon['deliveries']:,} pending",
         "< 150 MiB" + (" met" if daemon["daemon_peak_mib"] < 150 else " missed")),
        (f"commit-to-receipt at {lat['rate']:.0f}/s", f"p50 {lat['p50_ms']:.1f} ms",
         f"p99 {lat['p99_ms']:.1f} ms, max {lat['max_ms']:.1f} ms, "
         f"{lat['received']}/{lat['events']} received",
         lat_target + (" met" if lat_met else " missed")),
    ]  # fmt: skip
    for run in report["fairness"]:
        rows.append((
            f"healthy beside {run['hanging']} hanging subscriptions",
            f"p50 {run['p50_ms']:.1f} ms", f"p99 {run['p99_ms']:.1f} ms, "
            f"{run['received']}/{run['events']} received",
            "p99 < 1000 ms" + (" met" if run["p99_ms"] < 1000 else " missed"),
        ))  # fmt: skip
    exact = report["exact"]
    rows.append((
        f"failing receiver, {exact['repetitions']} repetitions", f"max {exact['max']} attempts",
        f"min {exact['min']}; each run: {', '.join(map(str, exact['attempts']))}",
        f"exactly {DEACTIVATE_AFTER}"
        + (" met" if exact["max"] == exact["min"] == DEACTIVATE_AFTER else " missed"),
    ))  # fmt: skip
    mode = "LISTEN/NOTIFY" if postgres else f"polling every {report['poll_interval']:g} s"
    return "\n".join(
        [
            f"## webhooks on {report['database']} ({report['kind']}, {mode})",
            f"machine: {report['machine']}",
            "",
            common.table(["path", "figure", "detail", "target"], rows),
        ]
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.webhooks", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--deliveries", type=int, default=100_000)
    parser.add_argument("--rate", type=float, default=100, help="events/s for the latency run")
    parser.add_argument("--latency-seconds", type=float, default=30)
    parser.add_argument("--poll-interval", type=float, default=1.0)
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    parser.add_argument(
        "--py-spy", help="py-spy executable: sample the daemon 10 s (benchmarks/daemon-profile.txt)"
    )
    parser.add_argument(
        "--hanging", type=int, nargs="+", default=list(HANGING), help="fairness runs"
    )
    parser.add_argument("--fair-rate", type=float, default=20, help="healthy events/s")
    parser.add_argument("--fair-seconds", type=float, default=8)
    parser.add_argument("--repetitions", type=int, default=EXACT_REPETITIONS)
    parser.add_argument(
        "--subscriptions", type=int, default=SUBSCRIPTIONS, help="throughput run's subscriptions"
    )
    parser.add_argument(
        "--beside-hanging", type=int, default=0,
        help="hanging subscriptions (each with a backlog) during the throughput drain",
    )  # fmt: skip
    parser.add_argument(
        "--claim-subscriptions", type=int, nargs="*", default=list(CLAIM_SUBSCRIPTIONS),
        help="claim cost (PostgreSQL): subscriptions waiting on a retry; none to skip",
    )  # fmt: skip
    parser.add_argument("--claim-repetitions", type=int, default=CLAIM_REPETITIONS)
    parser.add_argument(
        "--per-subscription", type=int, default=PER_SUBSCRIPTION,
        help="WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION for the throughput, latency and fairness runs",
    )  # fmt: skip
    parser.add_argument("--plans", action="store_true", help="print the claim's plans")
    parser.add_argument("--only", choices=["claim"], help="run only this part")
    parser.add_argument("--smoke", action="store_true", help="tiny throwaway databases")
    parser.add_argument("--receiver", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.smoke:
        args.deliveries, args.latency_seconds = 300, 1.0
        args.hanging, args.fair_seconds, args.repetitions = [0, 3], 1.0, 2
        args.claim_subscriptions, args.claim_repetitions = [10, 100], 3
    return args


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    if not args.smoke:
        report = await benchmark(common.database_url(), args)
        return [report] if report else []
    reports = []
    for backend in await common.smoke_backends():
        async with common.throwaway(backend) as url:
            report = await benchmark(url, args)
            if report is None:
                return []
            reports.append(report)
    return reports


def main() -> None:
    common.require_module_run(__package__, "webhooks")
    args = parse_args()
    if args.receiver:
        receiver_main(args.receiver)
        return
    reports = asyncio.run(run(args))
    for report in reports:
        if report.get("claims"):
            print()
            print(summarise_claims(report["database"], report["claims"], args.plans))
        if args.only != "claim":
            print()
            print(summarise(report))
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1))
    failed = [
        r
        for r in reports
        if args.only != "claim"
        and (
            r["daemon"]["received"] < r["daemon"]["deliveries"]
            or r["daemon"]["bad_signatures"]
            or r["latency"]["received"] < r["latency"]["events"]
            or any(run["received"] < run["events"] for run in r["fairness"])
            or r["exact"]["max"] > DEACTIVATE_AFTER
        )
    ]
    if failed:
        print("ERROR: deliveries were lost or badly signed, or more attempts than the limit")
        sys.exit(1)
    if not reports and not args.smoke:
        sys.exit(1)


if __name__ == "__main__":
    main()
