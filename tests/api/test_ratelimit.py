"""Per-user rate limits through the real app (in-process counters), and the sliding window."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator

import httpx
import pytest
from litestar import Litestar

from api import ratelimit
from api.app import create_app
from models import clock
from models.settings import read
from models.tables import ApiToken, User, Workspace
from tests import factories

ME = "/api/v1/me"
LIMIT, REMAINING = "X-RateLimit-Limit", "X-RateLimit-Remaining"
RESET, BUCKET = "X-RateLimit-Reset", "X-RateLimit-Bucket"


async def burst(client: httpx.AsyncClient, n: int, headers: dict[str, str]) -> list[httpx.Response]:
    return [await client.get(ME, headers=headers) for _ in range(n)]


async def test_burst_of_70_gets_gives_60_successes_and_10_refusals(client):
    _, _, auth = await factories.account()
    responses = await burst(client, 70, auth)
    assert [r.status_code for r in responses] == [200] * 60 + [429] * 10
    assert [int(r.headers[REMAINING]) for r in responses[:60]] == list(range(59, -1, -1))
    for refused in responses[60:]:
        assert refused.headers[LIMIT] == "60"
        assert refused.headers[REMAINING] == "0"
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert refused.headers["Retry-After"].isdigit()
        assert set(refused.json()) == {"message", "code", "details"}
        assert (refused.json()["code"], refused.json()["details"]) == ("rate_limited", {})
        assert "Rate limit" in refused.json()["message"]
    assert all("Retry-After" not in r.headers for r in responses[:60])


async def test_concurrent_burst_is_counted_exactly(client):
    _, _, auth = await factories.account()
    responses = await asyncio.gather(*(client.get(ME, headers=auth) for _ in range(70)))
    assert Counter(r.status_code for r in responses) == {200: 60, 429: 10}


async def test_users_are_independent_and_a_users_tokens_share_a_bucket(client):
    ws, u, auth = await factories.account()
    second_token = {"Authorization": f"Bearer {await factories.token(u)}"}
    _, _, other_user = await factories.account()
    assert {r.status_code for r in await burst(client, 30, auth)} == {200}
    assert {r.status_code for r in await burst(client, 30, second_token)} == {200}
    assert (await client.get(ME, headers=auth)).status_code == 429
    assert (await client.get(ME, headers=second_token)).status_code == 429
    # Another user of the same workspace, and a user elsewhere, are untouched.
    colleague = await factories.user(ws)
    colleague_auth = {"Authorization": f"Bearer {await factories.token(colleague)}"}
    for headers in (colleague_auth, other_user):
        response = await client.get(ME, headers=headers)
        assert response.status_code == 200
        assert response.headers[REMAINING] == "59"


async def test_write_bucket_is_separate_from_read_bucket(client):
    _, _, auth = await factories.account()
    assert {r.status_code for r in await burst(client, 60, auth)} == {200}
    assert (await client.get(ME, headers=auth)).status_code == 429
    # An invalid create is still a counted POST; it reaches validation (422), not the limit.
    posts = [await client.post("/api/v1/orders", json={}, headers=auth) for _ in range(21)]
    assert [r.status_code for r in posts] == [422] * 20 + [429]
    assert [r.headers[LIMIT] for r in posts] == ["20"] * 21
    assert [int(r.headers[REMAINING]) for r in posts[:20]] == list(range(19, -1, -1))


async def test_headers_on_handler_errors_too(client):
    _, _, auth = await factories.account()
    not_found = await client.get("/api/v1/customers/999999", headers=auth)
    assert not_found.status_code == 404
    invalid = await client.get("/api/v1/orders", params={"page": "0"}, headers=auth)
    assert invalid.status_code == 422
    listed = await client.get("/api/v1/inventory", headers=auth)
    assert listed.status_code == 200
    assert [r.headers[REMAINING] for r in (not_found, invalid, listed)] == ["59", "58", "57"]
    assert {r.headers[LIMIT] for r in (not_found, invalid, listed)} == {"60"}


async def test_refused_and_unauthenticated_requests_are_not_counted(app, client):
    _, u, auth = await factories.account()
    for _ in range(5):
        response = await client.get(ME, headers={"Authorization": "Bearer plk_wrong"})
        assert response.status_code == 401
        assert LIMIT not in response.headers
    assert (await client.get(ME, headers=auth)).headers[REMAINING] == "59"
    await burst(client, 59, auth)
    for _ in range(5):
        assert (await client.get(ME, headers=auth)).status_code == 429
    # The 429s added nothing: the window still holds exactly the 60 allowed requests.
    key = f"pressline:rl:read:{u.id}"
    app_limiter: ratelimit.RateLimiter = app.state.rate_limiter
    assert isinstance(app_limiter.window, ratelimit.MemoryWindow)
    assert len(app_limiter.window._log[key]) == 60


async def test_check_order_puts_auth_and_plan_before_the_limit(client):
    ws, u, auth = await factories.account()
    await burst(client, 60, auth)
    assert (await client.get(ME, headers=auth)).status_code == 429
    await Workspace.update({Workspace.plan: "standard"}).where(Workspace.id == ws.id)
    plan = await client.get(ME, headers=auth)
    assert plan.status_code == 422
    assert LIMIT not in plan.headers
    await User.update({User.is_active: False}).where(User.id == u.id)
    assert (await client.get(ME, headers=auth)).status_code == 403
    await ApiToken.update({ApiToken.revoked_at: clock.now()}).where(ApiToken.user == u.id)
    assert (await client.get(ME, headers=auth)).status_code == 401


async def test_health_is_not_rate_limited(client):
    for _ in range(70):
        response = await client.get("/health")
        assert response.status_code == 200
        assert LIMIT not in response.headers


@pytest.fixture
async def small_limits_client(
    app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    """A second app built with RATE_LIMIT_READ/WRITE from the environment (same database)."""
    monkeypatch.setenv("RATE_LIMIT_READ", "3")
    monkeypatch.setenv("RATE_LIMIT_WRITE", "2")
    monkeypatch.delenv("REDIS_URL", raising=False)
    small = create_app()
    transport = httpx.ASGITransport(app=small)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


def assert_limit_headers(
    response: httpx.Response, *, limit: int, remaining: int, bucket: str
) -> None:
    """The four rate-limit headers every counted answer carries, a 429's `Retry-After` too."""
    assert response.headers[LIMIT] == str(limit)
    assert response.headers[REMAINING] == str(remaining)
    assert response.headers[BUCKET] == bucket
    assert response.headers[RESET].isdigit()
    assert 1 <= int(response.headers[RESET]) <= 60
    if response.status_code == 429:
        assert response.headers["Retry-After"] == response.headers[RESET]
    else:
        assert "Retry-After" not in response.headers


