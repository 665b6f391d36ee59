"""Rate limits shared through Redis: two uvicorn processes count one user's requests together.

Redis is taken from REDIS_URL_FOR_TESTS (default: the local server). Without it the tests
are skipped, unless PRESSLINE_REQUIRE_POSTGRES=1 (CI), where a missing service is a failure.
Every run uses its own key prefix and deletes its keys afterwards.
"""

from __future__ import annotations

import asyncio
import os
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
from redis.exceptions import RedisError

from api import ratelimit
from tests import factories

REDIS_URL = os.environ.get("REDIS_URL_FOR_TESTS", "redis://127.0.0.1:6379/0")
REQUIRE_SERVICES = os.environ.get("PRESSLINE_REQUIRE_POSTGRES", "") == "1"
ROOT = Path(__file__).resolve().parents[2]

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
    first, second = ratelimit.RedisWindow(REDIS_URL), ratelimit.RedisWindow(REDIS_URL)
    key = f"{redis_prefix}:read:1"
    try:
        decisions = await asyncio.gather(
            *((first if n % 2 else second).hit(key, 60) for n in range(70))
        )
        client = aioredis.Redis.from_url(REDIS_URL)
        stored = await client.zcard(key)
        ttl = await client.pttl(key)
        await client.aclose()
    finally:
        await first.close()
        await second.close()
    assert Counter(d.allowed for d in decisions) == {True: 60, False: 10}
    assert sorted(d.remaining for d in decisions if d.allowed) == list(range(60))
    assert all(1 <= d.retry_after <= 60 for d in decisions if not d.allowed)
    assert stored == 60  # refusals are not recorded
    assert 0 < ttl <= 60_000  # the set expires once the window is over


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
    assert Counter(r.status_code for r in responses) == {200: 60, 429: 10}
    assert all(counts[200] > 0 for counts in by_process)  # both processes served requests
    for response in responses:
        assert response.headers["X-RateLimit-Limit"] == "60"
        if response.status_code == 429:
            assert 1 <= int(response.headers["Retry-After"]) <= 60
    assert fresh.status_code == 200
    assert fresh.headers["X-RateLimit-Remaining"] == "59"
