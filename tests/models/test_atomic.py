"""`db.atomic`: a transaction that PostgreSQL ends with a deadlock runs again whole, a few
times at most, at the outermost level only; any other error is raised at once."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest

from models import db
from models.tables import Sku
from tests import factories


@pytest.fixture
async def postgres(backend: str) -> AsyncIterator[None]:
    if not backend.startswith("postgres"):
        pytest.skip("PostgreSQL only: SQLite's write transaction takes its lock up front")
    yield


@pytest.fixture
def no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db, "BACKOFF_SECONDS", (0.0, 0.0))


async def test_two_transactions_deadlocking_both_complete(postgres, caplog):
    ws = await factories.workspace()
    first = await factories.sku(ws, "FIRST", on_hand=0)
    second = await factories.sku(ws, "SECOND", on_hand=0)
    runs: Counter[str] = Counter()
    holds = {"a": asyncio.Event(), "b": asyncio.Event()}

    def work(name: str, other: str, rows: tuple[int, int], delta: int) -> Callable[[], Awaitable]:
        async def run() -> str:
            runs[name] += 1
            await Sku.update({Sku.on_hand: Sku.on_hand + delta}).where(Sku.id == rows[0])
            holds[name].set()
            await holds[other].wait()  # each holds one row, then asks for the other's
            await Sku.update({Sku.on_hand: Sku.on_hand + delta}).where(Sku.id == rows[1])
            return name

        return run

    caplog.set_level(logging.WARNING, logger="pressline.db")
    done = await asyncio.gather(
        db.atomic(work("a", "b", (first.id, second.id), 1)),
        db.atomic(work("b", "a", (second.id, first.id), 10)),
    )

    assert done == ["a", "b"]
    assert sorted(runs.values()) == [1, 2]  # PostgreSQL chose one to fail; it ran again
    levels = await Sku.select(Sku.on_hand).order_by(Sku.id)
    assert levels == [{"on_hand": 11}, {"on_hand": 11}]
    warnings = [r.getMessage() for r in caplog.records if r.name == "pressline.db"]
    assert len(warnings) == 1 and "DeadlockDetectedError (40P01) on run 1 of 5" in warnings[0]


async def test_another_error_is_raised_at_once(backend):
    runs = 0

    async def work() -> None:
        nonlocal runs
        runs += 1
        raise ValueError("not a deadlock")

    with pytest.raises(ValueError, match="not a deadlock"):
        await db.atomic(work)
    assert runs == 1


async def test_a_deadlock_that_keeps_coming_is_raised_after_the_last_run(backend, no_pause):
    runs = 0

    async def work() -> None:
        nonlocal runs
        runs += 1
        try:
            raise asyncpg.exceptions.SerializationError("could not serialize access")
        except asyncpg.PostgresError as exc:
            raise RuntimeError("wrapped") from exc  # its cause is what counts

    with pytest.raises(RuntimeError, match="wrapped"):
        await db.atomic(work)
    assert runs == db.ATTEMPTS


async def test_inside_an_open_transaction_only_the_outermost_level_runs_again(backend, no_pause):
    outer_runs = inner_runs = 0
    ws = await factories.workspace()

    async def inner() -> None:
        nonlocal inner_runs
        inner_runs += 1
        await factories.sku(ws, f"SKU-{inner_runs}")
        if inner_runs == 1:
            raise asyncpg.exceptions.DeadlockDetectedError("deadlock detected")

    async def outer() -> None:
        nonlocal outer_runs
        outer_runs += 1
        await db.atomic(inner)

    await db.atomic(outer)
    assert (outer_runs, inner_runs) == (2, 2)
    # The first run's row was rolled back with it.
    assert await Sku.select(Sku.code) == [{"code": "SKU-2"}]
