"""`GET /health`: no auth, no rate limit, 200 with the database up and 503 without it."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Iterator

import pytest
from piccolo.engine.postgres import PostgresEngine
from piccolo.engine.sqlite import SQLiteEngine

from api.controllers import health
from models import db


async def test_health_answers_ok_without_a_token(client):
    response = await client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}
    assert response.headers["cache-control"] == "no-store"
    assert "x-ratelimit-limit" not in response.headers
    # A bad token is not even looked at.
    with_junk = await client.get("/health", headers={"Authorization": "Bearer nonsense"})
    assert with_junk.status_code == 200


@pytest.fixture
def unreachable_database(tmp_path) -> Iterator[None]:
    """Point the tables at a database file that cannot be opened, then restore the real one."""
    real = db.engine()
    db.bind(SQLiteEngine(path=str(tmp_path / "missing-dir" / "db.sqlite3")))
    try:
        yield
    finally:
        db.bind(real)


async def test_health_answers_503_when_the_database_is_unreachable(client, unreachable_database):
    response = await client.get("/health")
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "database": "unreachable",
        "message": "Database unreachable",
    }


@pytest.fixture
async def hanging_database(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """A PostgreSQL address that accepts connections and never answers."""
    accepted: list[asyncio.StreamWriter] = []

    async def accept(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    real = db.engine()
    monkeypatch.setattr(health, "DATABASE_TIMEOUT", 0.5)
    with warnings.catch_warnings():  # the engine's own version probe times out (1 s) too
        warnings.simplefilter("ignore")
        hanging = PostgresEngine(config={"dsn": f"postgres://x@127.0.0.1:{port}/x", "timeout": 1})
    hanging.config["timeout"] = 30  # so only the health check's own timeout can end the wait
    db.bind(hanging)
    try:
        yield
    finally:
        db.bind(real)
        for writer in accepted:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_health_gives_up_on_a_hanging_database(client, hanging_database):
    loop = asyncio.get_running_loop()
    started = loop.time()
    response = await client.get("/health")
    assert response.status_code == 503
    assert loop.time() - started < 5


async def test_health_is_documented_as_public(client):
    schema = (await client.get("/schema/openapi.json")).json()
    operation = schema["paths"]["/health"]["get"]
    assert operation["security"] == []
    assert set(operation["responses"]) == {"200", "503"}
    assert schema["security"] == [{"BearerToken": []}]  # everything else needs the token
