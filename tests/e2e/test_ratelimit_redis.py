"""Rate limits shared through Redis: two uvicorn processes count one user's requests together.

Redis is taken from REDIS_URL_FOR_TESTS (default: the local server). Without it the tests
are skipped, unless PRESSLINE_REQUIRE_POSTGRES=1 (CI), where a missing service is a failure.
Every run uses its own key prefix and deletes its keys afterwards.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis
from litestar import Litestar
from redis.exceptions import RedisError

from api import ratelimit
from api.app import create_app
from models import accounts
from models.tables import ApiToken, User, Workspace
from tests import factories

REDIS_URL = os.environ.get("REDIS_URL_FOR_TESTS", "redis://127.0.0.1:6379/0")
REQUIRE_SERVICES = os.environ.get("PRESSLINE_REQUIRE_POSTGRES", "") == "1"
ROOT = Path(__file__).resolve().parents[2]
REDIS_SERVER = shutil.which("redis-server")
# The tests of sharing give Redis a budget no loaded test machine uses up, so a slow answer is
# waited for instead of being counted in-process (RATE_LIMIT_REDIS_TIMEOUT); the fault tests
# below set the budget they measure against.
SHARING_TIMEOUT = 5.0
METRICS_TOKEN = "metrics-" + uuid.uuid4().hex

SERVER = [sys.executable, "-m", "uvicorn", "api.app:app", "--host", "127.0.0.1", "--no-access-log"]

pytestmark = pytest.mark.slow


@pytest.fixture
async def redis_prefix() -> AsyncIterator[str]:
    """A key prefix of this run's own; its keys are deleted afterwards."""
    client = aioredis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        await client.ping()
    except (RedisError, OSError) as exc:
        await client.aclose()
        message = f"Redis not reachable at {REDIS_URL} ({exc})"
        if REQUIRE_SERVICES:
            pytest.fail(message + " and PRESSLINE_REQUIRE_POSTGRES=1")
        pytest.skip(message)
    prefix = f"pressline-test:{uuid.uuid4().hex[:12]}:rl"
    try:
        yield prefix
    finally:
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


async def test_two_windows_sharing_redis_count_once(redis_prefix):
    """Two limiters (as in two processes) hit the same user concurrently: exactly 60 pass."""
    first = ratelimit.RedisWindow(REDIS_URL, SHARING_TIMEOUT)
    second = ratelimit.RedisWindow(REDIS_URL, SHARING_TIMEOUT)
    key = f"{redis_prefix}:read:1"
    try:
        await first.start()  # as the web process does at its start
        await second.start()
        decisions = await asyncio.gather(
            *((first if n % 2 else second).hit(key, 60) for n in range(70))
        )
        client = aioredis.Redis.from_url(REDIS_URL)
        stored = await client.zcard(key)
        ttl = await client.pttl(key)
        await client.aclose()
        shared = first.shared and second.shared
    finally:
        await first.close()
        await second.close()
    assert shared  # every request was decided in Redis, none in-process
    assert Counter(d.allowed for d in decisions) == {True: 60, False: 10}
    assert sorted(d.remaining for d in decisions if d.allowed) == list(range(60))
    assert all(1 <= d.retry_after <= 60 for d in decisions if not d.allowed)
    # Reset: until the oldest counted request leaves, as counted in-process; 60 for the first.
    assert all(1 <= d.reset <= 60 for d in decisions)
    assert all(d.reset == d.retry_after for d in decisions if not d.allowed)
    assert max(d.reset for d in decisions if d.remaining == 59) == 60
    assert stored == 60  # refusals are not recorded
    assert 0 < ttl <= 60_000  # the set expires once the window is over


