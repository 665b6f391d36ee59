"""Database loss under requests, on PostgreSQL: the pool's backends are terminated (only those
of this run's own database, chosen by pid before any is terminated) or the database refuses
connections for a moment. A read that lost its connection is retried on a fresh one; what
cannot be answered is a 503 with `Retry-After: 1` and the error body, never a 500."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import asyncpg
import httpx
import pytest
from piccolo.engine.postgres import PostgresEngine

from models import db
from tests.api import order_helpers
from tests.conftest import ADMIN_URL


@pytest.fixture
async def postgres(backend: str) -> AsyncIterator[str]:
    if not backend.startswith("postgres"):
        pytest.skip("PostgreSQL only: terminates the database's backends")
    yield backend
    # The table cleanup after each test writes (no retry): start it on fresh connections.
    engine = db.engine()
    if isinstance(engine, PostgresEngine) and engine.pool is not None:
        await engine.pool.expire_connections()


async def _terminate_others(url: str, only_waiting: bool = False) -> int:
    """Terminate every client backend of the test database but this one (the app's pool).
    The pids are chosen first and terminated one by one, so nothing outside the filter can
    be touched whatever the query plan."""
    admin = await asyncpg.connect(url)
    try:
        rows = await admin.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
            + (" AND wait_event_type = 'Lock'" if only_waiting else "")
        )
        for row in rows:
            await admin.execute("SELECT pg_terminate_backend($1)", row["pid"])
    finally:
        await admin.close()
    return len(rows)


@contextlib.asynccontextmanager
async def _database_refusing(url: str) -> AsyncIterator[None]:
    """The test database accepts no connections, and has none, until the block ends."""
    name = urlsplit(url).path.strip("/")
    admin = await asyncpg.connect(ADMIN_URL)
    try:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        try:
            rows = await admin.fetch(
                "SELECT pid FROM pg_stat_activity WHERE datname = $1"
                " AND backend_type = 'client backend'",
                name,
            )
            for row in rows:
                await admin.execute("SELECT pg_terminate_backend($1)", row["pid"])
            yield
        finally:
            await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
    finally:
        await admin.close()


def _assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["Retry-After"] == "1"
    body = response.json()
    assert set(body) == {"message", "code", "details"} and body["message"]
    assert (body["code"], body["details"]) == ("service_unavailable", {})


async def test_a_read_whose_connection_is_killed_mid_statement_is_retried(client, postgres):
    shop = await order_helpers.shop()
    created = await order_helpers.create(
        client, shop.auth, order_helpers.order_body(shop.customer.id)
    )
    assert created.status_code == 201
    blocker = await asyncpg.connect(postgres)
    try:
        # The list's statement waits on a lock, so it is in flight when its backend goes.
        transaction = blocker.transaction()
        await transaction.start()
        await blocker.execute("LOCK TABLE orders IN ACCESS EXCLUSIVE MODE")
        request = asyncio.create_task(client.get("/api/v1/orders", headers=shop.auth))
        async with asyncio.timeout(10):
            while True:
                waiting = await blocker.fetchval(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    " AND wait_event_type = 'Lock'"
                )
                if waiting:
                    break
                await asyncio.sleep(0.02)
        assert await _terminate_others(postgres, only_waiting=True) == 1
        await transaction.rollback()
        response = await request
    finally:
        await blocker.close()
    assert response.status_code == 200, response.text
    assert [row["id"] for row in response.json()["data"]] == [created.json()["id"]]


async def test_reads_after_the_pool_lost_every_backend_succeed(client, postgres):
    shop = await order_helpers.shop()
    assert (await client.get("/api/v1/orders", headers=shop.auth)).status_code == 200
    assert await _terminate_others(postgres) >= 1
    for path in ("/api/v1/orders", "/api/v1/me", "/api/v1/customers"):
        response = await client.get(path, headers=shop.auth)
        assert response.status_code == 200, (path, response.text)


async def test_an_unreachable_database_answers_503_with_retry_after(client, postgres):
    shop = await order_helpers.shop()
    body = order_helpers.order_body(shop.customer.id)
    async with _database_refusing(postgres):
        read = await client.get("/api/v1/orders", headers=shop.auth)
        write = await order_helpers.create(client, shop.auth, body)
    _assert_unavailable(read)
    _assert_unavailable(write)
    # Back again: the same requests succeed on fresh connections.
    assert (await client.get("/api/v1/orders", headers=shop.auth)).status_code == 200
    assert (await order_helpers.create(client, shop.auth, body)).status_code == 201


@pytest.mark.slow
async def test_backends_killed_under_load_never_give_a_500(client, postgres):
    """400 requests from 8 concurrent callers (one POST in ten) while every backend of the
    pool is terminated five times: every answer is a success, a 429 or a 503."""
    shop = await order_helpers.shop()
    callers = await order_helpers.more_callers(shop.ws, 8)
    body = order_helpers.order_body(shop.customer.id)
    statuses: Counter[int] = Counter()
    done = asyncio.Event()
    rng = random.Random(7)

    async def caller(auth: dict[str, str]) -> None:
        for n in range(50):
            # Each request in a task of its own, as the server runs it.
            if n % 10 == 9:
                send = order_helpers.create(client, auth, body)
            else:
                path = rng.choice(("/api/v1/orders", "/api/v1/me", "/api/v1/customers"))
                send = client.get(path, headers=auth)
            response = await asyncio.create_task(send)
            statuses[response.status_code] += 1
            if response.status_code >= 500:
                _assert_unavailable(response)

    async def killer() -> int:
        kills = 0
        while not done.is_set() and kills < 5:
            await asyncio.sleep(0.15)
            kills += await _terminate_others(postgres) > 0
        return kills

    killing = asyncio.create_task(killer())
    try:
        await asyncio.gather(*(caller(auth) for auth in callers))
    finally:
        done.set()
        kills = await killing
    assert sum(statuses.values()) == 400
    assert kills >= 3
    assert set(statuses) <= {200, 201, 429, 503}, statuses
    assert statuses[200] + statuses[201] > 300, statuses
