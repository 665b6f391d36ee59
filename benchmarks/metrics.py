"""What the request metrics cost a request: `api.metrics.observe` timed per call, in one
process and in multi-process mode (PROMETHEUS_MULTIPROC_DIR), against a request's own time.

    python -m benchmarks.metrics                 # per-call cost
    python -m benchmarks.metrics --per-second 1507   # and its share of a request at that rate
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from benchmarks import common

CALLS = 200_000


def measure() -> float:
    """Microseconds per `observe` of a request to the order list (cached label children)."""
    from api import metrics

    scope = {"path_template": "/api/v1/orders", "method": "GET"}
    metrics.observe(scope, 200, 0.001)  # type: ignore[arg-type]
    began = time.perf_counter()
    for _ in range(CALLS):
        metrics.observe(scope, 200, 0.0007)  # type: ignore[arg-type]
    return (time.perf_counter() - began) / CALLS * 1e6


def in_child(multiprocess: bool) -> float:
    env = {**os.environ}
    with tempfile.TemporaryDirectory() as directory:
        if multiprocess:
            env["PROMETHEUS_MULTIPROC_DIR"] = directory
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.metrics", "--child"],
            env=env, cwd=common.ROOT, capture_output=True, text=True, check=True,
        )  # fmt: skip
    return float(out.stdout.strip())


def main() -> None:
    common.require_module_run(__package__, "metrics")
    parser = argparse.ArgumentParser(prog="python -m benchmarks.metrics", description=__doc__)
    parser.add_argument("--per-second", type=float, help="a request rate of /api/v1/orders")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(measure())
        return
    rows = []
    for label, multiprocess in (("one process", False), ("PROMETHEUS_MULTIPROC_DIR", True)):
        cost = in_child(multiprocess)
        share = f"{cost / (1e6 / args.per_second):.2%}" if args.per_second else "-"
        rows.append([label, f"{cost:.2f}", share])
    print(common.table(["mode", "µs per request", "share of one request"], rows))


if __name__ == "__main__":
    main()
