"""The web process as the Procfile runs it: JSON log lines without credentials, and a refusal
to start, naming the variable, when a setting is invalid (web and `pressline` alike)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from models import tokens
from tests import factories
from tests.e2e.test_ratelimit_redis import ROOT, _free_port, _wait_healthy

# The Procfile's web line, on the loopback interface (PORT in the environment).
PROCFILE = (ROOT / "Procfile").read_text(encoding="utf-8")
WEB = [sys.executable, "-m", "api", "--host", "127.0.0.1"]

pytestmark = pytest.mark.slow


def test_the_procfile_runs_the_web_entry_point():
    [web] = [line for line in PROCFILE.splitlines() if line.startswith("web:")]
    assert web.split()[1:] == ["python", "-m", "api"]


def _run_web(env: dict[str, str], log: Path, requests: list[tuple[str, dict[str, str]]]) -> str:
    port = _free_port()
    with log.open("wb") as sink:
        process = subprocess.Popen(  # noqa: S603 - a fixed command line
            WEB, cwd=ROOT, env={**env, "PORT": str(port)}, stdout=sink, stderr=sink
        )
    try:
        _wait_healthy(port, process)
        for path, headers in requests:
            httpx.get(f"http://127.0.0.1:{port}{path}", headers=headers, timeout=10)
    finally:
        process.terminate()
        process.wait(timeout=30)
    return log.read_text(errors="replace")


async def test_every_line_is_json_and_no_credential_reaches_the_output(backend, tmp_path):
    _, user, auth = await factories.account()
    header_token = auth["Authorization"].removeprefix("Bearer ")
    query_token = tokens.generate()
    behind_the_router = {"X-Forwarded-For": "192.0.2.1, 203.0.113.7", "X-Request-ID": "r-42"}
    requests = [
        (f"/api/v1/me?token={query_token}", {**auth, **behind_the_router}),
        (f"/api/v1/orders?page=2&access_token={query_token}", {"Authorization": "Bearer plk_x"}),
        (f"/api/v1/nowhere?token={query_token}", auth),
        ("/health", {}),
    ]
    env = {**os.environ, "DATABASE_URL": backend, "PYTHONUNBUFFERED": "1"}
    output = _run_web(env, tmp_path / "web.log", requests)

    for secret in (header_token, query_token, "plk_x"):
        assert secret not in output
    lines = [json.loads(text) for text in output.splitlines()]
    assert all(isinstance(line, dict) for line in lines)
    assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    # On PostgreSQL the live pages' LISTEN connection says it is listening (models/listen.py).
    listening = {"pressline.listen"} if backend.startswith("postgres") else set()
    assert {line["logger"] for line in lines} == {"uvicorn.error", "pressline.request"} | listening
    requests_logged = [line for line in lines if line["logger"] == "pressline.request"]
    assert [(r["path"], r["status"], r["user_id"]) for r in requests_logged] == [
        ("/api/v1/me", 200, user.id),
        ("/api/v1/orders", 401, None),
        ("/api/v1/nowhere", 404, None),  # no route, so no authentication
    ]  # /health is a DEBUG line, below the default INFO
    # The served process counts the address the router appended, not the client's own entry.
    assert (requests_logged[0]["client"], requests_logged[0]["request_id"]) == (
        "203.0.113.7",
        "r-42",
    )
    assert requests_logged[1]["client"] == "127.0.0.1"  # no proxy header: the connection's


def _pressline() -> str:
    found = shutil.which("pressline", path=str(Path(sys.executable).parent))
    assert found is not None, "the `pressline` console script is installed with the project"
    return found


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("WEBHOOK_RETENTION_DAYS", "0", "must be a whole number of at least 1, got '0'"),
        ("WEBHOOK_LEASE", "5", "(5 s) must be longer than WEBHOOK_TIMEOUT (10 s)"),
        ("PUBLIC_URL", "pressline.example.com", "must be an absolute http(s) URL"),
        ("PORT", "http", "must be a whole number from 1 to 65535, got 'http'"),
    ],
)
@pytest.mark.parametrize("process", ["web", "pressline"])
def test_an_invalid_setting_stops_the_process_naming_the_variable(
    tmp_path, process, name, value, says
):
    command = WEB if process == "web" else [_pressline(), "migrate"]
    env = {
        **os.environ,
        "PORT": str(_free_port()),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
        "WEBHOOK_TIMEOUT": "10",
        name: value,
    }
    done = subprocess.run(  # noqa: S603 - a fixed command line
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith(f"invalid configuration: {name} ")
    assert says in line
    assert not (tmp_path / "unused.sqlite3").exists()  # stopped before touching the database
