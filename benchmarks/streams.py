"""Open admin streams (`GET /admin/stream`) on one web process: the memory they cost, the API's
rate beside them, and the LISTEN connections. PostgreSQL, 127.0.0.1 only.

    python -m benchmarks.streams                 # 200 streams, 3 rounds of 10 s per rate
    python -m benchmarks.streams --smoke         # 10 streams, one short round

A throwaway database (`pressline_bench_<pid>_streams`) is seeded small (the rate measured,
`GET /api/v1/me`, does not depend on the data's size) and dropped after. The streams are
real HTTP connections held by this process, logged in through admin sessions written to the
database (one per benchmark user, streams spread over them). Each round: `/api/v1/me` for
`--seconds` without streams; the streams opened (RSS before and after, settled); one
notification per workspace, timed until every stream has it; `/api/v1/me` again with them
open; the streams closed. Targets: < 30 MiB extra RSS, the rate within 10 %, 1 LISTEN.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
import secrets
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks import common

common.require_module_run(__package__, "streams")

from benchmarks import http  # noqa: E402 - after the check that keeps `http` our own

RSS_TARGET_MIB = 30
RATE_TARGET = 0.10  # the rate with streams may be this much lower at most
CONNECTIONS = 16  # the load generator's
LIVE_CHANNEL = "pressline_live"
LIVE_APPLICATION = "pressline-web-live"


async def sessions(url: str, count: int) -> list[tuple[str, int]]:
    """An admin session for each of the first `count` users: (cookie value, workspace id)."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT id, workspace FROM users WHERE is_active ORDER BY id LIMIT $1", count
        )
        now = dt.datetime.now(dt.UTC)
        made = []
        for row in rows:
            clear = secrets.token_urlsafe(32)
            await conn.execute(
                'INSERT INTO admin_sessions (digest, "user", workspace, created_at,'
                " last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $4, $5)",
                hashlib.sha256(clear.encode()).hexdigest(), row["id"], row["workspace"], now,
                now + dt.timedelta(days=1),
            )  # fmt: skip
            made.append((clear, row["workspace"]))
        return made
    finally:
        await conn.close()


async def listeners(url: str) -> int:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return int(
            await conn.fetchval(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name LIKE $1",
                f"{LIVE_APPLICATION} %",
            )
        )
    finally:
        await conn.close()


