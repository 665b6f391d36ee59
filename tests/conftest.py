"""Test fixtures: every database test runs once on SQLite and once on PostgreSQL.

PostgreSQL is used when reachable at PRESSLINE_TEST_POSTGRES_URL (default: the local
server, database `postgres`); each session creates its own throwaway database, so parallel
runs never collide. Without a server those tests are skipped, and the skip says why; with
PRESSLINE_REQUIRE_POSTGRES=1 (CI) an unreachable server fails the run instead.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from litestar import Litestar
from piccolo.engine.base import Engine

from models import db
from models.statements import watch

pytest_plugins = ["tests.cli_runner"]  # the `pressline` fixture

os.environ.setdefault("WEBHOOK_ALLOW_PRIVATE_TARGETS", "1")
# In-process rate limits, reset before each test; Redis is tested in tests/e2e with its own keys.
os.environ.pop("REDIS_URL", None)

ADMIN_URL = os.environ.get(
    "PRESSLINE_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"
)
REQUIRE_POSTGRES = os.environ.get("PRESSLINE_REQUIRE_POSTGRES", "") == "1"
BACKENDS = ["sqlite", "postgres"]


async def _postgres_reachable() -> str | None:
    try:
        conn = await asyncpg.connect(ADMIN_URL, timeout=3)
    except (OSError, asyncpg.PostgresError) as exc:
        return f"{type(exc).__name__}: {exc}"
    await conn.close()
    return None


async def require_postgres() -> None:
    """Skip the test when PostgreSQL is not reachable, saying why; with
    PRESSLINE_REQUIRE_POSTGRES=1 (CI) fail it instead."""
    problem = await _postgres_reachable()
    if problem is not None:
        message = f"PostgreSQL not reachable at {ADMIN_URL} ({problem})"
        if REQUIRE_POSTGRES:
            pytest.fail(message + " and PRESSLINE_REQUIRE_POSTGRES=1")
        pytest.skip(message)


def _database_url(admin_url: str, name: str) -> str:
    return admin_url.rsplit("/", 1)[0] + "/" + name


async def _admin(sql: str) -> None:
    conn = await asyncpg.connect(ADMIN_URL)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture(scope="session", params=BACKENDS)
async def backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    """Bind every table to a fresh, migrated database of one kind; yields its URL."""
    kind: str = request.param
    if kind == "sqlite":
        path: Path = tmp_path_factory.mktemp("db") / "pressline.sqlite3"
        url = f"sqlite:///{path}"
        engine: Engine = db.engine_from_url(url)
        db.bind(engine)
        await db.migrate()
        yield url
        return
    await require_postgres()
    name = f"pressline_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    await _admin(f'CREATE DATABASE "{name}"')
    url = _database_url(ADMIN_URL, name)
    engine = db.engine_from_url(url)
    db.bind(engine)
    try:
        await db.migrate()
        yield url
    finally:
        await db.stop(engine)
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
async def app(backend: str) -> AsyncIterator[Litestar]:
    """The real application, its lifespan (pool) running on the test loop."""
    os.environ["DATABASE_URL"] = backend
    from api.app import create_app

    application = create_app()
    started, stop = asyncio.Event(), asyncio.Event()

    async def run_lifespan() -> None:
        # Entered and left in one task, as a server would (anyio's scopes require it).
        async with application.lifespan():
            started.set()
            await stop.wait()

    task = asyncio.create_task(run_lifespan())
    await started.wait()
    yield application
    stop.set()
    await task


@pytest.fixture
async def client(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


@pytest.fixture(autouse=True)
async def _clean_tables(request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """Empty every table after each database test, so tests never see each other's rows."""
    yield
    if "backend" in request.fixturenames:
        await empty_tables()


async def empty_tables() -> None:
    """Every table of the bound database emptied (a module sharing its rows between its tests
    overrides `_clean_tables` and calls this once, at its end)."""
    tables = [table._meta.tablename for table in db.all_tables()]
    if db.is_postgres():
        quoted = ", ".join(f'"{name}"' for name in tables)
        await db.engine().run_ddl(f"TRUNCATE {quoted} RESTART IDENTITY CASCADE")
    else:
        for name in reversed(tables):
            await db.engine().run_ddl(f'DELETE FROM "{name}"')


@pytest.fixture(autouse=True)
def _fresh_rate_limits() -> None:
    """Start every test with empty in-process rate-limit buckets (user ids repeat across tests)."""
    from api.ratelimit import reset_local_counters

    reset_local_counters()


@pytest.fixture
async def statements(backend: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[list[str]]:
    """Every SQL statement the bound engine sends while the test runs: the hot paths' own SQL
    through the listener hook of models/statements.py, and Piccolo's at the engine, whose class's
    `run_querystring` is wrapped by a spy that records and calls the real method (engines
    define `__slots__`, so the instance attribute cannot be replaced)."""
    engine = db.engine()
    engine_class = type(engine)
    real = engine_class.run_querystring
    seen: list[str] = []

    async def spy(self: Any, querystring: Any, *args: Any, **kwargs: Any) -> Any:
        if self is engine:
            seen.append(str(querystring))
        return await real(self, querystring, *args, **kwargs)

    monkeypatch.setattr(engine_class, "run_querystring", spy)
    with watch(lambda sql, _: seen.append(sql)):
        yield seen
