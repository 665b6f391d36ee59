#!/usr/bin/env bash
# Seconds-long, tiny-scale runs of every benchmark, so none of them can rot (.ci/run calls it).
# Each uses a temporary SQLite file and, when the local server answers, a throwaway
# PostgreSQL database (pressline_bench_<pid>) that it drops again.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}

run() {
  echo "== benchmarks: $*"
  "$PYTHON" -m "$@"
}

run benchmarks.floor --smoke                    # per endpoint: same bytes, same statement count
run benchmarks.http --smoke --client python     # the fallback load generator, on purpose
run benchmarks.webhooks --smoke
run benchmarks.mail --smoke                     # customer email beside webhook delivery
run benchmarks.retention --smoke
run benchmarks.metrics
run benchmarks.scale --smoke
run benchmarks.hotpaths smoke
run benchmarks.logins --smoke                   # web RSS through logins sent at once
run benchmarks.ceiling --smoke
run benchmarks.admin --orders 500 --deliveries 500 --requests 3  # every admin page answers
run benchmarks.admin --search --orders 2000 --requests 3  # the order search (PostgreSQL)
run benchmarks.inventory_import --smoke         # the SKU CSV import, 50 KiB
run benchmarks.streams --smoke                  # open admin streams (PostgreSQL)
run benchmarks.soak --profile smoke             # 12 s of the soak, kills, every invariant (PostgreSQL)
echo "== benchmarks: all smoke runs passed"
