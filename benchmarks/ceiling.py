"""The framework's own ceiling: a constant `GET /api/v1/me` body from Litestar and from a
bare ASGI callable, under the same server and load as benchmarks/http.py (no database).

    python -m benchmarks.ceiling [--seconds 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path
from typing import Any

import msgspec
from litestar import Litestar, get

from benchmarks import common


class User(msgspec.Struct):
    id: int
    name: str
    email: str


ME = User(1, "Bench User 1", "user1@shop1.example")
BODY = msgspec.json.encode(ME)


@get("/api/v1/me", sync_to_thread=False)
def me() -> User:
    return ME


litestar_app = Litestar(route_handlers=[me], openapi_config=None)


async def asgi_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(BODY)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": BODY})


def main() -> None:
    from benchmarks.http import measure

    common.require_module_run(__package__, "ceiling")
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ceiling", description=__doc__)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.seconds, args.rounds = 1, 1
    client = "wrk" if shutil.which("wrk") else "python"
    specs = [["GET", "/api/v1/me", "unused", None]]
    apps = {
        "Litestar, constant body": "benchmarks.ceiling:litestar_app",
        "bare ASGI, constant body": "benchmarks.ceiling:asgi_app",
    }
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in apps}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for name, app in apps.items():
                server = common.Server(name, app, "sqlite:///unused.sqlite3", ready_status=200)
                with server:
                    run = measure(
                        server, client, specs, connections=32, seconds=args.seconds,
                        warmup=1, tmp=Path(tmp),
                    )  # fmt: skip
                figures[name].append((run.rps, run.server_cpu_ms_per_req))
    rows = [
        (
            name,
            f"{common.median([r for r, _ in runs]):,.0f}",
            f"{common.median([c for _, c in runs]):.3f}",
        )
        for name, runs in figures.items()
    ]
    print(f"machine: {common.machine()}, client {client}")
    print(common.table(["app", "req/s", "CPU ms/req"], rows))


if __name__ == "__main__":
    main()
