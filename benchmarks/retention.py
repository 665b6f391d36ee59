"""Delivery latency while the retention prune deletes old history, against the same run without.

1. A throwaway database, a receiver (its own process) and the daemon (`python -m daemon`).
2. Old history, bulk-inserted: N finished deliveries, each with its event and one attempt,
   last changed beyond the retention period.
3. Latency without a prune: single events through the real write path at `rate`/s;
   commit-to-receipt p50/p99 (benchmarks.webhooks.latency).
4. Latency with a prune: the same, while `models.retention.prune` runs in a process of its
   own (as the worker's job does, against the same database) until it has deleted everything.

    python -m benchmarks.retention                      # PostgreSQL, 1,000,000 old rows
    python -m benchmarks.retention --sqlite --rows 200000
    python -m benchmarks.retention --smoke
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from benchmarks import common, webhooks

RETENTION_DAYS = 30
CHUNK = 50_000  # rows per bulk insert
TARGET_P99_RATIO = 1.5


async def seed_history(outbox: webhooks.Outbox, ws: int, rows: int) -> None:
    """`rows` succeeded deliveries (event + delivery + attempt each), 40 days old."""
    sub = (await outbox.ids("SELECT id FROM webhook_subscriptions WHERE workspace = ?", ws))[0]
    old = dt.datetime.now(dt.UTC) - dt.timedelta(days=RETENTION_DAYS + 10)
    body = webhooks.event_body(str(uuid.uuid4()), 1, old, ws)
    base = {
        table: (await outbox.value(f"SELECT COALESCE(MAX(id), 0) FROM {table}")) + 1  # noqa: S608
        for table in ("webhook_events", "webhook_deliveries", "webhook_attempts")
    }
    for start in range(0, rows, CHUNK):
        span = range(start, min(rows, start + CHUNK))
        await outbox.begin()
        await outbox.insert(
            "webhook_events",
            ["id", "workspace", "event_id", "name", "body", "created_at"],
            [
                (
                    base["webhook_events"] + n,
                    ws,
                    str(uuid.uuid4()),
                    "order.stage_changed",
                    body,
                    old,
                )
                for n in span
            ],
        )
        await outbox.insert(
            "webhook_deliveries",
            ["id", "workspace", "event", "subscription", "status", "attempts", "next_attempt_at",
             "completed_at", "created_at", "updated_at"],
            [
                (base["webhook_deliveries"] + n, ws, base["webhook_events"] + n, sub, "succeeded",
                 1, old, old, old, old)
                for n in span
            ],
        )  # fmt: skip
        await outbox.insert(
            "webhook_attempts",
            ["id", "delivery", "number", "started_at", "duration_ms", "status_code",
             "response_headers", "response_body", "response_truncated", "response_length",
             "worker"],
            [
                (base["webhook_attempts"] + n, base["webhook_deliveries"] + n, 1, old, 12, 200,
                 "{}", "ok", False, 2, "bench")
                for n in span
            ],
        )  # fmt: skip
        await outbox.commit()
    if outbox.pg is not None:
        for table in base:
            await outbox.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "  # noqa: S608
                f"(SELECT MAX(id) FROM {table}))"
            )
        await outbox.execute("VACUUM ANALYZE webhook_deliveries")
        await outbox.execute("VACUUM ANALYZE webhook_events")
        await outbox.execute("VACUUM ANALYZE webhook_attempts")


def start_prune(url: str, report: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "benchmarks.retention", "--prune-into", str(report)]
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.Popen(command, cwd=common.ROOT, env=env)  # noqa: S603 - our own script


async def prune_main() -> dict[str, Any]:
    """The prune, as the worker runs it, in this process."""
    from models import db, retention

    db.bind(db.engine_from_url(common.database_url()))
    await db.start()
    began = time.perf_counter()
    pruned = await retention.prune(RETENTION_DAYS)
    seconds = time.perf_counter() - began
    await db.stop()
    return {"deliveries": pruned.deliveries, "events": pruned.events, "seconds": seconds}


async def benchmark(url: str, args: argparse.Namespace) -> dict[str, Any]:
    from models import db

    db.bind(db.engine_from_url(url))
    await db.migrate()
    await db.start()
    outbox = webhooks.Outbox(url)
    await outbox.open()
    report: dict[str, Any] = {"database": common.kind(url), "rows": args.rows}
    stamp = f"{os.getpid()}-{int(time.time())}"
    with webhooks.Receiver() as receiver, tempfile.TemporaryDirectory() as tmp:
        ws = await outbox.workspace(f"retention bench {stamp}", receiver, 1)
        began = time.perf_counter()
        await seed_history(outbox, ws, args.rows)
        report["seed_seconds"] = time.perf_counter() - began
        print(
            f"  seeded {args.rows:,} old deliveries in {report['seed_seconds']:.0f} s", flush=True
        )
        # The measured prune is the one started below: the worker's own hourly job must
        # find nothing to delete, or the two would share the work.
        daemon = webhooks.start_daemon(
            url, Path(tmp) / "daemon.log", args.poll_interval, WEBHOOK_RETENTION_DAYS="36500"
        )
        try:
            report["without"] = await webhooks.latency(receiver, ws, args.rate, args.seconds)
            print(f"  without a prune: p99 {report['without']['p99_ms']:.1f} ms", flush=True)
            figures = Path(tmp) / "prune.json"
            prune = start_prune(url, figures)
            report["with"] = await webhooks.latency(
                receiver, ws, args.rate, args.seconds, keep_going=lambda: prune.poll() is None
            )
            prune.wait(timeout=3600)
            report["prune"] = json.loads(figures.read_text())
            print(f"  with a prune: p99 {report['with']['p99_ms']:.1f} ms", flush=True)
            # Again without, so a change of load on the machine shows as a change of baseline.
            report["after"] = await webhooks.latency(receiver, ws, args.rate, args.seconds)
            print(f"  after the prune: p99 {report['after']['p99_ms']:.1f} ms", flush=True)
        finally:
            webhooks.stop_daemon(daemon)
            await outbox.drop(ws)
            await outbox.close()
            await db.stop()
    report["machine"] = common.machine()
    return report


def summarise(report: dict[str, Any]) -> str:
    with_, prune = report["with"], report["prune"]
    baseline = (report["without"]["p99_ms"] + report["after"]["p99_ms"]) / 2
    ratio = with_["p99_ms"] / baseline
    rows = [
        [name, f"{phase['p50_ms']:.1f}", f"{phase['p99_ms']:.1f}", f"{phase['events']:,}", ""]
        for name, phase in (("before the prune", report["without"]),
                            ("after the prune", report["after"]))
    ]  # fmt: skip
    rows.insert(
        1,
        ["during the prune", f"{with_['p50_ms']:.1f}", f"{with_['p99_ms']:.1f}",
         f"{with_['events']:,}", f"{ratio:.2f}x of before/after (target <= {TARGET_P99_RATIO}x)"],
    )  # fmt: skip
    return "\n".join(
        [
            f"{report['database']}: pruned {prune['deliveries']:,} deliveries and "
            f"{prune['events']:,} events in {prune['seconds']:.1f} s",
            common.table(["delivery latency", "p50 ms", "p99 ms", "events", "p99 ratio"], rows),
        ]
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.retention", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--rows", type=int, default=1_000_000, help="old deliveries to prune")
    parser.add_argument("--sqlite", action="store_true", help="SQLite instead of PostgreSQL")
    parser.add_argument("--rate", type=float, default=50, help="events/s while measuring")
    parser.add_argument("--seconds", type=float, default=20, help="least seconds per phase")
    parser.add_argument(
        "--poll-interval",
        type=float,
        default=0.1,
        help="the worker's polling (SQLite's only wake-up; PostgreSQL also has LISTEN)",
    )
    parser.add_argument("--smoke", action="store_true", help="tiny throwaway databases")
    parser.add_argument("--prune-into", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.smoke:
        args.rows, args.seconds, args.rate = 2_000, 1.0, 20
    return args


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    backends = await common.smoke_backends() if args.smoke else []
    if not args.smoke:
        backends = ["sqlite" if args.sqlite else "postgres"]
    reports = []
    for backend in backends:
        async with common.throwaway(backend, "retention") as url:
            reports.append(await benchmark(url, args))
    return reports


def main() -> None:
    common.require_module_run(__package__, "retention")
    args = parse_args()
    if args.prune_into:
        args.prune_into.write_text(json.dumps(asyncio.run(prune_main())))
        return
    reports = asyncio.run(run(args))
    for report in reports:
        print()
        print(summarise(report))
    lost = [
        r
        for r in reports
        for phase in ("without", "with")
        if r[phase]["received"] < r[phase]["events"]
    ]
    if lost or any(r["prune"]["deliveries"] != r["rows"] for r in reports):
        print("ERROR: deliveries were lost, or the prune left old rows")
        sys.exit(1)


if __name__ == "__main__":
    main()
