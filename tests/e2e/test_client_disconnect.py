"""A client that disconnects mid-request, against a real web process (uvicorn, `python -m api`)
on 127.0.0.1 and the test database: one that sends half of its body and closes (the API, the
admin's login form, the proof page's form), and one that closes an open event stream. Each is
one request line, "client disconnected" at INFO with status 499, and nothing else: no ERROR
line, no traceback, no 500. The process keeps serving. On both databases."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from models import admin_sessions
from tests import factories
from tests.admin.support import member
from tests.security.admin_walk import records
from tests.security.processes import Web, web_process

pytestmark = pytest.mark.usefixtures("backend")

WAIT = 10.0


@pytest.fixture(scope="module")
def web(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Web, Path]]:
    log = tmp_path_factory.mktemp("disconnect") / "web.log"
    with web_process(backend, log, LOG_LEVEL="INFO") as process:
        yield process, log


def lines(log: Path) -> list[dict[str, Any]]:
    found = []
    for text in log.read_text(errors="replace").splitlines():
        try:
            found.append(json.loads(text))
        except ValueError:
            found.append({"level": "RAW", "message": text})  # not a JSON line: a traceback
    return found


def request_lines(log: Path, path: str) -> list[dict[str, Any]]:
    return [
        line for line in lines(log)
        if line.get("logger") == "pressline.request" and line.get("path") == path
    ]  # fmt: skip


def wait_for_line(log: Path, path: str, count: int = 1) -> dict[str, Any]:
    """The newest request line of `path`, once there are `count` (a line is written once the
    answer has been sent, so it may come after the client has read it)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = request_lines(log, path)
        if len(found) >= count:
            return found[-1]
        time.sleep(0.05)
    pytest.fail(f"no request line for {path}: {log.read_text()[-2000:]}")


def half_a_body(web: Web, path: str, headers: dict[str, str]) -> None:
    """A POST announcing 1,000 bytes of body that sends 30 and closes the connection."""
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    with socket.create_connection(("127.0.0.1", web.port), timeout=WAIT) as sock:
        sock.sendall(head.encode() + b"\r\n" + b'{"name": "Acme Tees", "slug": "a')
        time.sleep(0.2)  # the body is being read when the client goes


def closed_stream(web: Web, cookie: str) -> bytes:
    """GET /admin/stream, read until the stream has opened, close the connection."""
    head = (
        "GET /admin/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        f"Cookie: {cookie}\r\n\r\n"
    )
    received = b""
    with socket.create_connection(("127.0.0.1", web.port), timeout=WAIT) as sock:
        sock.sendall(head.encode())
        while b": open" not in received:
            chunk = sock.recv(4096)
            if not chunk:
                break
            received += chunk
    return received


def assert_only_disconnected(log: Path, path: str) -> None:
    line = wait_for_line(log, path)
    assert line["message"] == "client disconnected", line
    assert line["level"] == "INFO" and line["status"] == 499, line


def assert_no_errors(log: Path) -> None:
    bad = [line for line in lines(log) if line["level"] not in {"INFO", "DEBUG"}]
    assert not bad, bad
    assert "Traceback" not in log.read_text()


async def test_a_body_cut_short_is_logged_as_a_disconnect(web: tuple[Web, Path]) -> None:
    process, log = web
    ws, _, auth = await factories.account()
    ids = await records(ws)
    json_type = {"Content-Type": "application/json"}
    form_type = {"Content-Type": "application/x-www-form-urlencoded"}

    half_a_body(process, "/api/v1/customers", {**auth, **json_type})
    assert_only_disconnected(log, "/api/v1/customers")
    half_a_body(process, "/admin/login", form_type)
    assert_only_disconnected(log, "/admin/login")
    half_a_body(process, f"/proofs/{ids['proof_token']}/approve", form_type)
    assert_only_disconnected(log, "/proofs/{token}/approve")  # the log shows the template
    assert_no_errors(log)

    # Whole requests are answered as ever.
    async with httpx.AsyncClient(base_url=process.base, timeout=WAIT) as client:
        answer = await client.post("/api/v1/customers", headers=auth, json={})
    assert answer.status_code == 422
    assert wait_for_line(log, "/api/v1/customers", count=2)["status"] == 422


async def test_a_stream_closed_by_its_client_is_logged_as_a_disconnect(
    web: tuple[Web, Path],
) -> None:
    process, log = web
    ws = await factories.workspace()
    owner = await member(ws)
    session = await admin_sessions.create(owner.id, ws.id)
    opened = closed_stream(process, f"pressline_session={session}")
    assert opened.startswith(b"HTTP/1.1 200"), opened[:200]
    assert_only_disconnected(log, "/admin/stream")
    assert_no_errors(log)
