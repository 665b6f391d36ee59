"""Shared plumbing for the benchmark scripts: databases, server processes, /proc readings."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = ROOT / "benchmarks"
ADMIN_URL = os.environ.get(
    "PRESSLINE_BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"
)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
UNLIMITED = "1000000000"  # rate limits for benchmark runs (per user per minute)


# --- databases -----------------------------------------------------------------------------


def is_postgres(url: str) -> bool:
    return url.startswith(("postgres://", "postgresql://"))


def kind(url: str) -> str:
    return "postgres" if is_postgres(url) else "sqlite"


def database_url() -> str:
    url = os.environ.get("DATABASE_URL", "").strip()
    if not url:
        sys.exit("Set DATABASE_URL (sqlite:////abs/path.db or postgres://user@host:port/db)")
    return url


def label(url: str) -> str:
    """A short name for a database, used in file names: `pg-<db>` or `sqlite-<stem>-<hash>`."""
    if is_postgres(url):
        return "pg-" + urlsplit(url).path.strip("/")
    path = Path(url[len("sqlite:///") :]).resolve()
    return f"sqlite-{path.stem}-{hashlib.sha256(str(path).encode()).hexdigest()[:6]}"


def tokens_path(url: str) -> Path:
    return BENCH_DIR / f".tokens-{label(url)}.json"


def load_tokens(url: str) -> dict[str, Any]:
    path = tokens_path(url)
    if not path.exists():
        sys.exit(f"{path} is missing: seed this database first (python -m benchmarks.seed)")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def pg_url(name: str) -> str:
    return ADMIN_URL.rsplit("/", 1)[0] + "/" + name


async def pg_admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(ADMIN_URL)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def pg_reachable() -> bool:
    import asyncpg

    try:
        conn = await asyncpg.connect(ADMIN_URL, timeout=3)
    except (OSError, asyncpg.PostgresError):
        return False
    await conn.close()
    return True


@contextlib.asynccontextmanager
async def throwaway_postgres(suffix: str = "") -> AsyncIterator[str]:
    """A fresh database `pressline_bench_<pid>[_suffix]`, dropped on the way out."""
    name = f"pressline_bench_{os.getpid()}{'_' + suffix if suffix else ''}"
    await pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await pg_admin(f'CREATE DATABASE "{name}"')
    try:
        yield pg_url(name)
    finally:
        await pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        with contextlib.suppress(FileNotFoundError):
            tokens_path(pg_url(name)).unlink()


@contextlib.contextmanager
def throwaway_sqlite(suffix: str = "") -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="pressline_bench_") as tmp:
        url = f"sqlite:///{tmp}/bench_{os.getpid()}{'_' + suffix if suffix else ''}.sqlite3"
        try:
            yield url
        finally:
            with contextlib.suppress(FileNotFoundError):
                tokens_path(url).unlink()


async def smoke_backends() -> list[str]:
    """The engines a smoke run covers: SQLite always, PostgreSQL when the server answers."""
    if await pg_reachable():
        return ["sqlite", "postgres"]
    print(f"note: PostgreSQL not reachable at {ADMIN_URL}; smoke runs SQLite only")
    return ["sqlite"]


@contextlib.asynccontextmanager
async def throwaway(backend: str, suffix: str = "") -> AsyncIterator[str]:
    if backend == "postgres":
        async with throwaway_postgres(suffix) as url:
            yield url
    else:
        with throwaway_sqlite(suffix) as url:
            yield url


def run_seed(url: str, *args: str) -> None:
    """Seed `url` in a child process (keeps this process free of the ORM's global state)."""
    env = {**os.environ, "DATABASE_URL": url}
    command = [sys.executable, "-m", "benchmarks.seed", *args]
    subprocess.run(command, check=True, env=env, cwd=ROOT)  # noqa: S603 - our own script


async def _backend_pids(url: str) -> list[int]:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        )
    finally:
        await conn.close()
    return [row[0] for row in rows]


def database_cpu(url: str) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend serving `url` (empty for SQLite, which
    runs inside the app process and is counted there)."""
    if not is_postgres(url):
        return {}
    found = {}
    # a thread of its own, so this also works while the caller's event loop is running
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pids = pool.submit(asyncio.run, _backend_pids(url)).result()
    for pid in pids:
        with contextlib.suppress(OSError):
            found[pid] = cpu_seconds(pid)
    return found


def database_cpu_since(url: str, before: dict[int, float]) -> float:
    after = database_cpu(url)
    return sum(value - before.get(pid, 0.0) for pid, value in after.items())


# --- processes -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (from /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (peak) in KiB."""
    found: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0])
    return found


