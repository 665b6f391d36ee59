"""The statement runner: Pressline's own SQL, reads and writes, written once as `Sql` and sent
on one connection per request, no ORM.

Statements follow whichever engine is bound (`models.db.engine()`, which tests switch): on
PostgreSQL a connection of the asyncpg pool Piccolo's engine owns; on SQLite one long-lived
`sqlite3` connection per process and database file, used from the event loop in autocommit
mode, so every SELECT sees the latest committed (WAL) snapshot. Inside a Piccolo transaction
the transaction's own connection is used, so a write's re-read sees its uncommitted rows, and
writes send their statements there. Outside a transaction the SQLite connection is read-only
(`query_only`): writes go through a transaction.

Named rows: each SELECT whose rows leave its module is a `Select`, declared beside a
`msgspec.Struct(array_like=True, frozen=True)` listing its columns in order
(models/queries/*.py):

    class SkuRow(msgspec.Struct, array_like=True, frozen=True):
        code: str
        on_hand: int
        updated_at: Stamp

    SKUS = Select(SkuRow, "SELECT s.code, s.on_hand, UTC_TEXT(s.updated_at) FROM skus s ...")
    rows = await reader.all(SKUS, workspace_id)   # list[SkuRow]; `reader.one` for one or None

A row is decoded by the Struct's own positional constructor (`SkuRow(*record)`, ~0.14 µs for
18 columns, a quarter of `msgspec.convert`): a missing or extra column raises, types are the
driver's (annotated on the Struct, not checked again). Callers use the field names, never
positions. Counts and writes stay plain `Sql` with `reader.rows` / `reader.row`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, Protocol, TypeVar, overload

import msgspec
from piccolo.engine.postgres import PostgresEngine
from piccolo.engine.sqlite import SQLiteEngine

from models import db

Row = Sequence[Any]
R = TypeVar("R")
# A stored timestamp as a statement returns it: text (UTC_TEXT, or SQLite's stored text) or,
# inside a SQLite transaction, the datetime Piccolo's converters make of it. `iso()` takes both.
Stamp = str | dt.datetime
StatementListener = Callable[[str, Sequence[Any]], None]

_PLACEHOLDER = re.compile(r"\$(\d+)")
_ANY = re.compile(r"= ANY\((\$\d+)\)")
_UTC_TEXT = re.compile(r"UTC_TEXT\(([\w.\"]+)\)")
_ASCII_LOWER = re.compile(r"ASCII_LOWER\(([\w.\"]+)\)")
_ROW_LOCK = re.compile(
    r" FOR (?:NO KEY )?UPDATE(?: OF [\w, ]+?)?(?: SKIP LOCKED| NOWAIT)?(?=[ )]|$)"
)
_PG_UTC_TEXT = r"""to_char(\1 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"')"""
_UTC = dt.UTC
# A read never waits long: in WAL mode readers take no lock a writer holds; this only covers
# a database left in rollback-journal mode, where a commit briefly locks readers out.
SQLITE_BUSY_SECONDS = 5.0


class Sql:
    """One statement, written once in PostgreSQL's dialect with `$n` placeholders. Its SQLite
    form numbers the same placeholders `?n` and reads a list parameter (`= ANY($n)`) as a
    JSON array through `json_each`, so each statement has one text and is prepared once.

    `UTC_TEXT(column)` selects a timestamp for `iso()`: PostgreSQL renders it in the API's
    form in the statement (cheaper there than a datetime built and formatted in Python);
    SQLite returns the fixed-width text it stores, which `iso()` slices.

    A row lock (`FOR UPDATE [OF t] [SKIP LOCKED]`) is PostgreSQL's only: SQLite's write
    transaction already locks the whole database, so its form leaves the clause out.

    `ASCII_LOWER(column)` lower-cases A-Z only (models/emails.py): PostgreSQL's lower() under
    the "C" collation, SQLite's own lower()."""

    __slots__ = ("has_list", "postgres", "reads", "sqlite")

    def __init__(self, text: str) -> None:
        text = " ".join(text.split())
        postgres = _ASCII_LOWER.sub(r'lower(\1 COLLATE "C")', text)
        self.postgres = _UTC_TEXT.sub(_PG_UTC_TEXT, postgres)
        self.has_list = _ANY.search(text) is not None
        self.reads = db.is_plain_read(text)
        text = _ASCII_LOWER.sub(r"lower(\1)", text)
        sqlite = _ANY.sub(r"IN (SELECT value FROM json_each(\1))", _UTC_TEXT.sub(r"\1", text))
        self.sqlite = _PLACEHOLDER.sub(r"?\1", _ROW_LOCK.sub("", sqlite))

    def sqlite_args(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """`args` as the SQLite form takes them (a list as its JSON array)."""
        return _json_ids(args) if self.has_list else args


class Select(Sql, Generic[R]):
    """A SELECT whose rows decode into `row`, the array-like Struct declared beside it (its
    fields are the statement's columns, in order)."""

    __slots__ = ("row",)

    def __init__(self, row: type[R], text: str) -> None:
        super().__init__(text)
        self.row = row


class Reader(Protocol):
    async def rows(self, sql: Sql, *args: Any) -> list[Row]: ...

    async def row(self, sql: Sql, *args: Any) -> Row | None: ...

    async def all(self, select: Select[R], *args: Any) -> list[R]: ...

    async def one(self, select: Select[R], *args: Any) -> R | None: ...


class _Decoding:
    """`all` and `one` of every connection class: its plain rows, each decoded into the
    statement's Struct."""

    __slots__ = ()

    async def rows(self, sql: Sql, *args: Any) -> list[Row]:
        raise NotImplementedError

    async def row(self, sql: Sql, *args: Any) -> Row | None:
        raise NotImplementedError

    async def all(self, select: Select[R], *args: Any) -> list[R]:
        make = select.row
        return [make(*found) for found in await self.rows(select, *args)]

    async def one(self, select: Select[R], *args: Any) -> R | None:
        found = await self.row(select, *args)
        return None if found is None else select.row(*found)


_listeners: list[StatementListener] = []


@contextlib.contextmanager
def watch(listener: StatementListener) -> Iterator[None]:
    """Call `listener(sql, args)` for every statement sent here while inside (tests count
    statements per request with it)."""
    _listeners.append(listener)
    try:
        yield
    finally:
        _listeners.remove(listener)


def _notify(sql: str, args: Sequence[Any]) -> None:
    for listener in _listeners:
        listener(sql, args)


def _json_list(arg: list[Any]) -> str:
    """A list parameter as the JSON array `json_each` reads: ids (the common case) written
    directly, anything else (text) through the JSON encoder."""
    if all(type(item) is int for item in arg):
        return "[" + ",".join(str(item) for item in arg) + "]"
    return msgspec.json.encode(arg).decode()


def _json_ids(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(_json_list(arg) if isinstance(arg, list) else arg for arg in args)


class _Postgres(_Decoding):
    """A pooled (or transaction's) asyncpg connection; statements are prepared once per
    connection by asyncpg's statement cache.

    On a pooled connection outside a transaction, a read whose connection was lost (the
    server restarted, the backend was terminated) has returned no row, so it runs once more
    on a fresh connection; every later statement of the request uses that one. Writes and
    statements inside a transaction are not retried: the error reaches the request (503)."""

    __slots__ = ("conn", "owner")

    def __init__(self, conn: Any, owner: _Connection | None = None) -> None:
        self.conn = conn
        self.owner = owner  # set when the connection can be replaced by a fresh one

    async def rows(self, sql: Sql, *args: Any) -> list[Row]:
        if _listeners:
            _notify(sql.postgres, args)
        try:
            rows: list[Row] = await self.conn.fetch(sql.postgres, *args)
        except Exception as exc:
            await self._replace_after(exc, sql)
            rows = await self.conn.fetch(sql.postgres, *args)
        return rows

    async def row(self, sql: Sql, *args: Any) -> Row | None:
        if _listeners:
            _notify(sql.postgres, args)
        try:
            row: Row | None = await self.conn.fetchrow(sql.postgres, *args)
        except Exception as exc:
            await self._replace_after(exc, sql)
            row = await self.conn.fetchrow(sql.postgres, *args)
        return row

    async def _replace_after(self, exc: Exception, sql: Sql) -> None:
        """Re-raise `exc` unless it lost the connection under a read that can run again."""
        if self.owner is None or not sql.reads or not db.unavailable(exc):
            raise exc
        self.conn = await self.owner.replace()


class _Sqlite(_Decoding):
    """The process's read connection, called directly: a statement of the hot paths takes
    well under a millisecond, less than handing it to a thread would cost."""

    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    async def rows(self, sql: Sql, *args: Any) -> list[Row]:
        params = _json_ids(args) if sql.has_list else args
        if _listeners:
            _notify(sql.sqlite, params)
        # fetchall, never a partial fetch: an unfinished statement would keep its read
        # transaction (and so an old snapshot) open on this shared connection.
        return self.conn.execute(sql.sqlite, params).fetchall()

    async def row(self, sql: Sql, *args: Any) -> Row | None:
        rows = await self.rows(sql, *args)
        return rows[0] if rows else None


class _SqliteTransaction(_Decoding):
    """The aiosqlite connection of a Piccolo transaction (values come back converted by
    Piccolo's column-type converters: datetimes, bools, Decimals)."""

    __slots__ = ("conn",)

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    async def rows(self, sql: Sql, *args: Any) -> list[Row]:
        params = _json_ids(args) if sql.has_list else args
        if _listeners:
            _notify(sql.sqlite, params)
        cursor = await self.conn.cursor()
        try:
            cursor.row_factory = None  # plain tuples: joined columns may share a name
            await cursor.execute(sql.sqlite, params)
            rows: list[Row] = list(await cursor.fetchall())
        finally:
            await cursor.close()
        return rows

    async def row(self, sql: Sql, *args: Any) -> Row | None:
        rows = await self.rows(sql, *args)
        return rows[0] if rows else None


_sqlite: tuple[SQLiteEngine, int, sqlite3.Connection] | None = None


def _sqlite_connection(engine: SQLiteEngine) -> sqlite3.Connection:
    global _sqlite
    if _sqlite is not None:
        cached_engine, pid, conn = _sqlite
        if cached_engine is engine and pid == os.getpid():
            return conn
        close()
    conn = sqlite3.connect(
        engine.connection_kwargs["database"],
        isolation_level=None,  # autocommit: each SELECT reads the latest commit
        check_same_thread=False,
        timeout=SQLITE_BUSY_SECONDS,
    )
    conn.execute("PRAGMA query_only = ON")
    _sqlite = (engine, os.getpid(), conn)
    return conn


def close() -> None:
    """Close the cached SQLite read connection (engine switch, lifespan stop)."""
    global _sqlite
    if _sqlite is not None:
        _, pid, conn = _sqlite
        _sqlite = None
        if pid == os.getpid():
            conn.close()


db.on_stop(close)  # models.db stops the database: the read connection goes with it


class _Connection:
    """The async context of `connection()` (a plain class: cheaper than a generator-based
    context manager on a path taken once or twice per request)."""

    __slots__ = ("_close", "_pool", "_pooled")

    async def __aenter__(self) -> Reader:
        self._pool: Any = None
        self._close: Any = None
        engine = db.engine()
        transaction = engine.current_transaction.get()
        if isinstance(engine, SQLiteEngine):
            if transaction is not None:
                return _SqliteTransaction(transaction.connection)
            return _Sqlite(_sqlite_connection(engine))
        if isinstance(engine, PostgresEngine):
            if transaction is not None:
                return _Postgres(transaction.connection)
            if engine.pool is not None:
                self._pool = engine.pool
                self._pooled = await engine.pool.acquire()
                return _Postgres(self._pooled, self)
            # No pool (a script): a connection of its own, as Piccolo would open.
            conn = await engine.get_new_connection()
            self._close = conn.close
            return _Postgres(conn)
        raise TypeError(f"unsupported engine {type(engine).__name__}")

    async def replace(self) -> Any:
        """A fresh pooled connection in place of one that was lost. The pool's other idle
        connections may be dead too (a restart takes them all), so they are expired first."""
        pool = self._pool
        await pool.release(self._pooled)
        await pool.expire_connections()
        self._pooled = await pool.acquire()
        return self._pooled

    async def __aexit__(self, *_: object) -> None:
        if self._pool is not None:
            await self._pool.release(self._pooled)
        elif self._close is not None:
            await self._close()


def connection() -> _Connection:
    """`async with statements.connection() as reader:` one connection for every statement of a
    request, on the engine bound now."""
    return _Connection()


class _Snapshot(_Connection):
    """`connection()` whose statements all read one snapshot, outside a write transaction: on
    PostgreSQL a read-only REPEATABLE READ transaction, on SQLite a read transaction on the
    process's read connection. A read made of several statements never mixes rows from before
    and after a concurrent change."""

    __slots__ = ("_sqlite_began", "_transaction")

    async def __aenter__(self) -> Reader:
        reader = await super().__aenter__()
        self._transaction: Any = None
        self._sqlite_began: sqlite3.Connection | None = None
        in_write = db.engine().current_transaction.get() is not None  # its own snapshot
        if isinstance(reader, _Postgres) and not in_write:
            self._transaction = reader.conn.transaction(isolation="repeatable_read", readonly=True)
            await self._transaction.start()
        elif isinstance(reader, _Sqlite) and not reader.conn.in_transaction:
            reader.conn.execute("BEGIN")  # the snapshot is taken at its first read (WAL)
            self._sqlite_began = reader.conn
        return reader

    async def __aexit__(self, *exc: object) -> None:
        try:
            if self._transaction is not None:
                await self._transaction.rollback()  # read only: nothing to keep
            elif self._sqlite_began is not None and self._sqlite_began.in_transaction:
                self._sqlite_began.execute("COMMIT")
        finally:
            await super().__aexit__(*exc)


def snapshot() -> _Connection:
    """`async with statements.snapshot() as reader:` as `connection()`, every statement reading
    the same snapshot of the database."""
    return _Snapshot()


@overload
async def counted_page(  # type: ignore[overload-overlap]  # a Select is the narrower Sql
    reader: Reader, count: Sql, page: Select[R], args: Sequence[Any], limit: int, offset: int
) -> tuple[int, list[R]]: ...


@overload
async def counted_page(
    reader: Reader, count: Sql, page: Sql, args: Sequence[Any], limit: int, offset: int
) -> tuple[int, list[Row]]: ...


async def counted_page(
    reader: Reader, count: Sql, page: Sql, args: Sequence[Any], limit: int, offset: int
) -> tuple[int, list[Any]]:
    """A list's total and one page of it (decoded when `page` is a `Select`), on one
    connection; no page query past the end. `page` takes the filter `args` followed by LIMIT
    and OFFSET."""
    found = await reader.row(count, *args)
    total: int = found[0] if found else 0
    if offset >= total:
        return total, []
    if isinstance(page, Select):
        return total, await reader.all(page, *args, limit, offset)
    return total, await reader.rows(page, *args, limit, offset)


# --- stored values → API values ---------------------------------------------------------


def when(value: str | dt.datetime) -> dt.datetime:
    """A stored timestamp as an aware UTC datetime. PostgreSQL (and Piccolo's SQLite
    converters) give datetimes; the raw SQLite connection gives the stored text, read the
    way Piccolo reads it."""
    if isinstance(value, str):
        return dt.datetime.fromisoformat(value).replace(tzinfo=_UTC)
    return value


def iso(value: str | dt.datetime) -> str:
    """The API's timestamp form (models.clock.iso): ISO 8601, UTC offset, whole seconds."""
    if isinstance(value, str):
        if len(value) == 25 and value[10] == "T" and value.endswith("+00:00"):
            return value  # rendered by the statement (UTC_TEXT on PostgreSQL)
        # The fixed-width text models/db.py stores: "2026-11-22 10:15:00.123456+00:00".
        if len(value) == 32 and value[10] == " " and value.endswith("+00:00"):
            return f"{value[:10]}T{value[11:19]}+00:00"
        value = when(value)
    if value.tzinfo is not _UTC:
        value = value.astimezone(_UTC)
    return value.isoformat(timespec="seconds")


def iso_or_none(value: str | dt.datetime | None) -> str | None:
    return None if value is None else iso(value)