@pytest.fixture
async def redis_app_client(
    app: Litestar, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    """The real app counting in Redis (small limits, this run's prefix), on the test's database."""
    monkeypatch.setenv("REDIS_URL", REDIS_URL)
    monkeypatch.setenv("RATE_LIMIT_KEY_PREFIX", redis_prefix)
    monkeypatch.setenv("RATE_LIMIT_READ", "3")
    monkeypatch.setenv("RATE_LIMIT_WRITE", "2")
    monkeypatch.setenv("RATE_LIMIT_REDIS_TIMEOUT", str(SHARING_TIMEOUT))
    counted = create_app()
    limiter: ratelimit.RateLimiter = counted.state.rate_limiter
    assert isinstance(limiter.window, ratelimit.RedisWindow)
    await limiter.start()
    transport = httpx.ASGITransport(app=counted)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            yield c
        assert limiter.window.shared  # every request was counted in Redis
    finally:
        await limiter.close()


async def test_answers_counted_in_redis_carry_the_four_headers(redis_app_client):
    _, _, auth = await factories.account()
    reads = [await redis_app_client.get("/api/v1/me", headers=auth) for _ in range(4)]
    writes = [
        await redis_app_client.post("/api/v1/orders", json={}, headers=auth) for _ in range(3)
    ]
    assert [r.status_code for r in reads] == [200, 200, 200, 429]
    assert [r.status_code for r in writes] == [422, 422, 429]
    for answers, bucket, limit in ((reads, "read", 3), (writes, "write", 2)):
        remaining = [int(r.headers["X-RateLimit-Remaining"]) for r in answers]
        assert remaining == [*range(limit - 1, -1, -1), 0]
        for response in answers:
            assert response.headers["X-RateLimit-Limit"] == str(limit)
            assert response.headers["X-RateLimit-Bucket"] == bucket
            assert 1 <= int(response.headers["X-RateLimit-Reset"]) <= 60
        assert answers[0].headers["X-RateLimit-Reset"] == "60"  # the first: a full minute
        assert "Retry-After" not in answers[0].headers
        refused = answers[-1]
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert refused.headers["Retry-After"] == refused.headers["X-RateLimit-Reset"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(port: int, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"uvicorn on port {port} exited with {process.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"uvicorn on port {port} did not become healthy in {timeout} s")


@pytest.fixture
def web_processes(backend: str, redis_prefix: str) -> Iterator[list[str]]:
    """Two web processes on two ports, one database, one Redis; yields their base URLs."""
    env = {
        **os.environ,
        "DATABASE_URL": backend,
        "REDIS_URL": REDIS_URL,
        "RATE_LIMIT_KEY_PREFIX": redis_prefix,
        "RATE_LIMIT_READ": "60",
        "RATE_LIMIT_WRITE": "20",
        "RATE_LIMIT_REDIS_TIMEOUT": str(SHARING_TIMEOUT),
        "METRICS_TOKEN": METRICS_TOKEN,
        "LOG_LEVEL": "WARNING",
    }
    ports = [_free_port(), _free_port()]
    processes = [
        subprocess.Popen(  # noqa: S603 - a fixed command line
            [*SERVER, "--port", str(port)],
            cwd=ROOT,
            env=env,
        )
        for port in ports
    ]
    try:
        for port, process in zip(ports, processes, strict=True):
            _wait_healthy(port, process)
        yield [f"http://127.0.0.1:{port}" for port in ports]
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def test_two_web_processes_share_one_users_limit(web_processes):
    _, _, auth = await factories.account()
    async with httpx.AsyncClient(timeout=10) as client:
        responses = await asyncio.gather(
            *(client.get(f"{web_processes[n % 2]}/api/v1/me", headers=auth) for n in range(70))
        )
        by_process = [Counter(r.status_code for r in responses[start::2]) for start in (0, 1)]
        # A second user is counted apart, on either process.
        _, _, other = await factories.account()
        fresh = await client.get(f"{web_processes[1]}/api/v1/me", headers=other)
        scrapes = [
            await client.get(
                f"{base}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
            )
            for base in web_processes
        ]
    assert Counter(r.status_code for r in responses) == {200: 60, 429: 10}
    # Neither process fell back to counting in-process: the 60 were counted in Redis.
    for scrape in scrapes:
        assert "\npressline_rate_limit_redis_fallbacks_total 0.0\n" in scrape.text
    assert all(counts[200] > 0 for counts in by_process)  # both processes served requests
    for response in responses:
        assert response.headers["X-RateLimit-Limit"] == "60"
        assert response.headers["X-RateLimit-Bucket"] == "read"
        assert 1 <= int(response.headers["X-RateLimit-Reset"]) <= 60
        if response.status_code == 429:
            assert response.headers["X-RateLimit-Remaining"] == "0"
            assert 1 <= int(response.headers["Retry-After"]) <= 60
            assert response.headers["Retry-After"] == response.headers["X-RateLimit-Reset"]
    assert fresh.status_code == 200
    assert fresh.headers["X-RateLimit-Remaining"] == "59"


async def test_revocation_and_deactivation_act_at_once_on_every_web_process(web_processes):
    """Neither process keeps a token's answer: a change made in the database by anyone (the
    admin, the CLI, another process) is seen by the very next request on each of them."""
    _, user, auth = await factories.account()
    ws, other_user, other = await factories.account()
    async with httpx.AsyncClient(timeout=10) as client:

        async def statuses(headers: dict[str, str]) -> list[int]:
            return [
                (await client.get(f"{base}/api/v1/me", headers=headers)).status_code
                for base in web_processes
            ]

        assert await statuses(auth) == [200, 200]
        assert await statuses(other) == [200, 200]
        await accounts.revoke_token(
            (await ApiToken.select(ApiToken.id).where(ApiToken.user == user.id).first())["id"]
        )
        revoked = await statuses(auth)
        await User.update({User.is_active: False}).where(User.id == other_user.id)
        deactivated = await statuses(other)
        await User.update({User.is_active: True}).where(User.id == other_user.id)
        await Workspace.update({Workspace.plan: "standard"}).where(Workspace.id == ws.id)
        downgraded = await statuses(other)
    assert revoked == [401, 401]
    assert deactivated == [403, 403]
    assert downgraded == [422, 422]


# --- faults: a private redis-server of the test's own, stopped, restarted and hung ----------


class PrivateRedis:
    """A `redis-server` of this test alone, on a free port, without persistence: killing it
    loses every count, as a restarted cache would."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(  # noqa: S603 - a fixed command line
            [
                str(REDIS_SERVER),
                *("--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no", "--daemonize", "no"),
            ],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=10)

    def pause(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.resume()
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    if REDIS_SERVER is None:
        message = "redis-server is not installed"
        if REQUIRE_SERVICES:
            pytest.fail(message + " and PRESSLINE_REQUIRE_POSTGRES=1")
        pytest.skip(message)
    server = PrivateRedis()
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def _hits(window: ratelimit.Window, key: str, count: int, limit: int) -> list[bool]:
    return [(await window.hit(key, limit)).allowed for _ in range(count)]


async def _shared_again(window: ratelimit.RedisWindow, seconds: float = 10) -> None:
    async with asyncio.timeout(seconds):
        while True:
            if window.shared:
                return
            await asyncio.sleep(0.02)


async def test_a_redis_restart_keeps_the_limit_across_the_outage_and_its_end(private_redis):
    """Redis dies (its counts with it) and comes back on the same port: the process keeps
    counting through the outage and gives Redis back what it counted, so across the whole
    minute the user gets exactly the limit, and another process sees the same count."""
    limit, key = 60, "pressline-test:rl:read:1"
    window = ratelimit.RedisWindow(private_redis.url)
    other = ratelimit.RedisWindow(private_redis.url)  # a second web process
    try:
        await window.start()
        await other.start()
        before = await _hits(window, key, 20, limit)
        assert window.shared

        private_redis.kill()
        during = await _hits(window, key, 20, limit)
        assert not window.shared

        private_redis.start()  # empty: everything counted before is gone from Redis
        await _shared_again(window)
        after = await _hits(window, key, 40, limit)
        elsewhere = await other.hit(key, limit)

        client = aioredis.Redis.from_url(private_redis.url)
        stored = await client.zcard(key)
        await client.aclose()
    finally:
        await window.close()
        await other.close()
    assert all(before) and all(during)
    assert sum(before) + sum(during) + sum(after) == limit
    assert after == [True] * 20 + [False] * 20
    assert not elsewhere.allowed  # the other process is refused: the count is shared again
    assert stored == limit


async def test_a_restart_between_two_requests_is_over_in_a_moment(private_redis):
    """Redis restarts between two requests: the pooled connection is dead. The next request
    is decided in-process (Redis would start it from zero), the counts are handed back, and
    Redis is counting again a moment later, not seconds later."""
    key = "pressline-test:rl:read:2"
    window = ratelimit.RedisWindow(private_redis.url)
    try:
        await window.start()
        assert (await window.hit(key, 60)).remaining == 59
        private_redis.kill()
        private_redis.start()
        restarted = time.monotonic()
        second = await window.hit(key, 60)
        await _shared_again(window)
        back_after = time.monotonic() - restarted
        third = await window.hit(key, 60)
        client = aioredis.Redis.from_url(private_redis.url)
        stored = await client.zcard(key)
        await client.aclose()
    finally:
        await window.close()
    assert second.remaining == 58  # the first request still counts
    assert back_after < 0.5
    assert third.remaining == 57  # from Redis, which has the first two again
    assert stored == 3


async def test_a_hung_redis_costs_no_request_more_than_a_few_milliseconds(private_redis):
    """Redis accepts connections but never answers (stopped): every request is decided at
    once in-process; once it answers again the counts are shared, within the limit."""
    limit, key = 60, "pressline-test:rl:read:3"
    window = ratelimit.RedisWindow(private_redis.url, timeout=0.01)  # a 10 ms budget
    try:
        await window.start()
        before = await _hits(window, key, 10, limit)
        private_redis.pause()
        latencies, during = [], []
        try:
            for _ in range(30):
                began = time.perf_counter()
                during.append((await window.hit(key, limit)).allowed)
                latencies.append(time.perf_counter() - began)
                await asyncio.sleep(0.01)
            burst_began = time.perf_counter()
            burst = await asyncio.gather(*(window.hit(key, limit) for _ in range(10)))
            burst_seconds = time.perf_counter() - burst_began
        finally:
            private_redis.resume()
        await _shared_again(window)
        after = await _hits(window, key, 30, limit)
        client = aioredis.Redis.from_url(private_redis.url)
        stored = await client.zcard(key)
        await client.aclose()
    finally:
        await window.close()
    assert max(latencies) < 0.05, f"slowest request took {max(latencies) * 1000:.0f} ms"
    assert burst_seconds < 0.05
    assert all(before) and all(during) and all(d.allowed for d in burst)
    assert sum(before) + sum(during) + len(burst) + sum(after) == limit
    assert stored == limit
