"""A small HTTP/1.1 keep-alive load generator (asyncio + uvloop), used when `wrk` is missing.

Runs in its own process so it never shares a core's time slices with the server it measures.
Reads the requests to cycle through from a JSON file (`[[method, path, token, body], ...]`),
prints one JSON object: requests, seconds, status counts, latency percentiles.

    python -m benchmarks.loadgen --port 8000 --connections 32 --seconds 10 --requests r.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import time
from collections import Counter
from typing import Any


def encode_request(host: str, method: str, path: str, token: str, body: str | None) -> bytes:
    lines = [
        f"{method} {path} HTTP/1.1",
        f"Host: {host}",
        "Accept: application/json",
        f"Authorization: Bearer {token}",
    ]
    payload = body.encode() if body else b""
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


async def connection(
    port: int,
    requests: Any,
    deadline: float,
    latencies: list[float],
    statuses: Counter[int],
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.perf_counter() < deadline:
            payload = next(requests)
            began = time.perf_counter()
            writer.write(payload)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
                    break
            if length:
                await reader.readexactly(length)
            latencies.append(time.perf_counter() - began)
            statuses[status] += 1
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def run(args: argparse.Namespace, specs: list[list[Any]]) -> dict[str, Any]:
    host = f"127.0.0.1:{args.port}"
    payloads = [encode_request(host, *spec) for spec in specs]
    requests = itertools.cycle(payloads)
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    began = time.perf_counter()
    deadline = began + args.seconds
    results = await asyncio.gather(
        *(
            connection(args.port, requests, deadline, latencies, statuses)
            for _ in range(args.connections)
        ),
        return_exceptions=True,
    )
    elapsed = time.perf_counter() - began
    errors = [repr(r) for r in results if isinstance(r, BaseException)]
    latencies.sort()

    def pct(fraction: float) -> float:
        if not latencies:
            return float("nan")
        return latencies[min(len(latencies) - 1, round(fraction * (len(latencies) - 1)))] * 1000

    return {
        "requests": len(latencies),
        "seconds": elapsed,
        "statuses": {str(k): v for k, v in statuses.items()},
        "non_2xx": sum(v for k, v in statuses.items() if not 200 <= k < 300),
        "socket_errors": len(errors),
        "errors": errors[:3],
        "p50_ms": pct(0.50),
        "p90_ms": pct(0.90),
        "p99_ms": pct(0.99),
        "max_ms": pct(1.0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.loadgen")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument(
        "--requests", required=True, help="JSON file of [method, path, token, body]"
    )
    args = parser.parse_args()
    with open(args.requests) as handle:
        specs = json.load(handle)
    try:
        import uvloop
    except ImportError:  # uvicorn[standard] brings it; plain asyncio otherwise
        print(json.dumps(asyncio.run(run(args, specs))))
    else:
        print(json.dumps(uvloop.run(run(args, specs))))


if __name__ == "__main__":
    main()
