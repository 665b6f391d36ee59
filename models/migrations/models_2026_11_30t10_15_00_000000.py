"""Webhooks say whose they are and carry a globally unique delivery id.

- `webhook_deliveries.public_id`: `dlv_` and 26 random lowercase base32 characters
  (models/delivery_ids.py), what `webhook-id` and `X-SVC-Delivery` carry instead of the
  integer `id` (which stays the key). Unique (`deliveries_public_id`) and never null. Every
  existing row gets one. A row inserted without one (bulk loads, raw SQL) gets one from the
  database: on PostgreSQL the column's default `webhook_delivery_public_id()`, its characters
  taken from SHA-256 of two `gen_random_uuid()` (core since PostgreSQL 13, strong random
  bytes); on SQLite the trigger `webhook_delivery_public_id`, from `random()` (seeded from the
  operating system), since SQLite cannot add a column whose default is an expression. Rows
  written through Piccolo carry the id made in Python, so neither runs for them.
- every stored event body gains `workspace_id` after `occurred_at`, as new events have it, so
  a redelivery of an older event carries it too. Bodies are edited as text (every body starts
  `{"event":…,"event_id":…,"occurred_at":"…"`), never parsed and encoded again, so the rest of
  their bytes stay as they were; a body without `occurred_at` is left alone.

On PostgreSQL the deliveries stay writable throughout, so this runs without a transaction
(each step is safe to run again after a failure): the column is added without a default (a
volatile default would rewrite the table under an exclusive lock: 20-35 s per million rows
measured on a busy 2-core machine), then the default is set, the rows written before are
given ids BATCH ids at a time, each batch its own transaction, the unique index is built
CONCURRENTLY (an index a failed build left INVALID is dropped and built again), NOT NULL is
set (a short scan), and the bodies are rewritten BATCH events at a time. SQLite has one
writer: the same in plain statements."""

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine, is_postgres

ID = "2026-11-30T10:15:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhooks: deliveries' public ids (dlv_…), workspace_id in event bodies"

ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
LENGTH = 26
BATCH = 10_000
INDEX = "deliveries_public_id"

# Each character: the low 5 bits of one byte of the digest (every byte's are uniform).
_PG_CHARS = " || ".join(
    f"substr('{ALPHABET}', (get_byte(b, {n}) & 31) + 1, 1)" for n in range(LENGTH)
)
POSTGRES_FUNCTION = f"""
    CREATE OR REPLACE FUNCTION webhook_delivery_public_id() RETURNS varchar
    LANGUAGE plpgsql VOLATILE PARALLEL SAFE AS $$
    DECLARE
        b bytea := sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()));
    BEGIN
        RETURN 'dlv_' || {_PG_CHARS};
    END
    $$
"""
POSTGRES_COLUMN = [
    POSTGRES_FUNCTION,
    "ALTER TABLE webhook_deliveries ADD COLUMN IF NOT EXISTS public_id VARCHAR(64)",
    "ALTER TABLE webhook_deliveries ALTER COLUMN public_id "
    "SET DEFAULT webhook_delivery_public_id()",
]
# The rows written before the default, one range of ids at a time (the primary key's order).
POSTGRES_RANGE = (
    "SELECT min(id) AS low, max(id) AS high FROM webhook_deliveries WHERE public_id IS NULL"
)
POSTGRES_BATCH = """
    UPDATE webhook_deliveries SET public_id = webhook_delivery_public_id()
    WHERE id >= {low} AND id < {low} + {size} AND public_id IS NULL
"""
POSTGRES_INVALID = f"""
    SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE NOT i.indisvalid AND c.relname = '{INDEX}'
"""  # noqa: S608 - constants
POSTGRES_INDEX = [
    f"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS {INDEX} ON webhook_deliveries (public_id)",
    "ALTER TABLE webhook_deliveries ALTER COLUMN public_id SET NOT NULL",
]

