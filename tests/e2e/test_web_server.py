"""The web process as the Procfile runs it (`python -m api`, api/server.py), on a free port of
the loopback interface: request heads over 16 KiB are refused at once while other requests are
served, and SIGTERM lets the request in flight finish, refuses new connections, exits 0.

Every wait is bounded, and the 80 MB header stops being sent as soon as the server closes."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx
import pytest

from api.server import GRACEFUL_SHUTDOWN_SECONDS, MAX_HEAD_BYTES
from models.tables import Order
from tests.api import order_helpers
from tests.e2e.test_ratelimit_redis import ROOT, _free_port, _wait_healthy
from tests.e2e.test_web_process import WEB

pytestmark = pytest.mark.slow
KIB = 1024
REFUSED_WITHIN = 0.5  # seconds: the refusal takes milliseconds; this is the bound under load
TOO_LARGE = {
    "message": "Request header fields too large (limit 16 KiB)",
    "code": "headers_too_large",
    "details": {},
}


@dataclass
class Web:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def lines(self) -> list[dict[str, object]]:
        return [json.loads(text) for text in self.log.read_text(errors="replace").splitlines()]


def start_web(log: Path, *arguments: str, **env: str) -> Web:
    port = _free_port()
    environment = {**os.environ, "PORT": str(port), "PYTHONUNBUFFERED": "1", **env}
    with log.open("wb") as sink:
        process = subprocess.Popen(  # noqa: S603 - a fixed command line
            [*WEB, *arguments], cwd=ROOT, env=environment, stdout=sink, stderr=sink
        )
    try:
        _wait_healthy(port, process)
    except BaseException:
        stop(process)
        raise
    return Web(process, port, log)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """One web process on a database of its own (`/health` and 401s need no tables)."""
    directory = tmp_path_factory.mktemp("web")
    server = start_web(
        directory / "web.log", DATABASE_URL=f"sqlite:///{directory / 'pressline.sqlite3'}"
    )
    yield server
    stop(server.process)


def head(path: str = "/health", headers: dict[str, str] | None = None) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def padding(total: int) -> dict[str, str]:
    """Headers of 1 KiB each (name, colon, value, line end) adding up to `total` bytes."""
    return {
        f"X-Pad-{n:03d}": "p" * (KIB - len(f"X-Pad-{n:03d}: \r\n")) for n in range(total // KIB)
    }


def read_until_closed(sock: socket.socket, seconds: float) -> bytes:
    """Everything the server sends until it closes the connection (a reset ends it too)."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def assert_refused(reply: bytes) -> None:
    """431 with the API's error body, or (a reset lost it) nothing at all."""
    if reply:
        status, _, rest = reply.partition(b"\r\n")
        assert status == b"HTTP/1.1 431 Request Header Fields Too Large"
        headers, _, body = rest.partition(b"\r\n\r\n")
        assert b"connection: close" in headers.lower()
        assert json.loads(body) == TOO_LARGE


def test_a_head_over_16_kib_is_refused_at_once(web: Web):
    request = head(headers=padding(20 * KIB))
    assert len(request) > MAX_HEAD_BYTES
    with socket.create_connection(("127.0.0.1", web.port), timeout=5) as sock:
        started = time.monotonic()
        sock.sendall(request)
        reply = read_until_closed(sock, seconds=5)
        elapsed = time.monotonic() - started
    assert reply.startswith(b"HTTP/1.1 431 ")  # all of it was sent before the refusal
    assert_refused(reply)
    assert elapsed < REFUSED_WITHIN
    assert any(line["message"] == "Request head over 16384 bytes refused." for line in web.lines())


@dataclass
class Stream:
    """An 80 MB header sent in 64 KiB pieces, 5 ms apart (at least 6 s for all of it),
    until the server answers or closes."""

    port: int
    total: int = 80 * KIB * KIB
    piece: bytes = b"h" * 64 * KIB
    sent: int = 0
    seconds: float = 0.0
    reply: bytes = b""
    started: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
            opening = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Huge: " + b"h" * 12 * KIB
            sock.sendall(opening)  # an incomplete head, within the limit: nothing refused yet
            self.started.set()
            time.sleep(0.3)  # while the other requests are being answered
            began = time.monotonic()
            try:
                while self.sent < self.total:
                    if select.select([sock], [], [], 0)[0]:  # an answer, or the close
                        break
                    sock.sendall(self.piece)
                    self.sent += len(self.piece)
                    time.sleep(0.005)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.seconds = time.monotonic() - began
            self.reply = read_until_closed(sock, seconds=5)


def test_an_80_mb_header_is_cut_off_while_health_answers(web: Web):
    stream = Stream(web.port)
    sender = threading.Thread(target=stream.run, daemon=True)
    sender.start()
    assert stream.started.wait(10)
    answers: list[tuple[int, float]] = []
    with httpx.Client(base_url=web.base, timeout=5) as client:
        while sender.is_alive() or len(answers) < 5:
            started = time.monotonic()
            status = client.get("/health").status_code
            answers.append((status, time.monotonic() - started))
            time.sleep(0.02)
    sender.join(timeout=30)

    assert not sender.is_alive()
    assert stream.seconds < REFUSED_WITHIN
    assert stream.sent < stream.total // 10  # stopped long before 80 MB
    assert_refused(stream.reply)
    assert {status for status, _ in answers} == {200}
    assert max(seconds for _, seconds in answers) < REFUSED_WITHIN
    assert httpx.get(f"{web.base}/health", timeout=5).status_code == 200