async def test_read_and_write_answers_carry_the_four_headers(small_limits_client):
    _, _, auth = await factories.account()
    reads = await burst(small_limits_client, 4, auth)
    assert [r.status_code for r in reads] == [200, 200, 200, 429]
    for response, remaining in zip(reads, [2, 1, 0, 0], strict=True):
        assert_limit_headers(response, limit=3, remaining=remaining, bucket="read")
    # The window began with the first read: the budget frees a minute after it, no later.
    assert int(reads[0].headers[RESET]) == 60
    assert int(reads[-1].headers[RESET]) <= int(reads[0].headers[RESET])
    assert reads[-1].json()["message"].endswith(f"retry in {reads[-1].headers[RESET]} s")
    # Writes (an invalid create is still a counted POST) have their own bucket and headers.
    writes = [
        await small_limits_client.post("/api/v1/orders", json={}, headers=auth) for _ in range(3)
    ]
    assert [r.status_code for r in writes] == [422, 422, 429]
    for response, remaining in zip(writes, [1, 0, 0], strict=True):
        assert_limit_headers(response, limit=2, remaining=remaining, bucket="write")


async def test_a_success_carries_the_headers_through_the_real_app(client):
    _, _, auth = await factories.account()
    first, second = await burst(client, 2, auth)
    assert_limit_headers(first, limit=60, remaining=59, bucket="read")
    assert_limit_headers(second, limit=60, remaining=58, bucket="read")
    created = await client.post("/api/v1/orders", json={}, headers=auth)
    assert_limit_headers(created, limit=20, remaining=19, bucket="write")


async def test_the_openapi_schema_documents_the_four_headers(client):
    schema = (await client.get("/schema/openapi.json")).json()
    operations = [
        (path, method, operation)
        for path, item in schema["paths"].items()
        if path.startswith("/api/v1/")
        for method, operation in item.items()
        if method in {"get", "post", "patch"}
    ]
    assert {method for _, method, _ in operations} == {"get", "post", "patch"}
    for path, method, operation in operations:
        for status, response in operation["responses"].items():
            if not (status.startswith("2") or status == "429"):
                continue
            headers = response["headers"]
            for name in (LIMIT, REMAINING, RESET, BUCKET):
                assert headers[name]["required"] is True, (method, path, status, name)
            assert headers[RESET]["schema"]["type"] == "integer"
            assert headers[BUCKET]["schema"]["enum"] == ["read", "write"]


async def test_limits_come_from_the_environment(small_limits_client):
    _, _, auth = await factories.account()
    reads = await burst(small_limits_client, 4, auth)
    assert [r.status_code for r in reads] == [200, 200, 200, 429]
    assert {r.headers[LIMIT] for r in reads} == {"3"}
    writes = [
        await small_limits_client.post("/api/v1/orders", json={}, headers=auth) for _ in range(3)
    ]
    assert [r.status_code for r in writes] == [422, 422, 429]


