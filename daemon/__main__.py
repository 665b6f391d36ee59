"""`python -m daemon`: the Procfile's `worker`, delivering the webhook outbox until stopped."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable

import asyncpg

from daemon.config import DaemonConfig
from daemon.scheduler import Daemon
from models import db, logs
from models.settings import get_settings
from models.urls import masked_url

log = logging.getLogger("daemon")


async def run(config: DaemonConfig) -> int:
    db.bind(db.engine_from_url(config.database_url))
    try:
        await db.start()
    except (OSError, asyncpg.PostgresError) as exc:
        log.error(
            "cannot open the database",
            extra=logs.fields(database=masked_url(config.database_url), error=str(exc)),
        )
        return 1
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    daemon = Daemon(config)
    try:
        await daemon.start()
        await stop.wait()
        log.info(
            "stopping: finishing deliveries in flight",
            extra=logs.fields(grace_seconds=config.shutdown_grace),
        )
        await daemon.stop()
    finally:
        await db.stop()
    return 0


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop when installed (it is with uvicorn[standard]): HTTP and driver calls cost less."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def main() -> int:
    # An invalid setting stops here (SettingsError: one line on stderr, exit status 1).
    settings = get_settings()
    logs.configure(settings.log_level)
    config = DaemonConfig.from_settings(settings)
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        return runner.run(run(config))


if __name__ == "__main__":
    sys.exit(main())