def test_heads_within_the_limit_are_answered_as_before(web: Web):
    eight = padding(8 * KIB)
    response = httpx.get(f"{web.base}/api/v1/me", headers=eight, timeout=5)
    assert response.status_code == 401  # the application answered: no token
    assert response.json()["message"].startswith("Missing bearer token")
    nearly = padding(15 * KIB)  # plus the request line and Host: still under 16 KiB
    assert httpx.get(f"{web.base}/health", headers=nearly, timeout=5).status_code == 200


def test_each_request_on_a_kept_alive_connection_has_its_own_limit(web: Web):
    """Three requests on one connection: 10 KiB of headers, a 200 KiB body, 10 KiB again —
    the count starts again with each head and leaves bodies out."""
    connection = http.client.HTTPConnection("127.0.0.1", web.port, timeout=5)
    requests = [
        ("GET", "/health", padding(10 * KIB), None),
        (
            "POST",
            "/api/v1/orders",
            {"Content-Type": "application/json"},
            b"[" + b"0," * 100 * KIB + b"0]",
        ),
        ("GET", "/health", padding(10 * KIB), None),
    ]
    statuses, sockets = [], []
    try:
        for method, path, headers, body in requests:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            response.read()
            statuses.append(response.status)
            sockets.append(connection.sock)  # http.client opens a new one if the server closed
    finally:
        connection.close()
    assert len(set(map(id, sockets))) == 1
    assert statuses == [200, 401, 200]


def test_pipelined_requests_in_one_read_are_each_within_the_limit(web: Web):
    """Two requests of 10 KiB of headers each, sent at once: 20 KiB in one read, neither head
    over the limit, both answered."""
    with socket.create_connection(("127.0.0.1", web.port), timeout=5) as sock:
        sock.sendall(head(headers=padding(10 * KIB)) * 2)
        received = b""
        sock.settimeout(5)
        while received.count(b"HTTP/1.1 200 OK") < 2:
            chunk = sock.recv(65536)
            assert chunk, received
            received += chunk
    assert b" 431 " not in received


def test_several_processes_on_one_port_refuse_large_heads_and_stop_on_sigterm(tmp_path: Path):
    server = start_web(
        tmp_path / "web.log",
        "--workers",
        "2",
        DATABASE_URL=f"sqlite:///{tmp_path / 'pressline.sqlite3'}",
    )
    try:
        for _ in range(4):  # new connections: the kernel spreads them over the processes
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
                sock.sendall(head(headers=padding(20 * KIB)))
                assert_refused(read_until_closed(sock, seconds=5))
        assert httpx.get(f"{server.base}/health", timeout=5).status_code == 200
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=20) == 0
    finally:
        stop(server.process)
    started = [
        line for line in server.lines() if line["message"] == "Application startup complete."
    ]
    assert len(started) == 2


# --- SIGTERM with a request in flight --------------------------------------------------------


async def connection_refused(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except ConnectionRefusedError:
        return True
    writer.close()
    return False


async def waiting_on_a_lock(admin: asyncpg.Connection) -> int:
    return await admin.fetchval(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )


@pytest.mark.postgres_only(reason="a row lock holds the request in flight")
async def test_sigterm_finishes_the_request_in_flight_then_exits_0(backend: str, tmp_path: Path):
    """The create waits for its workspace's row, locked here in another connection; SIGTERM
    arrives while it waits. New connections are refused at once, the create ends 201 once
    the lock goes, and the process exits 0."""
    shop = await order_helpers.shop()
    body = order_helpers.order_body(shop.customer.id)
    server = start_web(tmp_path / "web.log", DATABASE_URL=backend, LOG_LEVEL="WARNING")
    holder = await asyncpg.connect(backend)
    try:
        locked = holder.transaction()
        await locked.start()
        await holder.execute("SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE", shop.ws.id)
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            create = asyncio.create_task(
                client.post("/api/v1/orders", json=body, headers=shop.auth)
            )
            async with asyncio.timeout(10):
                while await waiting_on_a_lock(holder) == 0:
                    assert not create.done(), create.result()
                    await asyncio.sleep(0.05)

            server.process.send_signal(signal.SIGTERM)
            async with asyncio.timeout(5):
                while True:
                    if await connection_refused(server.port):
                        break
                    await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
            assert not create.done()
            assert server.process.poll() is None  # still waiting for the request in flight

            await locked.commit()
            response = await create
        assert response.status_code == 201, response.text
        assert response.headers["connection"] == "close"
        exit_code = await asyncio.to_thread(server.process.wait, GRACEFUL_SHUTDOWN_SECONDS)
        assert exit_code == 0
    finally:
        await holder.close()
        stop(server.process)
    assert await Order.count().where(Order.id == response.json()["id"]) == 1
    messages = [line["message"] for line in server.lines()]
    assert "Cancel 1 running task(s), timeout graceful shutdown exceeded" not in messages
