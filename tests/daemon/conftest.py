"""Fixtures for the daemon: a live receiver, a fake clock and dispatchers built on them."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from daemon.config import DaemonConfig
from daemon.dispatch import Dispatcher, open_session
from daemon.store import Store, open_store
from tests.daemon.support import FakeClock, Receiver, start_receiver


@pytest.fixture(autouse=True)
def _postgres_only(request: pytest.FixtureRequest) -> None:
    """Tests marked `postgres_only` run on the PostgreSQL backend and skip on SQLite."""
    marker = request.node.get_closest_marker("postgres_only")
    if marker is None:
        return
    if not str(request.getfixturevalue("backend")).startswith("postgres"):
        reason = marker.kwargs.get("reason", "LISTEN/NOTIFY, several worker processes")
        pytest.skip(f"PostgreSQL only ({reason})")


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    rec = Receiver()
    runner = await start_receiver(rec)
    yield rec
    await runner.cleanup()


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()


def config(**overrides: Any) -> DaemonConfig:
    values: dict[str, Any] = {
        "allow_private_targets": True,
        "timeout": 2.0,
        "lease": 30.0,
        "poll_interval": 0.1,
        "backoff": (60, 300, 900, 3600, 14400),
        "max_attempts": 5,
        "deactivate_after": 20,
        "concurrency": 4,
    }
    values.update(overrides)
    return dataclasses.replace(DaemonConfig.from_settings(), **values)


@pytest.fixture
async def make_dispatcher(
    backend: str, fake_clock: FakeClock
) -> AsyncIterator[Callable[..., Dispatcher]]:
    """`make_dispatcher(**config)`: a Dispatcher on the fake clock, its session closed after."""
    made: list[Dispatcher] = []

    def make(worker: str = "test-worker", **overrides: Any) -> Dispatcher:
        cfg = config(**overrides)
        dispatcher = Dispatcher(cfg, open_session(cfg), worker=worker, now=fake_clock)
        made.append(dispatcher)
        return dispatcher

    yield make
    for dispatcher in made:
        await dispatcher.close()


@pytest.fixture
async def make_store(backend: str) -> AsyncIterator[Callable[[], Store]]:
    """`make_store()`: the daemon's database access, as one worker process holds it."""
    made: list[Store] = []

    def make() -> Store:
        store = open_store()
        made.append(store)
        return store

    yield make
    for store in made:
        await store.close()