def server_env(url: str, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": url,
        "RATE_LIMIT_READ": UNLIMITED,
        "RATE_LIMIT_WRITE": UNLIMITED,
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


# benchmarks.serve under cProfile, timed by the thread's CPU clock (a loaded machine's waits
# for a core are not counted as time spent in the function that was running); SIGUSR1 starts
# the profile and SIGUSR2 stops it, so start-up and shutdown stay out of it.
PROFILED_SERVE = """
import cProfile, signal, time
from benchmarks.serve import main
profile = cProfile.Profile(time.thread_time)
signal.signal(signal.SIGUSR1, lambda *_: profile.enable())
signal.signal(signal.SIGUSR2, lambda *_: profile.disable())
try:
    main()
finally:
    profile.disable()
    profile.dump_stats({path!r})
"""


@dataclass
class Server:
    """One server process (`benchmarks.serve`: the web process's uvicorn, 1 worker, uvloop +
    httptools with its head bound) on 127.0.0.1."""

    name: str
    app: str
    url: str
    quiet: bool = True
    ready_status: int = 401  # what GET /api/v1/me without a token answers once it is up
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None
    root: Path = ROOT  # the checkout served (`benchmarks.http --baseline` serves another)
    profile_to: Path | None = None  # run the server under cProfile, stats written here at exit

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, timeout: float = 60.0) -> Server:
        self.port = free_port()
        command = [sys.executable, "-m", "benchmarks.serve", self.app, str(self.port)]
        if self.profile_to is not None:
            command[1:3] = ["-c", PROFILED_SERVE.format(path=str(self.profile_to))]
        output: Any = None
        if self.quiet:  # request logs go to a file, as they would go to a collector
            handle, name = tempfile.mkstemp(prefix=f"bench-{self.name}-", suffix=".log")
            self.log_path = Path(name)
            output = handle
        self.process = subprocess.Popen(  # noqa: S603 - our own command line
            command, env=server_env(self.url), cwd=self.root, stdout=output, stderr=output
        )
        if output is not None:
            os.close(output)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with {self.process.returncode}{self.log_tail()}"
                )
            try:
                status, _ = http_get(self.base + "/api/v1/me", token=None, timeout=2)
            except OSError:
                time.sleep(0.1)
                continue
            if status == self.ready_status:
                return self
            raise RuntimeError(f"{self.name}: GET /api/v1/me without token answered {status}")
        tail = self.log_tail()
        self.stop()
        raise RuntimeError(f"{self.name} did not start within {timeout:.0f} s{tail}")

    def log_tail(self, lines: int = 20) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        tail = self.log_path.read_text(errors="replace").splitlines()[-lines:]
        return "\n" + "\n".join(tail)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.log_path is not None:
            self.log_path.unlink(missing_ok=True)
            self.log_path = None

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


PRESSLINE_APP = "api.app:app"
FLOOR_APP = "benchmarks.floor:app"


def http_get(
    url: str, *, token: str | None, timeout: float = 10, host: str | None = None
) -> tuple[int, bytes]:
    return http_request("GET", url, token=token, timeout=timeout, host=host)


def http_request(
    method: str,
    url: str,
    *,
    token: str | None,
    body: bytes | None = None,
    timeout: float = 10,
    host: str | None = None,
) -> tuple[int, bytes]:
    headers = {"Accept": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if body is not None:
        headers["Content-Type"] = "application/json"
    if host is not None:
        headers["Host"] = host
    request = urllib.request.Request(url, data=body, method=method, headers=headers)  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


# --- figures -------------------------------------------------------------------------------


def percentile(values: Sequence[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table, columns padded so it also reads well in a terminal."""
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)) + " |"

    out = [line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out.extend(line(row) for row in cells)
    return "\n".join(out)


def machine() -> str:
    model = "unknown CPU"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kib = 0
    with contextlib.suppress(OSError), open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemTotal"):
                mem_kib = int(line.split()[1])
    load = os.getloadavg()
    return (
        f"{os.cpu_count()} cores ({model}), {mem_kib / 1024 / 1024:.1f} GiB RAM, "
        f"Python {sys.version.split()[0]}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )


def require_module_run(package: str | None, name: str) -> None:
    """The scripts must run as `python -m benchmarks.<name>` (benchmarks/http.py would
    otherwise shadow the standard library's `http` package)."""
    if not package:
        sys.exit(f"run this as: python -m benchmarks.{name}")
