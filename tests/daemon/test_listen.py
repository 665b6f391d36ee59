"""The LISTEN connection on a real PostgreSQL database: lost again and again, it comes back
after the first-retry delay each time, and NOTIFY wakes the worker once it is back."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from daemon import listen


async def _kill_listen_backend(url: str) -> int:
    """Terminate the listener's backend on the test database only (never another database's
    sessions, never the server): the pids are chosen first, then each is terminated by pid, so
    no query plan can apply the termination to rows the filter would have left out."""
    admin = await asyncpg.connect(url)
    try:
        pids = await admin.fetch(
            "SELECT pid FROM pg_stat_activity WHERE application_name = $1"
            " AND datname = current_database() AND pid <> pg_backend_pid()",
            listen.APPLICATION_NAME,
        )
        for row in pids:
            await admin.execute("SELECT pg_terminate_backend($1)", row["pid"])
    finally:
        await admin.close()
    return len(pids)


@pytest.mark.postgres_only
async def test_each_reconnect_after_a_loss_waits_only_the_first_retry_delay(backend: str):
    wakes = asyncio.Event()
    listener = listen.Listener(backend, on_notify=wakes.set)
    await listener.start()
    try:
        async with asyncio.timeout(10):
            await listener.connected.wait()
        for loss in range(1, 4):
            assert await _kill_listen_backend(backend) == 1
            async with asyncio.timeout(5):
                while True:  # the loss is noticed at once
                    if not listener.connected.is_set():
                        break
                    await asyncio.sleep(0.01)
            lost_at = time.monotonic()
            async with asyncio.timeout(10):
                await listener.connected.wait()
            waited = time.monotonic() - lost_at
            # The first retry waits 1 s; without a reset the third would wait 4 s.
            assert waited < 2.0, f"reconnect {loss} took {waited:.2f} s"

        await asyncio.sleep(0.1)  # the wake-up that follows each reconnect has run
        wakes.clear()
        notifier = await asyncpg.connect(backend)
        try:
            began = time.monotonic()
            await notifier.execute("SELECT pg_notify($1, '')", listen.CHANNEL)
            async with asyncio.timeout(2):
                await wakes.wait()
        finally:
            await notifier.close()
        assert time.monotonic() - began < 1.0
    finally:
        await listener.stop()
