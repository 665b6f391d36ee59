"""Where Pressline's time goes: statements per request, and a sampled CPU profile by layer.

    DATABASE_URL=... python -m benchmarks.hotpaths queries          # statements per endpoint
    DATABASE_URL=... python -m benchmarks.hotpaths spy --endpoint orders --seconds 10
    DATABASE_URL=... python -m benchmarks.hotpaths profile --endpoint me --seconds 10
    DATABASE_URL=... python -m benchmarks.hotpaths asgi --endpoint me [--baseline DIR]

`queries` runs the real app in-process and counts every statement it sends (through Piccolo
and through the raw path of models/statements.py). `spy` samples a real uvicorn server under load
with py-spy (install it apart from the project, e.g. `pipx install py-spy`, or pass
`--py-spy PATH`) and sorts the samples by layer.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks import common

ENDPOINTS = ("me", "orders", "order", "customers", "customer", "inventory", "create")

# Leaf frame's file (as py-spy prints it: relative to site-packages or the project) → layer;
# the first matching prefix wins.
LAYERS = (
    ("piccolo/", "Piccolo (query building, row dicts)"),
    ("asyncpg/", "asyncpg driver (incl. pool reset)"),
    ("aiosqlite/", "aiosqlite + sqlite3"),
    ("sqlite3/", "aiosqlite + sqlite3"),
    ("litestar/", "Litestar"),
    ("msgspec/", "msgspec"),
    ("uvicorn/", "uvicorn + httptools"),
    ("httptools/", "uvicorn + httptools"),
    ("api/request_log.py", "request log + logging"),
    ("api/request_path.py", "api/ request path layer"),
    ("logging/", "request log + logging"),
    ("api/ratelimit.py", "api/ rate limit"),
    ("api/", "api/ (handlers, schemas, auth)"),
    ("daemon/", "daemon/"),
    ("aiohttp/", "aiohttp (client)"),
    ("yarl/", "aiohttp (client)"),
    ("multidict/", "aiohttp (client)"),
    ("apscheduler/", "APScheduler"),
    ("models/", "models/ (queries, rules)"),
    ("asyncio/", "event loop"),
    ("uvloop/", "event loop"),
    ("concurrent/", "threads (executor)"),
    ("threading.py", "threads (executor)"),
    ("queue.py", "threads (executor)"),
    ("zoneinfo/", "dates, decimals, copies (stdlib)"),
    ("datetime.py", "dates, decimals, copies (stdlib)"),
    ("_pydecimal.py", "dates, decimals, copies (stdlib)"),
    ("copy.py", "dates, decimals, copies (stdlib)"),
)
INCLUSIVE = (
    ("piccolo/", "any Piccolo frame on the stack"),
    ("asyncpg/", "any asyncpg frame on the stack"),
    ("aiosqlite/", "any aiosqlite frame on the stack"),
    ("api/auth.py", "authentication (api/auth.py)"),
    ("api/controllers/", "inside a handler (api/controllers)"),
    ("daemon/claim.py", "claiming (daemon/claim.py)"),
    ("daemon/record.py", "recording outcomes (daemon/record.py)"),
    ("daemon/deliver.py", "sending (daemon/deliver.py)"),
    ("models/queries/", "inside models/queries"),
    ("api/schemas/", "shaping bodies (api/schemas)"),
    ("litestar/serialization", "encoding (Litestar + msgspec)"),
)


# Leaf frames that are a thread waiting, not working (py-spy cannot always tell): left out.
IDLE_LEAVES = (
    "aiosqlite/core.py:59)",
    "Condition.wait (threading.py",
    "EpollSelector.select (selectors.py",  # the asyncio loop waiting for I/O
)


def frame_path(frame: str) -> str:
    """`function (path/file.py:123)` → `path/file.py`."""
    inside = frame[frame.rfind("(") + 1 :].rstrip(")")
    return inside.rsplit(":", 1)[0]


# --- statements per request ----------------------------------------------------------------


async def count_queries(url: str) -> None:
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("LOG_LEVEL", "WARNING")  # no request log lines between the counts
    os.environ["RATE_LIMIT_READ"] = os.environ["RATE_LIMIT_WRITE"] = common.UNLIMITED
    from models import db

    db.bind(db.engine_from_url(url))
    from api.app import create_app

    engine_class: Any = type(db.engine())  # the engine uses slots: patch its class
    seen: list[str] = []
    original_run = engine_class.run_querystring
    original_ddl = engine_class.run_ddl

    async def run_querystring(self: Any, querystring: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(" ".join(str(querystring).split())[:110])
        return await original_run(self, querystring, *args, **kwargs)

    async def run_ddl(self: Any, ddl: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(" ".join(ddl.split())[:110])
        return await original_ddl(self, ddl, *args, **kwargs)

    engine_class.run_querystring = run_querystring
    engine_class.run_ddl = run_ddl
    from models import statements

    def on_read(sql: str, _: Any) -> None:  # statements of the raw read/write path
        seen.append(" ".join(sql.split())[:110])

    users = common.load_tokens(url)["users"]
    app = create_app()
    rows = []
    with statements.watch(on_read):
        await _count(app, users, seen, rows)
    print()
    print(common.table(["request", "status", "statements"], rows))


async def _count(app: Any, users: Any, seen: list[str], rows: list[Any]) -> None:
    import httpx

    from benchmarks.http import request_specs

    async with app.lifespan():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            for endpoint in ENDPOINTS:
                method, path, token, body = request_specs(users, endpoint)[0]
                seen.clear()
                response = await client.request(
                    method,
                    path,
                    content=body,
                    headers={
                        "Authorization": f"Bearer {token}",
                        "Content-Type": "application/json",
                    },
                )
                rows.append((f"{method} {path}", response.status_code, len(seen)))
                print(f"\n{method} {path} -> {response.status_code}: {len(seen)} statements")
                for statement in seen:
                    print(f"    {statement}")


# --- sampled profile -----------------------------------------------------------------------


def layer_of(frame: str) -> str:
    path = frame_path(frame)
    for prefix, name in LAYERS:
        if path.startswith(prefix):
            return name
    if path.startswith("asyncio/runners.py"):
        return "event loop"
    return "other (stdlib, C, interpreter)"


def summarise_raw(path: Path) -> str:
    """py-spy's raw (collapsed) stacks → share of samples per layer of the leaf frame."""
    leaf: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    total = idle = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        frames = stack.split(";")
        if any(marker in frames[-1] for marker in IDLE_LEAVES):
            idle += count
            continue
        total += count
        leaf[layer_of(frames[-1])] += count
        functions[frames[-1]] += count
        paths = [frame_path(frame) for frame in frames]
        for prefix, name in INCLUSIVE:
            if any(path.startswith(prefix) for path in paths):
                inclusive[name] += count
    if not total:
        return "no samples"

    def pct(n: int) -> str:
        return f"{100 * n / total:.1f}%"

    out = [
        f"{total:,} busy samples ({idle:,} samples of threads waiting left out)",
        "",
        common.table(["layer (leaf frame)", "share"], [(k, pct(v)) for k, v in leaf.most_common()]),
        "",
        common.table(["stack contains", "share"], [(k, pct(v)) for k, v in inclusive.items()]),
        "",
        common.table(
            ["hottest leaf functions", "share"],
            [(k[:110], pct(v)) for k, v in functions.most_common(15)],
        ),
    ]
    return "\n".join(out)


