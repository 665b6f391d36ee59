"""Web memory through admin logins: one web process's RSS from its start, through API load and
through N admin logins sent at once (real HTTP to 127.0.0.1, from as many forwarded addresses).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pressline_bench python -m benchmarks.logins
    python -m benchmarks.logins --smoke          # throwaway databases, a few logins
    ... --baseline /tmp/pl_before                # also serve an earlier checkout, same run

The database must be seeded (python -m benchmarks.seed). Before each server starts, the first
`--users` benchmark users get an admin password hashed by the checkout being served (and, with
`--baseline`, once more by the baseline's, to measure hashes from before an upgrade), and the
login throttle's rows are emptied. The logins are a third each: the right password, a wrong
one for the same users, an unknown email. Peaks are the kernel's VmHWM (since the process
started); "logins add" is the peak through the logins minus the RSS just before them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import common

common.require_module_run(__package__, "logins")

from benchmarks import http  # noqa: E402 - after the check that keeps `http` our own

PASSWORD = "benchmark password 42"  # noqa: S105 - the benchmark users' own
LOAD_ENDPOINTS = ("me", "orders", "order", "customers", "customer", "inventory")
PEAK_TARGET_MIB = 90  # start to after load
LOGINS_TARGET_MIB = 100  # added by the logins
_CSRF = re.compile(r'name="_csrf_token" value="([^"]+)"')
HASH_OF_TREE = (
    "import sys; from models import passwords; print(passwords.hash_password(sys.argv[1]))"
)


def mib(kib: int) -> float:
    return kib / 1024


def hash_with(root: Path) -> str:
    """PASSWORD hashed by the checkout at `root` (its own parameters)."""
    done = subprocess.run(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", HASH_OF_TREE, PASSWORD],
        cwd=root, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


async def prepare(url: str, count: int, hashed: str) -> list[str]:
    """The first `count` users get `hashed` as their password; no failed logins are left."""
    if common.is_postgres(url):
        import asyncpg

        conn = await asyncpg.connect(url)
        try:
            rows = await conn.fetch("SELECT id, email FROM users ORDER BY id LIMIT $1", count)
            ids = [row["id"] for row in rows]
            await conn.execute("UPDATE users SET password_hash = $1, is_active = true "
                               "WHERE id = ANY($2::bigint[])", hashed, ids)  # fmt: skip
            await conn.execute("DELETE FROM failed_logins")
            await conn.execute("DELETE FROM admin_sessions")
        finally:
            await conn.close()
        return [row["email"] for row in rows]
    with contextlib.closing(sqlite3.connect(url[len("sqlite:///") :])) as conn, conn:
        rows = conn.execute("SELECT id, email FROM users ORDER BY id LIMIT ?", (count,)).fetchall()
        conn.executemany(
            "UPDATE users SET password_hash = ?, is_active = 1 WHERE id = ?",
            [(hashed, row[0]) for row in rows],
        )
        conn.execute("DELETE FROM failed_logins")
        conn.execute("DELETE FROM admin_sessions")
    return [row[1] for row in rows]


def attempts(emails: list[str], logins: int) -> list[tuple[str, str]]:
    """(email, password) per login: a third right, a third wrong, a third unknown emails."""
    out = []
    for n in range(logins):
        email = emails[n % len(emails)]
        kind = n % 3
        if kind == 0:
            out.append((email, PASSWORD))
        elif kind == 1:
            out.append((email, "not the password at all"))
        else:
            out.append((f"nobody{n}@example.com", PASSWORD))
    return out


async def log_in_at_once(base: str, tries: list[tuple[str, str]]) -> list[tuple[int, float]]:
    """Every login opens the form (its CSRF token and pre-session cookie), then all POST
    together: (status, seconds) per login."""
    import aiohttp

    sessions = [aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) for _ in tries]
    try:
        tokens = []
        for session in sessions:
            async with session.get(base + "/admin/login") as page:
                found = _CSRF.search(await page.text())
                assert found, "no CSRF field on the login form"
                tokens.append(found.group(1))

        async def one(n: int) -> tuple[int, float]:
            email, password = tries[n]
            began = time.perf_counter()
            async with sessions[n].post(
                base + "/admin/login",
                data={"email": email, "password": password, "_csrf_token": tokens[n]},
                headers={"X-Forwarded-For": f"10.77.{n // 250}.{n % 250 + 1}"},
                allow_redirects=False,
            ) as answer:
                await answer.read()
                return answer.status, time.perf_counter() - began

        return await asyncio.gather(*[one(n) for n in range(len(tries))])
    finally:
        for session in sessions:
            await session.close()


def run_one(
    url: str, name: str, root: Path, hashed_by: Path, args: argparse.Namespace, tmp: Path
) -> dict[str, Any]:
    hashed = hash_with(hashed_by)
    emails = asyncio.run(prepare(url, args.users, hashed))
    tries = attempts(emails, args.logins)
    with common.Server(name, common.PRESSLINE_APP, url, root=root) as server:
        started = common.memory_kib(server.pid)
        if args.seconds > 0:
            users = common.load_tokens(url)["users"]
            for endpoint in LOAD_ENDPOINTS:
                specs = http.request_specs(users, endpoint)
                http.run_client(args.client, server.port, specs, 16, args.seconds, tmp)
        loaded = common.memory_kib(server.pid)
        began = time.perf_counter()
        answers = asyncio.run(log_in_at_once(server.base, tries))
        wall = time.perf_counter() - began
        after = common.memory_kib(server.pid)
        time.sleep(1)
        settled = common.memory_kib(server.pid)
    statuses: dict[int, int] = {}
    for status, _ in answers:
        statuses[status] = statuses.get(status, 0) + 1
    right = len(tries[::3])  # attempts(): every third login has the right password
    expected = {303: right, 400: len(tries) - right}
    return {
        "name": name,
        "hash": hashed.split("$")[3],
        "started_mib": mib(started["VmRSS"]),
        "peak_to_load_mib": mib(loaded["VmHWM"]),
        "after_load_mib": mib(loaded["VmRSS"]),
        "peak_logins_mib": mib(after["VmHWM"]),
        "added_mib": mib(after["VmHWM"] - loaded["VmRSS"]),
        "after_logins_mib": mib(settled["VmRSS"]),
        "statuses": statuses,
        "as_expected": statuses == expected,
        "wall_s": wall,
        "slowest_s": max(seconds for _, seconds in answers),
    }


def benchmark(url: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    runs = [("pressline", common.ROOT, common.ROOT)]
    if args.baseline:
        runs += [
            ("pressline", common.ROOT, args.baseline),
            ("baseline", args.baseline, args.baseline),
        ]
    results = []
    with tempfile.TemporaryDirectory(prefix="pressline_logins_") as tmp:
        for _ in range(args.rounds):
            for name, root, hashed_by in runs:
                result = run_one(url, name, root, hashed_by, args, Path(tmp))
                results.append(result)
                print(
                    f"  {name:9} hashes {result['hash']:17} peak to load "
                    f"{result['peak_to_load_mib']:6.1f} MiB, through {args.logins} logins "
                    f"{result['peak_logins_mib']:6.1f} MiB (+{result['added_mib']:.1f}) "
                    f"{result['statuses']}",
                    flush=True,
                )
    return results


def summarise(url: str, args: argparse.Namespace, results: list[dict[str, Any]]) -> str:
    rows = [
        [
            r["name"],
            r["hash"],
            f"{r['started_mib']:.1f}",
            f"{r['peak_to_load_mib']:.1f}",
            f"{r['after_load_mib']:.1f}",
            f"{r['peak_logins_mib']:.1f}",
            f"+{r['added_mib']:.1f}",
            f"{r['after_logins_mib']:.1f}",
            " ".join(f"{v} x {k}" for k, v in sorted(r["statuses"].items())),
            f"{r['wall_s']:.2f}",
        ]
        for r in results
    ]
    headers = [
        "server", "hashes", "RSS after start", "peak to after load", "RSS after load",
        f"peak through {args.logins} logins", "logins add", "RSS 1 s after", "answers",
        "logins took s",
    ]  # fmt: skip
    lines = [
        f"{common.label(url)}: {common.machine()}",
        f"load: {args.seconds:g} s per endpoint ({', '.join(LOAD_ENDPOINTS)}), 16 connections; "
        f"{args.logins} logins at once ({args.users} users); MiB",
        common.table(headers, rows),
    ]
    for r in results:
        if r["name"] == "pressline":
            peak = "met" if r["peak_to_load_mib"] <= PEAK_TARGET_MIB else "missed"
            added = "met" if r["added_mib"] <= LOGINS_TARGET_MIB else "missed"
            lines.append(
                f"pressline, hashes {r['hash']}: peak to after load ≤ {PEAK_TARGET_MIB} MiB "
                f"{peak}; logins add ≤ {LOGINS_TARGET_MIB} MiB {added}"
            )
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.logins", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--logins", type=int, default=30, help="sent at once (at most 250)")
    parser.add_argument("--users", type=int, default=10, help="users given a password")
    parser.add_argument("--seconds", type=float, default=3, help="API load per endpoint")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--client", choices=("wrk", "python"), default="python")
    parser.add_argument("--baseline", type=Path, help="an earlier checkout, served too")
    parser.add_argument("--smoke", action="store_true", help="tiny throwaway databases")
    args = parser.parse_args()
    if not 3 <= args.logins <= 250 or args.users < 1:
        parser.error("--logins must be 3 to 250 and --users at least 1")
    if args.smoke:
        args.logins, args.users, args.seconds = min(args.logins, 6), min(args.users, 2), 0.5
    return args


async def smoke(args: argparse.Namespace) -> list[tuple[str, list[dict[str, Any]]]]:
    reports = []
    for backend in await common.smoke_backends():
        async with common.throwaway(backend, "logins") as url:
            common.run_seed(url, "--smoke")
            # its own thread: benchmark() runs event loops of its own
            reports.append((url, await asyncio.to_thread(benchmark, url, args)))
    return reports


def main() -> None:
    args = parse_args()
    if args.smoke:
        reports = asyncio.run(smoke(args))
    else:
        url = common.database_url()
        reports = [(url, benchmark(url, args))]
    for url, results in reports:
        print()
        print(summarise(url, args, results))
    if not all(r["as_expected"] for _, results in reports for r in results):
        sys.exit("ERROR: some logins were not answered as expected (303 right, 400 wrong)")


if __name__ == "__main__":
    main()
