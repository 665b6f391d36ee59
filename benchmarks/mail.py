"""Customer email through the worker: messages/s and worker CPU per message against a local
aiosmtpd server, and webhook delivery throughput with and without mail in the same worker.

1. A local aiosmtpd server (its own process) accepts every message.
2. Mail alone: N queued customer messages are committed at once; one worker (`python -m
   daemon`, SMTP_URL set) sends them; messages/s from commit to the last row `sent`, and the
   worker's CPU per message.
3. Webhooks alone, then webhooks with N messages queued just before: deliveries/s of the same
   outbox drain (benchmarks.webhooks' receiver and rows), so mail's cost to webhooks shows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pressline_bench python -m benchmarks.mail
    DATABASE_URL=… python -m benchmarks.mail --mail-only --rounds 5   # step 2 only
    python -m benchmarks.mail --smoke
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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

from benchmarks import common
from benchmarks.webhooks import SUBSCRIPTIONS, Outbox, Receiver, start_daemon, stop_daemon
from benchmarks.webhooks import throughput as webhook_throughput

TARGETS = {"messages_per_s": 300.0, "webhook_ratio": 0.9}
BODY = "Hello Dana,\n\nGood news: your order is being printed right now.\n\n" * 3
HTML = "<!doctype html><html><body>" + "<p>Good news: your order is being printed.</p>" * 20


# --- the SMTP server (a separate process) ----------------------------------------------------


def smtp_main(port: int) -> None:
    from aiosmtpd.smtp import SMTP

    class Count:
        messages = 0

        async def handle_DATA(self, *_: Any) -> str:
            Count.messages += 1
            return "250 OK queued"

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: SMTP(Count(), hostname="bench.local", loop=loop), "127.0.0.1", port
        )
        async with server:
            await server.serve_forever()

    asyncio.run(serve())


@contextlib.contextmanager
def smtp_server() -> Any:
    port = common.free_port()
    command = [sys.executable, "-m", "benchmarks.mail", "--smtp", str(port)]
    process = subprocess.Popen(command, cwd=common.ROOT)  # noqa: S603 - our own script
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                __import__("socket").create_connection(("127.0.0.1", port), timeout=1),
            ):
                break
            time.sleep(0.1)
        yield f"smtp://127.0.0.1:{port}", process.pid
    finally:
        process.terminate()
        process.wait(timeout=10)


# --- rows --------------------------------------------------------------------------------------


async def order_for(ws: int) -> tuple[int, int]:
    """A customer and an order to hang the messages on (through the tables)."""
    from models.tables import Customer, Order

    customer = Customer(workspace=ws, name="Bench Tees", slug=f"bench-{uuid.uuid4().hex[:8]}")
    await customer.save()
    order = Order(
        workspace=ws, customer=customer.id, number=f"ORD-2026-{uuid.uuid4().int % 10**6:06d}",
        number_year=2026, number_seq=1, currency="GBP",
    )  # fmt: skip
    await order.save()
    return int(customer.id), int(order.id)


async def queue_messages(outbox: Outbox, ws: int, customer: int, order: int, count: int) -> None:
    """`count` queued messages, committed in one transaction (as many moves would queue)."""
    now = dt.datetime.now(dt.UTC)
    due = now - dt.timedelta(seconds=1)
    rows = [
        (ws, order, customer, "order.in_production", f"Order ORD-2026-{n:04d} is in production",
         BODY, "queued", now, f"customer{n}@example.com", "Bench Prints", "shop@example.com",
         f"<{uuid.uuid4().hex}@bench.local>", HTML, 0, due, now)
        for n in range(count)
    ]  # fmt: skip
    await outbox.begin()
    await outbox.insert(
        "customer_messages",
        ["workspace", "order", "customer", "kind", "subject", "body", "status", "created_at",
         "recipient", "from_name", "reply_to", "message_id", "body_html", "attempts",
         "next_attempt_at", "updated_at"],
        rows,
    )  # fmt: skip
    await outbox.commit()


async def sent(outbox: Outbox, ws: int) -> int:
    found: int = await outbox.value(
        "SELECT COUNT(*) FROM customer_messages WHERE workspace = ? AND status = 'sent'", ws
    )
    return found


async def mail_alone(
    outbox: Outbox,
    worker: subprocess.Popen[bytes],
    server_pid: int,
    ws: int,
    ids: tuple[int, int],
    count: int,
) -> dict[str, Any]:
    before = await sent(outbox, ws)
    await queue_messages(outbox, ws, *ids, count)
    started = time.perf_counter()
    cpu_before = common.cpu_seconds(worker.pid)
    server_before = common.cpu_seconds(server_pid)
    deadline = time.monotonic() + max(60.0, count / 50)
    done = before
    while done - before < count and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        done = await sent(outbox, ws)
    seconds = time.perf_counter() - started
    cpu = common.cpu_seconds(worker.pid) - cpu_before
    server_cpu = common.cpu_seconds(server_pid) - server_before
    return {
        "smtp_server_cpu_ms_per_message": 1000 * server_cpu / max(1, done - before),
        "messages": count,
        "sent": done - before,
        "seconds": seconds,
        "per_s": (done - before) / seconds,
        "worker_cpu_ms_per_message": 1000 * cpu / max(1, done - before),
    }


async def benchmark(url: str, args: argparse.Namespace) -> dict[str, Any]:
    from models import db

    db.bind(db.engine_from_url(url))
    await db.migrate()
    await db.start()
    outbox = Outbox(url)
    await outbox.open()
    report: dict[str, Any] = {"database": common.label(url), "kind": common.kind(url)}
    stamp = f"{os.getpid()}-{int(time.time())}"
    with (
        Receiver() as receiver,
        smtp_server() as (smtp_url, server_pid),
        tempfile.TemporaryDirectory() as tmp,
    ):
        ws = await outbox.workspace(f"mail bench {stamp}", receiver, SUBSCRIPTIONS)
        ids = await order_for(ws)
        worker = start_daemon(
            url,
            Path(tmp) / "worker.log",
            args.poll_interval,
            SMTP_URL=smtp_url,
        )
        try:
            rounds: dict[str, list[dict[str, Any]]] = {"mail": [], "alone": [], "with": []}
            report["mail_during_webhooks"] = args.messages
            for n in range(args.rounds):
                rounds["mail"].append(
                    await mail_alone(outbox, worker, server_pid, ws, ids, args.messages)
                )
                if args.mail_only:
                    mail = rounds["mail"][-1]
                    print(
                        f"  round {n + 1}: mail {mail['per_s']:,.0f}/s, "
                        f"{mail['worker_cpu_ms_per_message']:.2f} ms worker CPU each",
                        flush=True,
                    )
                    continue
                rounds["alone"].append(
                    await webhook_throughput(outbox, receiver, worker, ws, args.deliveries)
                )
                before = await sent(outbox, ws)
                await queue_messages(outbox, ws, *ids, args.messages)
                rounds["with"].append(
                    await webhook_throughput(outbox, receiver, worker, ws, args.deliveries)
                )
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    if await sent(outbox, ws) - before >= args.messages:
                        break
                    await asyncio.sleep(0.1)
                report["mail_during_webhooks"] = min(
                    report["mail_during_webhooks"], await sent(outbox, ws) - before
                )
                print(
                    f"  round {n + 1}: mail {rounds['mail'][-1]['per_s']:,.0f}/s, webhooks "
                    f"{rounds['alone'][-1]['per_s']:,.0f}/s alone, "
                    f"{rounds['with'][-1]['per_s']:,.0f}/s with mail",
                    flush=True,
                )
            report["rounds"] = rounds
            report["mail"] = _median(rounds["mail"])
            if not args.mail_only:
                report["webhooks"] = _median(rounds["alone"])
                report["webhooks_with_mail"] = _median(rounds["with"])
        finally:
            stop_daemon(worker)
            await outbox.execute("DELETE FROM customer_messages WHERE workspace = ?", ws)
            await outbox.execute("DELETE FROM orders WHERE workspace = ?", ws)
            await outbox.execute("DELETE FROM customers WHERE workspace = ?", ws)
            await outbox.drop(ws)
            await outbox.close()
            await db.stop()
    report["machine"] = common.machine()
    return report


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median rate (its other figures with it)."""
    return sorted(runs, key=lambda run: run["per_s"])[len(runs) // 2]


def summarise(report: dict[str, Any]) -> str:
    mail = report["mail"]
    rounds = len(report["rounds"]["mail"])
    rows = [
        (f"mail alone, one worker (median of {rounds})", f"{mail['per_s']:,.0f} messages/s",
         f"{mail['sent']:,}/{mail['messages']:,} sent in {mail['seconds']:.1f} s, "
         f"{mail['worker_cpu_ms_per_message']:.2f} ms worker CPU each (aiosmtpd: "
         f"{mail['smtp_server_cpu_ms_per_message']:.2f} ms)",
         f">= {TARGETS['messages_per_s']:.0f}/s"
         + (" met" if mail["per_s"] >= TARGETS["messages_per_s"] else " missed")),
    ]  # fmt: skip
    if "webhooks" in report:
        rows += _webhook_rows(report, rounds)
    return "\n".join(
        [
            f"## mail on {report['database']} ({report['kind']})",
            f"machine: {report['machine']}",
            "",
            common.table(["path", "figure", "detail", "target"], rows),
        ]
    )


def _webhook_rows(report: dict[str, Any], rounds: int) -> list[tuple[str, str, str, str]]:
    alone, both = report["webhooks"], report["webhooks_with_mail"]
    ratio = both["per_s"] / alone["per_s"]
    return [
        (f"webhooks alone (median of {rounds})", f"{alone['per_s']:,.0f} deliveries/s",
         f"{alone['received']:,}/{alone['deliveries']:,} received", "-"),
        (f"webhooks with mail queued (median of {rounds})",
         f"{both['per_s']:,.0f} deliveries/s ({ratio:.2f}x)",
         f"{both['received']:,}/{both['deliveries']:,} received; "
         f"{report['mail_during_webhooks']:,} messages sent meanwhile",
         ">= 0.90x alone" + (" met" if ratio >= TARGETS["webhook_ratio"] else " missed")),
    ]  # fmt: skip


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.mail", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--messages", type=int, default=2_000)
    parser.add_argument("--deliveries", type=int, default=10_000)
    parser.add_argument("--poll-interval", type=float, default=1.0)
    parser.add_argument(
        "--rounds", type=int, default=3, help="alone / with mail, alternated; medians shown"
    )
    parser.add_argument(
        "--mail-only", action="store_true", help="mail alone only: no webhook rounds"
    )
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    parser.add_argument("--smoke", action="store_true", help="tiny throwaway databases")
    parser.add_argument("--smtp", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.smoke:
        args.messages, args.deliveries, args.poll_interval, args.rounds = 30, 200, 0.2, 1
    return args


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    if not args.smoke:
        return [await benchmark(common.database_url(), args)]
    reports = []
    for backend in await common.smoke_backends():
        async with common.throwaway(backend) as url:
            reports.append(await benchmark(url, args))
    return reports


def main() -> None:
    common.require_module_run(__package__, "mail")
    args = parse_args()
    if args.smtp:
        smtp_main(args.smtp)
        return
    reports = asyncio.run(run(args))
    for report in reports:
        print()
        print(summarise(report))
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1))
    lost = [
        r
        for r in reports
        if r["mail"]["sent"] < r["mail"]["messages"]
        or (
            "webhooks" in r
            and (
                r["mail_during_webhooks"] < r["mail"]["messages"]
                or r["webhooks_with_mail"]["received"] < r["webhooks_with_mail"]["deliveries"]
            )
        )
    ]
    if lost:
        raise SystemExit("messages or deliveries were lost")


if __name__ == "__main__":
    main()
