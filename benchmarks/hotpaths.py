"""Where Pressline's time goes: statements per request, and a sampled CPU profile by layer.

    DATABASE_URL=... python -m benchmarks.hotpaths queries          # statements per endpoint
    DATABASE_URL=... python -m benchmarks.hotpaths spy --endpoint orders --seconds 10

`queries` runs the real app in-process and counts every statement Piccolo sends. `spy`
samples a real uvicorn server under load with py-spy (install it apart from the project,
e.g. `pipx install py-spy`, or pass `--py-spy PATH`) and sorts the samples by layer.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks import common

ENDPOINTS = ("me", "orders", "order", "customers", "customer", "inventory", "create")

# Leaf-frame file → layer; the first matching fragment wins.
LAYERS = (
    ("/piccolo/", "Piccolo (query building, rows)"),
    ("/asyncpg/", "asyncpg driver"),
    ("/aiosqlite/", "aiosqlite + sqlite3"),
    ("sqlite3", "aiosqlite + sqlite3"),
    ("/litestar/", "Litestar"),
    ("/msgspec/", "msgspec"),
    ("/uvicorn/", "uvicorn + httptools"),
    ("/httptools/", "uvicorn + httptools"),
    ("/api/", "api/ (handlers, schemas, auth)"),
    ("/models/", "models/ (queries, rules)"),
    ("/asyncio/", "event loop"),
    ("/uvloop/", "event loop"),
    ("/concurrent/", "threads (executor)"),
    ("/threading.py", "threads (executor)"),
    ("/queue.py", "threads (executor)"),
    ("zoneinfo", "dates, decimals, json (stdlib)"),
    ("datetime", "dates, decimals, json (stdlib)"),
    ("decimal", "dates, decimals, json (stdlib)"),
    ("/json/", "dates, decimals, json (stdlib)"),
    ("logging", "logging"),
)
INCLUSIVE = (
    ("/piccolo/", "any Piccolo frame on the stack"),
    ("api/auth.py", "authentication (api/auth.py)"),
    ("/api/controllers/", "inside a handler (api/controllers)"),
    ("/models/queries/", "inside models/queries"),
)


# --- statements per request ----------------------------------------------------------------


async def count_queries(url: str) -> None:
    import logging

    import httpx

    logging.getLogger("httpx").setLevel(logging.WARNING)
    os.environ["DATABASE_URL"] = url
    os.environ["RATE_LIMIT_READ"] = os.environ["RATE_LIMIT_WRITE"] = common.UNLIMITED
    from models import db

    db.bind(db.engine_from_url(url))
    from api.app import create_app
    from benchmarks.http import request_specs

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
    users = common.load_tokens(url)["users"]
    app = create_app()
    rows = []
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
    print()
    print(common.table(["request", "status", "statements"], rows))


# --- sampled profile -----------------------------------------------------------------------


def layer_of(frame: str) -> str:
    for fragment, name in LAYERS:
        if fragment in frame:
            return name
    return "other (stdlib, C, interpreter)"


def summarise_raw(path: Path) -> str:
    """py-spy's raw (collapsed) stacks → share of samples per layer of the leaf frame."""
    leaf: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        frames = stack.split(";")
        total += count
        leaf[layer_of(frames[-1])] += count
        functions[frames[-1]] += count
        for fragment, name in INCLUSIVE:
            if any(fragment in frame for frame in frames):
                inclusive[name] += count
    if not total:
        return "no samples"

    def pct(n: int) -> str:
        return f"{100 * n / total:.1f}%"

    out = [
        f"{total:,} samples",
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


def main() -> None:
    common.require_module_run(__package__, "hotpaths")
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hotpaths", description=__doc__)
    sub = parser.add_subparsers(dest="mode", required=True)
    sub.add_parser("queries", help="statements per request, per endpoint")
    spy_parser = sub.add_parser("spy", help="py-spy samples of a server under load, by layer")
    spy_parser.add_argument("--endpoint", choices=ENDPOINTS, default="orders")
    spy_parser.add_argument("--seconds", type=float, default=10)
    spy_parser.add_argument("--floor", action="store_true", help="profile the floor instead")
    spy_parser.add_argument("--py-spy", help="path to the py-spy executable")
    spy_parser.add_argument("--output", help="keep the raw stacks here (flamegraph input)")
    args = parser.parse_args()
    url = common.database_url()
    if args.mode == "queries":
        asyncio.run(count_queries(url))
    else:
        spy(url, args)


if __name__ == "__main__":
    main()
