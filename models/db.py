"""Engine selection from DATABASE_URL, and the one place that knows which engine is in use."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import io
import logging
import random
import re
import sqlite3
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast
from urllib.parse import urlsplit

import asyncpg
from piccolo.engine.postgres import PostgresEngine, PostgresTransaction
from piccolo.engine.sqlite import SQLiteEngine, SQLiteTransaction, TransactionType
from piccolo.querystring import QueryString

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

log = logging.getLogger("pressline.db")
POOL_CLOSE_SECONDS = 10.0
T = TypeVar("T")


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgres://", "postgresql://"))


def sqlite_path(url: str) -> str:
    """`sqlite:///relative.db` → `relative.db`; `sqlite:////abs/path.db` → `/abs/path.db`."""
    if not url.startswith("sqlite:///"):
        raise ValueError(f"Unsupported DATABASE_URL: {url!r} (expected sqlite:/// or postgres://)")
    return url[len("sqlite:///") :]


class DatabaseUnreachable(ConnectionError):
    """A new connection to the database could not be made, whatever the server said (down,
    refusing connections to this database, out of connection slots, starting up)."""


# The server ended the session or will not take one: the statement did not run to its
# answer, and the same request may well succeed a moment later on a fresh connection.
_UNAVAILABLE_SQLSTATES = frozenset(
    {"57P01", "57P02", "57P03", "53300"}  # admin/crash shutdown, starting up, no slots
)
# asyncpg's words for a closed connection; a pooled connection that closes while acquired is
# also handed back to the pool at once, so its next statement reads "released back".
_CLOSED_MESSAGES = (
    "connection is closed",
    "connection was closed",
    "released back to the pool",
    "pool is closing",
)
_ROW_LOCK = re.compile(r"\bFOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)\b", re.IGNORECASE)
_SQLITE_UNAVAILABLE = ("unable to open database file", "database is locked")


def unavailable(exc: BaseException) -> bool:
    """Whether `exc` means the database was out of reach (connection lost, refused, or the
    server shutting down), as opposed to a fault of the statement or the data: the caller
    answers 503 and may try again, rather than 500.

    asyncpg: every connection-class error (SQLSTATE 08…, including "connection was closed in
    the middle of operation"), admin or crash shutdown, "cannot connect now", too many
    connections, and InterfaceError on a closed (or thereby released) connection or a closing
    pool; OSError from the socket
    (reset, refused, timed out). SQLite: the file cannot be opened, or stayed locked past the
    busy timeout."""
    if isinstance(exc, OSError | asyncpg.PostgresConnectionError):
        return True
    if isinstance(exc, asyncpg.PostgresError):
        return exc.sqlstate in _UNAVAILABLE_SQLSTATES
    if isinstance(exc, asyncpg.InterfaceError):
        return any(text in str(exc) for text in _CLOSED_MESSAGES)
    if isinstance(exc, asyncpg.exceptions.InternalClientError):
        # State 2 is "consuming an error": the server sent an error to an idle connection,
        # which only its FATAL at the end of the session does; the EOF is not read yet.
        return "another operation (2) is in progress" in str(exc)
    if isinstance(exc, sqlite3.OperationalError):
        return any(text in str(exc) for text in _SQLITE_UNAVAILABLE)
    return False


async def _connect(*args: Any, **kwargs: Any) -> asyncpg.Connection:
    """The pool's way to open a connection: any refusal becomes `DatabaseUnreachable`, so a
    database that refuses connections for a reason of its own (not accepting connections,
    renamed, permissions revoked) is a 503 like a server that is down."""
    try:
        return await asyncpg.connect(*args, **kwargs)
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
        raise DatabaseUnreachable(f"cannot connect to the database: {exc}") from exc


class _Transaction(PostgresTransaction):
    """Piccolo's transaction, leaving cleanly when its connection is gone: Piccolo's own exit
    stops at the failed rollback, so the pooled connection would not be given back and the
    transaction would stay current for the rest of the task."""

    async def __aexit__(self, exception_type: Any, exception: Any, traceback: Any) -> bool:
        try:
            return await super().__aexit__(exception_type, exception, traceback)
        except Exception:
            if self._parent is None and self.engine.current_transaction.get() is self:
                if self.engine.pool is not None:
                    with contextlib.suppress(Exception):
                        await self.engine.pool.release(self.connection)
                self.engine.current_transaction.reset(self.context)
            raise


class Postgres(PostgresEngine):
    """Piccolo's PostgreSQL engine, with a read that lost its connection retried once.

    Outside a transaction each Piccolo query takes a pooled connection of its own; a SELECT
    whose connection was lost (the server restarted, a backend was terminated) never
    returned rows, so it runs again once on a fresh connection. Other statements are not
    retried: the server may have committed them before the connection went."""

    def transaction(self, allow_nested: bool = True) -> _Transaction:
        return _Transaction(engine=self, allow_nested=allow_nested)

    async def _run_in_pool(self, query: str, args: Any = None) -> Any:
        try:
            return await super()._run_in_pool(query, args)
        except Exception as exc:
            if not (unavailable(exc) and is_plain_read(query) and self.pool is not None):
                raise
        await self.pool.expire_connections()  # the others may be dead too
        return await super()._run_in_pool(query, args)


def is_plain_read(text: str) -> bool:
    """A SELECT without a row lock: safe to run again when its connection was lost before it
    answered (Piccolo's queries here, the statement runner's in models/statements.py)."""
    return text.lstrip()[:6].upper() == "SELECT" and _ROW_LOCK.search(text) is None


def engine_from_url(url: str) -> Engine:
    if is_postgres_url(url):
        parts = urlsplit(url)
        if not parts.path.strip("/"):
            raise ValueError("DATABASE_URL for PostgreSQL must name a database")
        return Postgres(config={"dsn": url}, log_queries=False)
    # A generous busy timeout: concurrent writers wait for the lock instead of failing.
    return SQLiteEngine(path=sqlite_path(url), timeout=30)


def engine() -> Engine:
    """The engine every table is bound to (set by piccolo_conf, or by `bind` in tests)."""
    from models.tables import Workspace

    return Workspace._meta.db


def is_postgres() -> bool:
    return isinstance(engine(), PostgresEngine)


class _SQLiteWrite(SQLiteTransaction):
    """Piccolo's SQLite transaction, running `after_commit` callbacks once it has committed."""

    __slots__ = ("committed_callbacks",)

    def __init__(self, engine: SQLiteEngine) -> None:
        super().__init__(engine=engine, transaction_type=TransactionType.immediate)
        self.committed_callbacks: list[Callable[[], None]] = []

    async def __aexit__(self, exception_type: Any, exception: Any, traceback: Any) -> bool:
        outermost = self._parent is None
        result = await super().__aexit__(exception_type, exception, traceback)
        if outermost and self._committed:
            for callback in self.committed_callbacks:
                try:
                    callback()
                except Exception:  # the change is committed: its request must not fail now
                    log.exception("an after-commit callback failed")
        return result


def transaction() -> Any:
    """A write transaction; on SQLite it takes the write lock up front (no upgrade deadlocks).
    Writes go through `atomic`, which opens it and runs its work again after a deadlock."""
    db = engine()
    if isinstance(db, SQLiteEngine):
        return _SQLiteWrite(db)
    return db.transaction()


# PostgreSQL gave up on the transaction for a reason of concurrency, not of the statement or
# the data: deadlock_detected, serialization_failure. Run again whole, it goes through.
_RETRY_SQLSTATES = frozenset({"40P01", "40001"})
ATTEMPTS = 5  # runs of a transaction's work in all, before its last error is raised
BACKOFF_SECONDS = (0.010, 0.050)  # the jittered pause before a second run; grows per run


def retryable(exc: BaseException) -> bool:
    """Whether `exc` (or an error it was raised from) is a deadlock or a serialization failure:
    the transaction was rolled back, and running its work again is expected to succeed."""
    seen: BaseException | None = exc
    for _ in range(5):  # the error itself and a few explicit causes
        if seen is None:
            return False
        if getattr(seen, "sqlstate", None) in _RETRY_SQLSTATES and isinstance(
            seen, asyncpg.PostgresError
        ):
            return True
        seen = seen.__cause__
    return False


async def atomic(work: Callable[[], Awaitable[T]]) -> T:
    """`await work()` in one write transaction (`transaction()`), and its result.

    The outermost call owns the transaction: should PostgreSQL end it with a deadlock or a
    serialization failure, it is rolled back and `work` runs again whole, in a new
    transaction, after a short jittered pause (up to ATTEMPTS runs; the last error is then
    raised). Inside a transaction already open, `work` just runs in it: the outermost
    level retries. So `work` must have no effect outside the database before the commit
    (`after_commit` callbacks are fine: they run only for the run that committed)."""
    if engine().current_transaction.get() is not None:
        return await work()
    attempt = 1
    while True:
        try:
            async with transaction():
                return await work()
        except Exception as exc:
            if attempt >= ATTEMPTS or not retryable(exc):
                raise
            low, high = BACKOFF_SECONDS
            pause = random.uniform(low, high) * attempt  # noqa: S311 - jitter, not a secret
            log.warning(
                "transaction %s (%s) on run %d of %d; running it again in %.0f ms",
                type(exc).__name__,
                getattr(exc, "sqlstate", "?"),
                attempt,
                ATTEMPTS,
                pause * 1000,
            )
            await asyncio.sleep(pause)
            attempt += 1


def after_commit(callback: Callable[[], None]) -> None:
    """Call `callback` once the current SQLite write transaction (of `transaction()`) has
    committed, never if it rolls back; at once outside a transaction. (On PostgreSQL a NOTIFY
    is what waits for the commit.)"""
    current = engine().current_transaction.get()
    if current is None:
        callback()
    elif isinstance(current, _SQLiteWrite):
        current.committed_callbacks.append(callback)
    else:
        raise RuntimeError("after_commit needs a transaction opened by models.db.transaction()")


def all_tables() -> list[type[Table]]:
    from models.piccolo_app import APP_CONFIG

    return list(APP_CONFIG.table_classes)


_bound: Engine | None = None
_on_stop: list[Callable[[], None]] = []


def bound() -> Engine | None:
    """The engine `bind` set last (piccolo_conf's DB when bound before it loads)."""
    return _bound


def on_stop(callback: Callable[[], None]) -> None:
    """Call `callback` when the database is stopped (a module's own connection to close)."""
    _on_stop.append(callback)


def bind(db: Engine) -> None:
    """Point every table, and Piccolo's migration runner, at `db` (tests switch engines)."""
    from piccolo.apps.migrations.tables import Migration

    global _bound
    _bound = db
    # Piccolo's engine_finder reads piccolo_conf.DB; once loaded it must follow the binding
    # (looked up, not imported: piccolo_conf imports this module).
    conf = sys.modules.get("piccolo_conf")
    if conf is not None:
        cast(Any, conf).DB = db
    tables: list[type[Table]] = [*all_tables(), Migration]
    for table in tables:
        table._meta.db = db


MIGRATIONS = Path(__file__).parent / "migrations"
_MIGRATION_ID = re.compile(r'^ID = "([^"]+)"', re.MULTILINE)


def newest_migration() -> str:
    """The ID of the newest migration of models/migrations/ (file names sort as their IDs)."""
    newest = max(MIGRATIONS.glob("models_*.py"))
    found = _MIGRATION_ID.search(newest.read_text())
    if found is None:
        raise RuntimeError(f"{newest.name} has no ID")
    return found[1]


def _no_file_yet(db: Engine) -> bool:
    return isinstance(db, SQLiteEngine) and not Path(db.path).exists()


async def migrated(db: Engine | None = None) -> bool:
    """Whether the database has the newest migration applied; a SQLite file that does not
    exist yet is not created by asking (a connection would create it, empty)."""
    db = db or engine()
    if _no_file_yet(db):  # one stat, before any connection
        return False
    query = QueryString(
        "SELECT name FROM migration WHERE app_name = {} AND name = {}", "models", newest_migration()
    )
    try:
        return bool(await db.run_querystring(query))
    except (sqlite3.OperationalError, asyncpg.UndefinedTableError):  # no migration table yet
        return False


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
        await db.start_connection_pool(
            min_size=1, max_size=10, reset=_keep_session, connect=_connect
        )
    else:
        await db.run_ddl("PRAGMA journal_mode=WAL")


async def stop(db: Engine | None = None) -> None:
    """Close the pool. asyncpg waits for every connection to be given back; one that never
    is (its server backend killed mid-use) must not hold a shutdown forever, so after
    POOL_CLOSE_SECONDS the pool's connections are terminated instead."""
    for callback in _on_stop:
        callback()  # e.g. the statement runner's SQLite read connection, reopened on next read
    db = db or engine()
    if isinstance(db, PostgresEngine) and db.pool is not None:
        pool, db.pool = db.pool, None
        try:
            await asyncio.wait_for(pool.close(), timeout=POOL_CLOSE_SECONDS)
        except TimeoutError:
            log.warning("closing the database pool timed out; terminating its connections")
            pool.terminate()
