"""Staff notices remember which deactivation they tell about (subscription and time), so the
worker queues one notice per owner per deactivation however many workers look. Plain SQL
valid on SQLite and PostgreSQL alike (the columns' types are Piccolo's own names)."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine

ID = "2026-11-25T10:20:02:000000"
VERSION = "1.38.0"
DESCRIPTION = "staff notices: the deactivation each one is about"

STATEMENTS = [
    "ALTER TABLE staff_notices ADD COLUMN subscription_id INTEGER",
    "ALTER TABLE staff_notices ADD COLUMN about_time TIMESTAMPTZ",
    "CREATE UNIQUE INDEX IF NOT EXISTS staff_notices_once "
    "ON staff_notices (subscription_id, about_time, recipient)",
]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def create() -> None:
        for statement in STATEMENTS:
            await engine().run_ddl(statement)

    manager.add_raw(create)
    return manager