# --- the window itself, with a controllable clock --------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_window_slides_instead_of_resetting_at_a_minute_boundary():
    clock_ = FakeClock()
    window = ratelimit.MemoryWindow(clock_)
    clock_.now = 1059.9  # the end of a fixed minute: a fixed window would reset at 1060
    assert all([(await window.hit("k", 60)).allowed for _ in range(60)])
    clock_.now = 1060.1
    refused = await window.hit("k", 60)
    assert not refused.allowed
    assert refused.retry_after == 60  # ceil(1059.9 + 60 - 1060.1) = ceil(59.8)
    clock_.now = 1119.8
    assert not (await window.hit("k", 60)).allowed
    clock_.now = 1119.9
    assert (await window.hit("k", 60)).allowed


async def test_retry_after_counts_down_to_the_oldest_request_leaving():
    clock_ = FakeClock()
    window = ratelimit.MemoryWindow(clock_)
    for offset in range(3):
        clock_.now = 1000.0 + offset * 10  # requests at 1000, 1010, 1020
        assert (await window.hit("k", 3)).allowed
    clock_.now = 1030.5
    assert (await window.hit("k", 3)).retry_after == 30  # ceil(1060 - 1030.5)
    clock_.now = 1059.99
    assert (await window.hit("k", 3)).retry_after == 1  # never 0
    clock_.now = 1060.0
    decision = await window.hit("k", 3)
    assert decision.allowed and decision.remaining == 0
    # Refusals were not counted: the next slot frees when the 1010 request leaves.
    clock_.now = 1069.0
    assert (await window.hit("k", 3)).retry_after == 1


async def test_reset_counts_down_to_the_oldest_counted_request_leaving():
    clock_ = FakeClock()
    window = ratelimit.MemoryWindow(clock_)
    first = await window.hit("k", 3)
    assert (first.reset, first.retry_after) == (60, 0)  # only itself in the window
    clock_.now = 1010.0
    assert (await window.hit("k", 3)).reset == 50  # the 1000 request leaves at 1060
    clock_.now = 1020.5
    third = await window.hit("k", 3)
    assert (third.allowed, third.remaining, third.reset) == (True, 0, 40)  # ceil(39.5)
    clock_.now = 1030.0
    refused = await window.hit("k", 3)
    assert (refused.allowed, refused.remaining) == (False, 0)
    assert refused.reset == refused.retry_after == 30


async def test_the_limiter_names_the_bucket_in_the_headers():
    limiter = ratelimit.RateLimiter(ratelimit.MemoryWindow(), read=2, write=1, prefix="t")
    read = await limiter.hit("GET", 7)
    write = await limiter.hit("PATCH", 7)
    refused = await limiter.hit("POST", 7)
    assert read.headers() == {LIMIT: "2", REMAINING: "1", RESET: "60", BUCKET: "read"}
    assert write.headers() == {LIMIT: "1", REMAINING: "0", RESET: "60", BUCKET: "write"}
    assert refused.headers() == {
        LIMIT: "1",
        REMAINING: "0",
        RESET: refused.headers()["Retry-After"],
        BUCKET: "write",
        "Retry-After": str(refused.retry_after),
    }
    raw = dict(read.raw_headers())
    assert raw[b"x-ratelimit-bucket"] == b"read" and raw[b"x-ratelimit-reset"] == b"60"


async def test_idle_keys_are_swept():
    clock_ = FakeClock()
    window = ratelimit.MemoryWindow(clock_)
    await window.hit("idle", 5)
    clock_.now += 61
    for _ in range(window.SWEEP_EVERY):
        await window.hit("busy", 10**6)
    assert "idle" not in window._log


async def test_redis_outage_falls_back_to_in_process_counts(caplog):
    window = ratelimit.RedisWindow("redis://127.0.0.1:1/0")  # nothing listens on port 1
    try:
        with caplog.at_level(logging.WARNING, logger="pressline.ratelimit"):
            decisions = [await window.hit("k", 2) for _ in range(3)]
    finally:
        await window.close()
    assert [d.allowed for d in decisions] == [True, True, False]
    assert decisions[2].retry_after >= 1
    assert "Redis unavailable" in caplog.text


async def test_a_redis_outage_is_logged_once_and_counted_in_metrics(caplog):
    """Each time a process stops counting in Redis it says so once, and /metrics counts it."""
    from prometheus_client import REGISTRY

    def fallbacks() -> float:
        return REGISTRY.get_sample_value("pressline_rate_limit_redis_fallbacks_total") or 0.0

    before = fallbacks()
    window = ratelimit.RedisWindow("redis://127.0.0.1:1/0", timeout=0.05)
    try:
        with caplog.at_level(logging.WARNING, logger="pressline.ratelimit"):
            decisions = [await window.hit("k", 10) for _ in range(5)]
    finally:
        await window.close()
    assert all(d.allowed for d in decisions)  # decided in-process, never refused for it
    assert caplog.text.count("Redis unavailable") == 1
    assert fallbacks() == before + 1


def test_the_redis_wait_comes_from_the_settings():
    settings = read({"REDIS_URL": "redis://127.0.0.1:1/0", "RATE_LIMIT_REDIS_TIMEOUT": "0.25"})
    limiter = ratelimit.RateLimiter.from_settings(settings)
    assert isinstance(limiter.window, ratelimit.RedisWindow)
    assert limiter.window.budget == 0.25
