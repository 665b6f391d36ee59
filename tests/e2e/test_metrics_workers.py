"""`/metrics` of a server running several uvicorn worker processes counts every request once,
whichever worker answers the scrape (prometheus-client's multi-process mode)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.test_ratelimit_redis import ROOT, _free_port, _wait_healthy
from tests.e2e.test_web_process import WEB

pytestmark = pytest.mark.slow
TOKEN = "scrape-token-0123456789"
REQUESTS = 40


def health_count(text: str) -> float:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = sample.labels
            if (
                sample.name == "pressline_http_requests_total"
                and labels.get("route") == "/health"
                and labels.get("status") == "200"
            ):
                return sample.value
    return 0.0


def test_two_workers_report_the_same_totals(backend: str, tmp_path: Path):
    directory = tmp_path / "prometheus"
    directory.mkdir()
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": backend,
        "PORT": str(port),
        "METRICS_TOKEN": TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(directory),
        "LOG_LEVEL": "WARNING",
    }
    server = subprocess.Popen(  # noqa: S603 - a fixed command line
        [*WEB, "--workers", "2"],
        cwd=ROOT,
        env=env,
    )
    try:
        _wait_healthy(port, server)
        base = f"http://127.0.0.1:{port}"
        auth = {"Authorization": f"Bearer {TOKEN}"}
        before = health_count(httpx.get(f"{base}/metrics", headers=auth, timeout=5).text)
        for _ in range(REQUESTS):  # a new connection each: the kernel spreads them
            with httpx.Client() as client:
                assert client.get(f"{base}/health", timeout=5).status_code == 200
        for _ in range(8):
            with httpx.Client() as client:
                text = client.get(f"{base}/metrics", headers=auth, timeout=5).text
                assert health_count(text) == before + REQUESTS
        assert len(list(directory.glob("counter_*.db"))) == 2  # both workers counted requests
    finally:
        server.terminate()
        server.wait(timeout=15)
