"""Indexes for the events feed: the workspace's events in id order, and the same order within
each filter (event name, order, time). Plain SQL valid on SQLite and PostgreSQL alike."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine

ID = "2026-11-23T00:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "events feed indexes"

INDEXES = [
    "CREATE INDEX IF NOT EXISTS events_ws_id ON webhook_events (workspace, id)",
    "CREATE INDEX IF NOT EXISTS events_ws_name_id ON webhook_events (workspace, name, id)",
    'CREATE INDEX IF NOT EXISTS events_ws_order_id ON webhook_events (workspace, "order", id)',
    "CREATE INDEX IF NOT EXISTS events_ws_created_id ON webhook_events (workspace, created_at, id)",
]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def create_indexes() -> None:
        for statement in INDEXES:
            await engine().run_ddl(statement)

    manager.add_raw(create_indexes)
    return manager
