"""Indexes for retention: finished deliveries by last change (a partial index, so the prune
never reads pending rows) and events by age; attempts by time for the outbox figures. Plain SQL valid on SQLite and PostgreSQL
alike."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine

ID = "2026-11-22T23:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "retention and outbox-figure indexes"

INDEXES = [
    "CREATE INDEX IF NOT EXISTS deliveries_done_updated ON webhook_deliveries (updated_at, id) "
    "WHERE status <> 'pending'",
    "CREATE INDEX IF NOT EXISTS events_created ON webhook_events (created_at)",
    # the outbox figures of /metrics: attempts of the last minutes
    "CREATE INDEX IF NOT EXISTS attempts_started ON webhook_attempts (started_at)",
]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def create_indexes() -> None:
        for statement in INDEXES:
            await engine().run_ddl(statement)

    manager.add_raw(create_indexes)
    return manager