async def notify_each(url: str, workspaces: list[int]) -> None:
    """One change's notification per workspace, as `record_event` sends it (a made-up event
    id far past the table's: the streams only pass it on)."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        for workspace in workspaces:
            payload = f"{workspace}:{10**12}:1:order.stage_changed"
            await conn.execute("SELECT pg_notify($1, $2)", LIVE_CHANNEL, payload)
    finally:
        await conn.close()


class Streams:
    """`count` open streams held on a thread and event loop of their own, so the load
    generator and the readings run beside them."""

    def __init__(self, port: int, cookies: list[tuple[str, int]], count: int) -> None:
        self.port, self.cookies, self.count = port, cookies, count
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.writers: list[asyncio.StreamWriter] = []
        self.readers: list[asyncio.Task[None]] = []
        self.seen: list[int] = []  # events each stream has read
        self.all_seen: asyncio.Event | None = None
        self.target = 0

    def run(self, coroutine: Any, timeout: float = 60) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def open(self) -> None:
        self.thread.start()
        self.run(self._open_all())

    async def _open_all(self) -> None:
        self.all_seen = asyncio.Event()
        self.seen = [0] * self.count
        for n in range(self.count):
            await self._open(n)

    async def _open(self, n: int) -> None:
        cookie, _ = self.cookies[n % len(self.cookies)]
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(
            (
                "GET /admin/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                f"Cookie: pressline_session={cookie}\r\n\r\n"
            ).encode()
        )
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"stream {n}: {head.decode(errors='replace')}")
        self.writers.append(writer)
        self.readers.append(asyncio.create_task(self._read(n, reader)))

    async def _read(self, n: int, reader: asyncio.StreamReader) -> None:
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                return
            self.seen[n] += chunk.count(b"event: order")
            if self.all_seen is not None and min(self.seen) >= self.target:
                self.all_seen.set()

    def timed_fan_out(self, url: str, workspaces: list[int]) -> float:
        """Seconds from sending one notification per workspace until every stream has its."""
        self.target = max(self.seen) + 1

        async def wait() -> float:
            assert self.all_seen is not None
            self.all_seen.clear()
            began = time.perf_counter()
            await notify_each(url, workspaces)
            await asyncio.wait_for(self.all_seen.wait(), 10)
            return time.perf_counter() - began

        result: float = self.run(wait())
        return result

    def close(self) -> None:
        async def close_all() -> None:
            for writer in self.writers:
                writer.close()
            for task in self.readers:
                task.cancel()
            await asyncio.gather(*self.readers, return_exceptions=True)

        self.run(close_all())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def settled_rss_mib(pid: int) -> float:
    time.sleep(1)
    return common.memory_kib(pid)["VmRSS"] / 1024


def benchmark(url: str, args: argparse.Namespace) -> dict[str, Any]:
    users = common.load_tokens(url)["users"]
    specs = http.request_specs(users, "me")
    cookies = asyncio.run(sessions(url, args.sessions))
    workspaces = sorted({workspace for _, workspace in cookies})
    rounds: list[dict[str, float]] = []
    with (
        tempfile.TemporaryDirectory(prefix="pressline_streams_") as tmp,
        common.Server("pressline", common.PRESSLINE_APP, url) as server,
    ):
        # Warm: the first requests, and the first stream (the feed's first read).
        http.run_client(args.client, server.port, specs, CONNECTIONS, args.warmup, Path(tmp))
        warm = Streams(server.port, cookies, 1)
        warm.open()
        warm.close()
        listening = asyncio.run(listeners(url))
        for _ in range(args.rounds):
            without = http.measure(
                server, args.client, specs, connections=CONNECTIONS, seconds=args.seconds,
                warmup=0, tmp=Path(tmp),
            )  # fmt: skip
            before = settled_rss_mib(server.pid)
            streams = Streams(server.port, cookies, args.streams)
            began = time.perf_counter()
            streams.open()
            opened_s = time.perf_counter() - began
            after = settled_rss_mib(server.pid)
            fan_out = streams.timed_fan_out(url, workspaces)
            with_streams = http.measure(
                server, args.client, specs, connections=CONNECTIONS, seconds=args.seconds,
                warmup=0, tmp=Path(tmp),
            )  # fmt: skip
            listening_open = asyncio.run(listeners(url))
            streams.close()
            round_ = {
                "rss_before": before,
                "rss_after": after,
                "extra": after - before,
                "rps_without": without.rps,
                "rps_with": with_streams.rps,
                "ratio": with_streams.rps / without.rps,
                "cpu_without": without.server_cpu_ms_per_req,
                "cpu_with": with_streams.server_cpu_ms_per_req,
                "fan_out_ms": fan_out * 1000,
                "open_s": opened_s,
                "listen": listening_open,
                "non_2xx": without.non_2xx + with_streams.non_2xx,
            }
            rounds.append(round_)
            print(
                f"  RSS {before:.1f} → {after:.1f} MiB (+{after - before:.1f}) with "
                f"{args.streams} streams; /me {without.rps:.0f} → {with_streams.rps:.0f} req/s "
                f"({with_streams.rps / without.rps:.2f}x); an event reached them all in "
                f"{fan_out * 1000:.0f} ms; LISTEN connections {listening_open}",
                flush=True,
            )
    return {"rounds": rounds, "listening_before": listening}


def summarise(url: str, args: argparse.Namespace, report: dict[str, Any]) -> str:
    rounds = report["rounds"]
    rows = [
        [
            str(n + 1), f"{r['rss_before']:.1f}", f"{r['rss_after']:.1f}", f"+{r['extra']:.1f}",
            f"{r['rps_without']:.0f}", f"{r['rps_with']:.0f}", f"{r['ratio']:.3f}",
            f"{r['cpu_without']:.2f}", f"{r['cpu_with']:.2f}",
            f"{r['fan_out_ms']:.0f}", f"{r['open_s']:.2f}", str(r["listen"]),
        ]
        for n, r in enumerate(rounds)
    ]  # fmt: skip
    headers = [
        "round", "RSS before MiB", f"with {args.streams} streams", "extra",
        "/me req/s without", "with", "ratio", "server CPU ms/req without", "with",
        "event to all ms", "opening s", "LISTEN",
    ]  # fmt: skip
    extra = max(r["extra"] for r in rounds)
    ratio = statistics.median(r["ratio"] for r in rounds)
    listen = max(max(r["listen"] for r in rounds), report["listening_before"])
    lines = [
        f"{common.label(url)}: {common.machine()}",
        f"{args.streams} streams over {args.sessions} sessions; /api/v1/me for {args.seconds:g} s "
        f"per measure, {CONNECTIONS} connections, client {args.client}",
        common.table(headers, rows),
        f"extra RSS (largest) {extra:.1f} MiB: target < {RSS_TARGET_MIB} MiB "
        f"{'met' if extra < RSS_TARGET_MIB else 'missed'}; /me with streams (median ratio) "
        f"{ratio:.3f}: target ≥ {1 - RATE_TARGET:.2f} "
        f"{'met' if ratio >= 1 - RATE_TARGET else 'missed'}; LISTEN connections {listen}: "
        f"target 1 {'met' if listen == 1 else 'missed'}",
    ]
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.streams", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--streams", type=int, default=200, help="held open at once (≤ 1000)")
    parser.add_argument("--sessions", type=int, default=20, help="admin sessions they use")
    parser.add_argument("--seconds", type=float, default=10, help="per rate measure")
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--client", choices=("wrk", "python"), default="python")
    parser.add_argument("--smoke", action="store_true", help="10 streams, one short round")
    args = parser.parse_args()
    if not 1 <= args.streams <= 1000 or args.sessions < 1 or args.rounds < 1:
        parser.error("--streams must be 1 to 1000, --sessions and --rounds at least 1")
    if args.smoke:
        args.streams, args.sessions, args.seconds, args.warmup, args.rounds = 10, 2, 1, 0.5, 1
    return args


async def main_async(args: argparse.Namespace) -> tuple[str, dict[str, Any]] | None:
    if not await common.pg_reachable():
        message = f"PostgreSQL is not reachable at {common.ADMIN_URL}: the streams need it"
        if args.smoke:  # like the other smoke runs: what this machine has
            print(f"note: {message}; skipped")
            return None
        sys.exit(message)
    async with common.throwaway_postgres("streams") as url:
        common.run_seed(url, "--smoke")
        # its own thread: benchmark() runs event loops of its own
        return url, await asyncio.to_thread(benchmark, url, args)


def main() -> None:
    args = parse_args()
    done = asyncio.run(main_async(args))
    if done is None:
        return
    url, report = done
    print()
    print(summarise(url, args, report))
    if any(r["non_2xx"] for r in report["rounds"]):
        sys.exit("ERROR: some /api/v1/me requests were not answered 200")


if __name__ == "__main__":
    main()