# SQLite: one random character, LENGTH times (random() is evaluated for each).
_SQLITE_CHAR = f"substr('{ALPHABET}', (random() & 31) + 1, 1)"
SQLITE_ID = "'dlv_' || " + " || ".join([_SQLITE_CHAR] * LENGTH)
SQLITE_HAS_COLUMN = "SELECT 1 FROM pragma_table_info('webhook_deliveries') WHERE name = 'public_id'"
SQLITE_COLUMN = "ALTER TABLE webhook_deliveries ADD COLUMN public_id VARCHAR(64)"
SQLITE_REST = [
    f"UPDATE webhook_deliveries SET public_id = {SQLITE_ID} WHERE public_id IS NULL",  # noqa: S608
    f"""
    CREATE TRIGGER IF NOT EXISTS webhook_delivery_public_id
    AFTER INSERT ON webhook_deliveries
    FOR EACH ROW WHEN NEW.public_id IS NULL
    BEGIN
        UPDATE webhook_deliveries SET public_id = {SQLITE_ID} WHERE id = NEW.id;
    END
    """,  # noqa: S608 - constants
    f"CREATE UNIQUE INDEX IF NOT EXISTS {INDEX} ON webhook_deliveries (public_id)",
]

# The position of the quote that ends `occurred_at`'s value; `{find}` is the engine's
# substring search (PostgreSQL's strpos, SQLite's instr: same arguments, same 1-based result).
_KEY = """'"occurred_at":"'"""  # an SQL literal of 15 characters
_AFTER_OCCURRED = (
    f"{{find}}(body, {_KEY}) + 14 + {{find}}(substr(body, {{find}}(body, {_KEY}) + 15), '\"')"
)
BODIES = """
    UPDATE webhook_events
    SET body = substr(body, 1, {at}) || ',"workspace_id":' || CAST(workspace AS TEXT)
        || substr(body, {at} + 1)
    WHERE {find}(body, '"occurred_at":"') > 0 AND {find}(body, '"workspace_id":') = 0
"""
EVENTS_RANGE = "SELECT min(id) AS low, max(id) AS high FROM webhook_events"


def bodies(find: str) -> str:
    """The event bodies' update, with `find` as the engine's substring search."""
    return BODIES.format(at=_AFTER_OCCURRED.format(find=find), find=find)


POSTGRES_BODIES = bodies("strpos")
SQLITE_BODIES = bodies("instr")
# PostgreSQL: BATCH events at a time, each batch its own transaction.
POSTGRES_BODIES_BATCH = POSTGRES_BODIES + "  AND id >= {low} AND id < {low} + {size}\n"


async def rewrite_bodies(db: Any) -> None:
    """Every stored body without `workspace_id` gains it (safe to run again)."""
    if not is_postgres():
        await db.run_ddl(SQLITE_BODIES)
        return
    [ids] = await db.run_ddl(EVENTS_RANGE)
    if ids["low"] is not None:
        for low in range(ids["low"], ids["high"] + 1, BATCH):
            await db.run_ddl(
                POSTGRES_BODIES_BATCH.replace("{low}", str(low)).replace("{size}", str(BATCH))
            )


async def _postgres(db: Any) -> None:
    for statement in POSTGRES_COLUMN:
        await db.run_ddl(statement)
    # Read once the default is set: a row written without an id since then gets the default,
    # and every earlier one has an id within this range.
    [ids] = await db.run_ddl(POSTGRES_RANGE)
    if ids["low"] is not None:
        for low in range(ids["low"], ids["high"] + 1, BATCH):
            await db.run_ddl(POSTGRES_BATCH.format(low=low, size=BATCH))
    if await db.run_ddl(POSTGRES_INVALID):
        await db.run_ddl(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")
    for statement in POSTGRES_INDEX:
        await db.run_ddl(statement)
    await rewrite_bodies(db)


async def _sqlite(db: Any) -> None:
    if not await db.run_ddl(SQLITE_HAS_COLUMN):
        await db.run_ddl(SQLITE_COLUMN)
    for statement in SQLITE_REST:
        await db.run_ddl(statement)
    await rewrite_bodies(db)


async def forwards() -> MigrationManager:
    manager = MigrationManager(
        migration_id=ID, app_name="models", description=DESCRIPTION, wrap_in_transaction=False
    )

    async def change() -> None:
        db = engine()
        await (_postgres(db) if is_postgres() else _sqlite(db))

    manager.add_raw(change)
    return manager
