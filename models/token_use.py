"""When each API token was last used, for the admin's token list.

Writing on every API request would add a statement to the hot path; instead the web process
notes uses in memory (no SQL) and writes them at most once a minute, in one transaction on a
connection of its own, so no request waits for it (and a thousand tokens used in a minute cost
one connection, not a thousand)."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

from piccolo.engine.base import Engine

from models import clock, db
from models.tables import ApiToken

INTERVAL = 60.0  # seconds between writes
_seen: dict[int, dt.datetime] = {}


def note(token_id: int, at: dt.datetime | None = None) -> None:
    """A request just authenticated with this token (`at`: its time, if already read)."""
    _seen[token_id] = at or clock.now()


async def flush(engine: Engine | None = None) -> int:
    """Write what was noted since the last flush; returns how many tokens were written."""
    if not _seen:
        return 0
    noted = dict(_seen)
    for token_id, at in noted.items():
        if _seen.get(token_id) == at:
            del _seen[token_id]
    engine = engine or db.engine()
    async with engine.transaction():  # one connection for every token's statement
        for token_id, at in noted.items():
            query = ApiToken.update({ApiToken.last_used_at: at}).where(ApiToken.id == token_id)
            await engine.run_querystring(query.querystrings[0], in_pool=False)
    return len(noted)


@contextlib.asynccontextmanager
async def keep_recording(_: Any) -> AsyncIterator[None]:
    """The web process's lifespan: write noted uses every INTERVAL seconds and once at exit."""
    from models.settings import get_settings

    engine = db.engine_from_url(get_settings().database_url)

    async def every_interval() -> None:
        while True:
            await asyncio.sleep(INTERVAL)
            with contextlib.suppress(Exception):  # a missed write is retried next time
                await flush(engine)

    task = asyncio.create_task(every_interval())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        with contextlib.suppress(Exception):
            await flush(engine)
