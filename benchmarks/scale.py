"""How cost grows with data: page 1 and the last page of /orders, /inventory and /events, and an
order create, at 10k, 100k and 1M orders (customers and SKUs grow in proportion; as many
webhook events as orders).

Each scale gets its own database (seeded on first use, kept for the next run); requests are
sequential over one keep-alive connection, so the figures are latencies, not throughput.

    python -m benchmarks.scale                          # sqlite and postgres, 10k/100k/1M
    python -m benchmarks.scale --backends postgres --scales 0.1,1
    python -m benchmarks.scale --smoke
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import common

BASE_ORDERS = 100_000
SCALE_DIR = Path("/tmp/pressline_scale")  # noqa: S108 - benchmark data, not secrets
PAGE1_TARGET = 1.5  # page 1 at the largest scale within 1.5x of the smallest
RESOURCES = ("orders", "inventory", "events")  # seeded with as many events as orders


class Client:
    """Sequential requests over one keep-alive connection; latencies in ms."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, method: str, path: str, token: str, body: str | None = None) -> tuple[
        int, bytes, float
    ]:  # fmt: skip
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        began = time.perf_counter()
        self.conn.request(method, path, body=body, headers=headers)
        response = self.conn.getresponse()
        data = response.read()
        return response.status, data, (time.perf_counter() - began) * 1000

    def close(self) -> None:
        self.conn.close()


def timings(
    client: Client, calls: list[tuple[str, str, str, str | None]], warmup: int
) -> dict[str, float]:
    for method, path, token, body in calls[:warmup]:
        client.request(method, path, token, body)
    values = []
    for method, path, token, body in calls:
        status, data, ms = client.request(method, path, token, body)
        if status not in (200, 201):
            raise RuntimeError(f"{method} {path} answered {status}: {data[:300]!r}")
        values.append(ms)
    return {
        "p50_ms": common.percentile(values, 0.5),
        "p99_ms": common.percentile(values, 0.99),
        "n": len(values),
    }


def measure(url: str, requests: int, apps: list[tuple[str, str]]) -> dict[str, Any]:
    from benchmarks.http import create_body

    users = common.load_tokens(url)["users"]
    rng = random.Random(11)
    picked = [users[rng.randrange(len(users))] for _ in range(requests)]
    figures: dict[str, Any] = {}
    for name, app in apps:
        with common.Server(name, app, url) as server:
            client = Client(server.port)
            try:
                last_pages: dict[tuple[str, str], int] = {}
                for user in {u["token"]: u for u in picked}.values():
                    for resource in RESOURCES:
                        _, data, _ = client.request("GET", f"/api/v1/{resource}", user["token"])
                        last_pages[(resource, user["token"])] = json.loads(data)["last_page"]
                for resource in RESOURCES:
                    first = [("GET", f"/api/v1/{resource}", u["token"], None) for u in picked]
                    last = [
                        ("GET", f"/api/v1/{resource}?page={last_pages[(resource, u['token'])]}",
                         u["token"], None)
                        for u in picked
                    ]  # fmt: skip
                    figures[f"{name} {resource} page 1"] = timings(client, first, 5)
                    figures[f"{name} {resource} last page"] = timings(client, last, 5)
                if name == "pressline":
                    creates = [
                        ("POST", "/api/v1/orders", u["token"], create_body(u, rng)) for u in picked
                    ]
                    status, data, _ = client.request(*creates[0])
                    if status == 201:
                        figures["pressline order create"] = timings(client, creates, 0)
                    elif status not in (404, 405):
                        raise RuntimeError(f"POST /api/v1/orders answered {status}: {data[:300]!r}")
            finally:
                client.close()
    return figures


async def database_for(backend: str, orders: int, seed_args: list[str]) -> str:
    """The kept database of one scale, seeded on first use."""
    if backend == "postgres":
        name = f"pressline_scale_{orders}"
        url = common.pg_url(name)
        if not common.tokens_path(url).exists():
            await common.pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await common.pg_admin(f'CREATE DATABASE "{name}"')
            common.run_seed(url, *seed_args)
        return url
    return sqlite_database(orders, seed_args)


def sqlite_database(orders: int, seed_args: list[str]) -> str:
    SCALE_DIR.mkdir(exist_ok=True)
    path = SCALE_DIR / f"scale_{orders}.sqlite3"
    url = f"sqlite:///{path}"
    if not common.tokens_path(url).exists():
        for leftover in SCALE_DIR.glob(f"{path.name}*"):
            leftover.unlink()
        common.run_seed(url, *seed_args)
    return url


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    backends = args.backends.split(",")
    if args.smoke:
        backends = await common.smoke_backends()
    apps = [("pressline", common.PRESSLINE_APP), ("floor", common.FLOOR_APP)]
    reports = []
    for backend in backends:
        for factor in args.scales:
            orders = round(BASE_ORDERS * factor)
            seed_args = ["--scale", str(factor), "--events", str(orders)]  # as many events
            if args.smoke:
                seed_args += ["--workspaces", "4", "--users-per-workspace", "2"]
            print(f"{backend}: {orders:,} orders", flush=True)
            if args.smoke:
                async with common.throwaway(backend, f"scale{orders}") as url:
                    common.run_seed(url, *seed_args)
                    figures = measure(url, args.requests, apps)
            else:
                url = await database_for(backend, orders, seed_args)
                figures = measure(url, args.requests, apps)
            reports.append({"backend": backend, "orders": orders, "figures": figures})
    return reports


def summarise(reports: list[dict[str, Any]]) -> str:
    out = [f"machine: {common.machine()}"]
    for backend in dict.fromkeys(r["backend"] for r in reports):
        mine = [r for r in reports if r["backend"] == backend]
        metrics = list(dict.fromkeys(k for r in mine for k in r["figures"]))
        headers = ["p50 / p99 ms", *(f"{r['orders']:,} orders" for r in mine)]
        rows = []
        for metric in metrics:
            cells = []
            for r in mine:
                f = r["figures"].get(metric)
                cells.append(f"{f['p50_ms']:.1f} / {f['p99_ms']:.1f}" if f else "-")
            rows.append((metric, *cells))
        out += ["", f"## {backend}", "", common.table(headers, rows)]
        for resource, rows_are in (("orders", "orders"), ("events", "events")):
            first = mine[0]["figures"].get(f"pressline {resource} page 1")
            last = mine[-1]["figures"].get(f"pressline {resource} page 1")
            if first and last and len(mine) > 1:
                growth = last["p50_ms"] / first["p50_ms"]
                verdict = "met" if growth <= PAGE1_TARGET else "missed"
                out.append(
                    f"\nGET /{resource} page 1, {mine[-1]['orders']:,} vs "
                    f"{mine[0]['orders']:,} {rows_are}: "
                    f"{growth:.2f}x (target <= {PAGE1_TARGET}x: {verdict})"
                )
    return "\n".join(out)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.scale", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument(
        "--scales", default="0.1,1,10", help="multiples of 100,000 orders (default 0.1,1,10)"
    )
    parser.add_argument("--requests", type=int, default=100, help="per measurement")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    parser.add_argument("--smoke", action="store_true", help="tiny throwaway databases")
    args = parser.parse_args()
    if args.smoke:
        args.scales, args.requests = "0.002,0.02", 10
    args.scales = [float(s) for s in args.scales.split(",")]
    return args


def main() -> None:
    common.require_module_run(__package__, "scale")
    args = parse_args()
    reports = asyncio.run(run(args))
    print()
    print(summarise(reports))
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1))
    sys.exit(0)


if __name__ == "__main__":
    main()
