"""Who moved an order: stage_history gains `actor_kind` (user | token | operator, see
models/actors.py) and the API `token`. Rows written before know only `source`: `api` moves
were made with a token (which one was not kept), the rest by an operator. Plain SQL valid on
SQLite and PostgreSQL alike (Piccolo runs raw steps before its own column changes, and the
backfill needs the columns first)."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine

ID = "2026-11-25T10:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "stage history: who made each move"

STATEMENTS = [
    "ALTER TABLE stage_history ADD COLUMN actor_kind VARCHAR(10) NOT NULL DEFAULT 'operator'",
    "ALTER TABLE stage_history ADD COLUMN token INTEGER DEFAULT NULL "
    "REFERENCES api_tokens (id) ON DELETE SET NULL ON UPDATE CASCADE",
    "UPDATE stage_history SET actor_kind = 'token' WHERE source = 'api'",
]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def add_actor() -> None:
        for statement in STATEMENTS:
            await engine().run_ddl(statement)

    manager.add_raw(add_actor)
    return manager
