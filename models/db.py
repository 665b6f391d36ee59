"""Engine selection from DATABASE_URL, and the one place that knows which engine is in use."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import sqlite3
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from piccolo.engine.postgres import PostgresEngine
from piccolo.engine.sqlite import SQLiteEngine, TransactionType

if TYPE_CHECKING:
    from piccolo.engine.base import Engine
    from piccolo.table import Table


def _sqlite_timestamp(value: dt.datetime) -> str:
    # Piccolo stores str(datetime), which drops ".000000" when microseconds are zero, so
    # stored values stop sorting as text. A fixed-width UTC form keeps ORDER BY and
    # range filters (updated_since) correct on SQLite.
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC)
    return value.isoformat(sep=" ", timespec="microseconds")


sqlite3.register_adapter(dt.datetime, _sqlite_timestamp)


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgres://", "postgresql://"))


def sqlite_path(url: str) -> str:
    """`sqlite:///relative.db` → `relative.db`; `sqlite:////abs/path.db` → `/abs/path.db`."""
    if not url.startswith("sqlite:///"):
        raise ValueError(f"Unsupported DATABASE_URL: {url!r} (expected sqlite:/// or postgres://)")
    return url[len("sqlite:///") :]


def engine_from_url(url: str) -> Engine:
    if is_postgres_url(url):
        parts = urlsplit(url)
        if not parts.path.strip("/"):
            raise ValueError("DATABASE_URL for PostgreSQL must name a database")
        return PostgresEngine(config={"dsn": url}, log_queries=False)
    # A generous busy timeout: concurrent writers wait for the lock instead of failing.
    return SQLiteEngine(path=sqlite_path(url), timeout=30)


def engine() -> Engine:
    """The engine every table is bound to (set by piccolo_conf, or by `bind` in tests)."""
    from models.tables import Workspace

    return Workspace._meta.db


def is_postgres() -> bool:
    return isinstance(engine(), PostgresEngine)


def transaction() -> Any:
    """A write transaction; on SQLite it takes the write lock up front (no upgrade deadlocks)."""
    db = engine()
    if isinstance(db, SQLiteEngine):
        return db.transaction(transaction_type=TransactionType.immediate)
    return db.transaction()


def all_tables() -> list[type[Table]]:
    from models.piccolo_app import APP_CONFIG

    return list(APP_CONFIG.table_classes)


def bind(db: Engine) -> None:
    """Point every table, and Piccolo's migration runner, at `db` (tests switch engines)."""
    from piccolo.apps.migrations.tables import Migration

    import piccolo_conf

    piccolo_conf.DB = db
    tables: list[type[Table]] = [*all_tables(), Migration]
    for table in tables:
        table._meta.db = db


async def migrate() -> None:
    """Apply every pending migration (the `release` step)."""
    from piccolo.apps.migrations.commands.forwards import run_forwards

    # Piccolo narrates every run on stdout (with counts that read oddly on a new database);
    # keep it only to explain a failure, so stdout stays the command's own answer.
    progress = io.StringIO()
    with contextlib.redirect_stdout(progress):
        result = await run_forwards(app_name="models")
    if not result.success:
        sys.stderr.write(progress.getvalue())
        raise RuntimeError(f"migrations failed: {result.message}")


async def _keep_session(_: object) -> None:
    """The pool's release hook, in place of asyncpg's default reset query (advisory unlock,
    CLOSE ALL, UNLISTEN, RESET ALL: a round trip on every release, and Piccolo releases after
    every statement). Nothing here changes session state on pooled connections (no SET, LISTEN,
    advisory locks or held cursors; the daemon listens on a connection of its own), and
    asyncpg still rolls back a transaction left open before calling this."""


async def start(db: Engine | None = None) -> None:
    """Open the pool (PostgreSQL) or set WAL mode (SQLite); called from app/daemon lifespans."""
    db = db or engine()
    if isinstance(db, PostgresEngine):
        await db.start_connection_pool(min_size=1, max_size=10, reset=_keep_session)
    else:
        await db.run_ddl("PRAGMA journal_mode=WAL")


async def stop(db: Engine | None = None) -> None:
    from models import statements

    statements.close()  # the SQLite read connection, reopened on the next read
    db = db or engine()
    if isinstance(db, PostgresEngine) and db.pool is not None:
        await db.close_connection_pool()