def spy(url: str, args: argparse.Namespace) -> None:
    from benchmarks.http import request_specs, run_client

    py_spy = args.py_spy or shutil.which("py-spy")
    if not py_spy:
        sys.exit("py-spy not found: install it apart from the project, or pass --py-spy PATH")
    users = common.load_tokens(url)["users"]
    specs = request_specs(users, args.endpoint)
    client = "wrk" if shutil.which("wrk") else "python"
    connections = 16 if args.endpoint == "create" else 32
    app = common.FLOOR_APP if args.floor else common.PRESSLINE_APP
    with common.Server("profiled", app, url) as server, tempfile.TemporaryDirectory() as tmp:
        run_client(client, server.port, specs, connections, 2, Path(tmp))  # warm-up
        raw = Path(args.output or Path(tmp) / "profile.txt")
        recorder = subprocess.Popen(  # noqa: S603 - the operator's py-spy
            [py_spy, "record", "--pid", str(server.pid), "--rate", "250", "--duration",
             str(int(args.seconds)), "--format", "raw", "--nonblocking", "--output", str(raw)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(0.5)
        result, _ = run_client(client, server.port, specs, connections, args.seconds, Path(tmp))
        recorder.wait(timeout=args.seconds + 30)
        print(
            f"{args.endpoint} on {common.label(url)} ({'floor' if args.floor else 'Pressline'}): "
            f"{result['requests'] / result['seconds']:,.0f} req/s while sampled"
        )
        print(summarise_raw(raw))


def profile(url: str, args: argparse.Namespace) -> None:
    """cProfile of a server under load: microseconds per request by layer and by function."""
    import pstats

    from benchmarks.http import request_specs, run_client

    users = common.load_tokens(url)["users"]
    specs = request_specs(users, args.endpoint)
    connections = 16 if args.endpoint == "create" else 32
    app = common.FLOOR_APP if args.floor else common.PRESSLINE_APP
    with tempfile.TemporaryDirectory() as tmp:
        stats_path = Path(args.output or Path(tmp) / "profile.pstats")
        server = common.Server("profiled", app, url, profile_to=stats_path)
        with server:
            run_client("python", server.port, specs, connections, 1, Path(tmp))  # warm-up
            os.kill(server.pid, signal.SIGUSR1)  # the profile covers the measured load only
            result, _ = run_client(
                "python", server.port, specs, connections, args.seconds, Path(tmp)
            )
            os.kill(server.pid, signal.SIGUSR2)
        requests = result["requests"]
        stats = pstats.Stats(str(stats_path))
        print(
            f"{args.endpoint} on {common.label(url)} ({'floor' if args.floor else 'Pressline'}): "
            f"{requests / result['seconds']:,.0f} req/s under cProfile (thread CPU clock); "
            "figures are µs per request, inflated by the profiler's own cost per call"
        )
        print(summarise_pstats(stats, max(1, requests)))


# (file suffix, function) → a step of the request, timed inclusive of what it calls.
STEPS = (
    ("api/auth.py", "authenticate", "token → user → plan (its statement included)"),
    ("api/ratelimit.py", "hit", "rate limit (RateLimiter.hit)"),
    ("api/metrics.py", "observe", "metrics observation"),
    ("logging/__init__.py", "findCaller", "log line: the caller looked up"),
    ("logging/__init__.py", "makeRecord", "log line: the record made"),
    ("logging/__init__.py", "callHandlers", "log line: formatted and written"),
    ("litestar/routes/http.py", "_call_handler_function", "Litestar: handler call + response"),
    ("litestar/response/base.py", "to_asgi_response", "Litestar: response object → ASGI"),
    ("uvicorn/protocols/http/httptools_impl.py", "send", "uvicorn: writing the response"),
)


def _short_path(filename: str) -> str:
    path = filename.split("site-packages/")[-1]
    if path.startswith(str(common.ROOT)):
        return path[len(str(common.ROOT)) + 1 :]
    return path.split("/lib/python3.11/")[-1]  # the standard library: logging/…, asyncio/…


def summarise_pstats(stats: Any, requests: int) -> str:
    """Own time (tottime) by layer, a few steps inclusive, and the costliest functions, in µs
    per request."""
    by_layer: Counter[str] = Counter()
    steps: Counter[str] = Counter()
    functions: list[tuple[float, float, int, str]] = []
    for (filename, line, name), (_, calls, own, cumulative, _) in stats.stats.items():
        path = _short_path(filename)
        by_layer[layer_of(f"{name} ({path}:{line})")] += own
        functions.append((own, cumulative, calls, f"{name} ({path}:{line})"))
        for suffix, function, step in STEPS:
            if path.endswith(suffix) and name == function:
                steps[step] += cumulative
    functions.sort(reverse=True)
    total = sum(by_layer.values())

    def us(seconds: float) -> str:
        return f"{seconds * 1e6 / requests:.1f}"

    return "\n".join(
        [
            f"{total * 1e6 / requests:.0f} µs of profiled CPU per request",
            "",
            common.table(
                ["layer (own time)", "µs/request", "share"],
                [(k, us(v), f"{100 * v / total:.1f}%") for k, v in by_layer.most_common()],
            ),
            "",
            common.table(
                ["step (inclusive)", "µs/request", "share"],
                [(k, us(v), f"{100 * v / total:.1f}%") for k, v in steps.items()],
            ),
            "",
            common.table(
                ["function", "own µs/req", "cumulative µs/req", "calls/req"],
                [
                    (f[3][:100], us(f[0]), us(f[1]), f"{f[2] / requests:.1f}")
                    for f in functions[:30]
                ],
            ),
        ]
    )


def asgi(url: str, args: argparse.Namespace) -> None:
    """CPU per request of each app called in-process, rounds interleaved, medians."""
    apps = [
        ("pressline", common.PRESSLINE_APP, common.ROOT),
        ("floor", common.FLOOR_APP, common.ROOT),
    ]
    if args.baseline:
        apps.insert(1, ("baseline", common.PRESSLINE_APP, args.baseline))
    tokens = common.tokens_path(url)
    figures: dict[str, list[float]] = {name: [] for name, _, _ in apps}
    for round_no in range(args.rounds):
        for name, app, root in apps:
            command = [
                sys.executable, "-m", "benchmarks.hotpaths", "asgi-child", app, args.endpoint,
                str(args.requests), str(tokens),
            ]  # fmt: skip
            done = subprocess.run(  # noqa: S603 - our own script
                command,
                cwd=root,
                env=common.server_env(url),
                stdout=subprocess.DEVNULL,  # the request log lines
                stderr=subprocess.PIPE,
                check=True,
            )
            microseconds = _figure(done.stderr.decode())
            figures[name].append(microseconds)
            print(
                f"  round {round_no + 1} {name:9} {args.endpoint}: "
                f"{microseconds:6.1f} µs CPU/request"
            )
    print(
        f"{args.endpoint} on {common.label(url)}, medians of {args.rounds}: "
        + ", ".join(f"{name} {common.median(values):.1f} µs" for name, values in figures.items())
    )


def _figure(stderr: str) -> float:
    """The child's figure: its last line that is a number (a child's exit may print a
    traceback after it, e.g. a task of the lifespan cancelled as the loop closes)."""
    for line in reversed(stderr.strip().splitlines()):
        try:
            return float(line)
        except ValueError:
            continue
    raise RuntimeError(f"no figure in the child's output:\n{stderr[-2000:]}")


def asgi_child(app_path: str, endpoint: str, requests: int, tokens_file: str) -> None:
    """One app in this process: lifespan, warm-up, then `requests` GETs by 8 callers."""
    import importlib
    import json
    import random

    module, _, attribute = app_path.partition(":")
    app = getattr(importlib.import_module(module), attribute)
    users = json.loads(Path(tokens_file).read_text())["users"]
    rng = random.Random(1)

    def target(user: dict[str, Any]) -> str:
        if endpoint == "order":
            return f"/api/v1/orders/{rng.choice(user['orders'])}"
        if endpoint == "customer":
            return f"/api/v1/customers/{rng.choice(user['customers'])}"
        return f"/api/v1/{endpoint}"

    async def one(user: dict[str, Any]) -> None:
        path = target(user)
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "", "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
            "headers": [
                (b"host", b"127.0.0.1:8000"), (b"accept", b"application/json"),
                (b"authorization", f"Bearer {user['token']}".encode()),
            ],
            "state": {},
        }  # fmt: skip

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] != 200:
                raise RuntimeError(f"{path} answered {message['status']}")

        await app(scope, receive, send)

    async def callers(each: int) -> None:
        async def caller() -> None:
            for _ in range(each):
                await one(users[rng.randrange(len(users))])

        await asyncio.gather(*(caller() for _ in range(8)))

    async def main() -> float:
        started = asyncio.Event()
        messages = [{"type": "lifespan.startup"}]

        async def lifespan_receive() -> dict[str, Any]:
            if messages:
                return messages.pop()
            await asyncio.Event().wait()
            return {}

        async def lifespan_send(message: dict[str, Any]) -> None:
            started.set()

        lifespan = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        task = asyncio.create_task(app(lifespan, lifespan_receive, lifespan_send))
        await started.wait()
        await callers(200)  # warm-up
        began = time.process_time()
        await callers(requests // 8)
        used = time.process_time() - began
        task.cancel()
        return used * 1e6 / (requests // 8 * 8)

    import uvloop

    sys.stderr.write(f"{uvloop.run(main()):.1f}\n")


async def _smoke() -> None:
    for backend in await common.smoke_backends():
        async with common.throwaway(backend) as url:
            common.run_seed(url, "--smoke")
            _queries_in_child(url)


def _queries_in_child(url: str) -> None:
    env = {**os.environ, "DATABASE_URL": url}
    command = [sys.executable, "-m", "benchmarks.hotpaths", "queries"]
    subprocess.run(command, check=True, env=env, cwd=common.ROOT)  # noqa: S603 - our script


def main() -> None:
    common.require_module_run(__package__, "hotpaths")
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hotpaths", description=__doc__)
    sub = parser.add_subparsers(dest="mode", required=True)
    sub.add_parser("queries", help="statements per request, per endpoint")
    summary = sub.add_parser("summarise", help="sort a saved raw py-spy profile by layer")
    summary.add_argument("file", type=Path)
    sub.add_parser("smoke", help="statement counts on tiny throwaway databases")
    spy_parser = sub.add_parser("spy", help="py-spy samples of a server under load, by layer")
    spy_parser.add_argument("--endpoint", choices=ENDPOINTS, default="orders")
    spy_parser.add_argument("--seconds", type=float, default=10)
    spy_parser.add_argument("--floor", action="store_true", help="profile the floor instead")
    spy_parser.add_argument("--py-spy", help="path to the py-spy executable")
    spy_parser.add_argument("--output", help="keep the raw stacks here (flamegraph input)")
    profile_parser = sub.add_parser("profile", help="cProfile of a server under load")
    profile_parser.add_argument("--endpoint", choices=ENDPOINTS, default="me")
    profile_parser.add_argument("--seconds", type=float, default=10)
    profile_parser.add_argument("--floor", action="store_true", help="profile the floor instead")
    profile_parser.add_argument("--output", help="keep the pstats file here")
    asgi_parser = sub.add_parser("asgi", help="CPU per request in-process, against the floor")
    asgi_parser.add_argument(
        "--endpoint",
        choices=("me", "order", "customer", "orders", "customers", "inventory"),
        default="me",
    )
    asgi_parser.add_argument("--requests", type=int, default=3000)
    asgi_parser.add_argument("--rounds", type=int, default=3)
    asgi_parser.add_argument("--baseline", type=Path, help="also this checkout's Pressline")
    if len(sys.argv) > 1 and sys.argv[1] == "asgi-child":
        asgi_child(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
        return
    args = parser.parse_args()
    if args.mode == "summarise":
        print(summarise_raw(args.file))
        return
    if args.mode == "smoke":
        asyncio.run(_smoke())
        return
    url = common.database_url()
    if args.mode == "queries":
        asyncio.run(count_queries(url))
    elif args.mode == "profile":
        profile(url, args)
    elif args.mode == "asgi":
        asgi(url, args)
    else:
        spy(url, args)


if __name__ == "__main__":
    main()
