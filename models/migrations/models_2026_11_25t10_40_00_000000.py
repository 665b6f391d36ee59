"""Admin login throttle by client address: the address of each counted login attempt, and an
index to count one address's attempts in the window. Plain SQL valid on SQLite and PostgreSQL."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine

ID = "2026-11-25T10:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "failed logins by client address"

STATEMENTS = [
    "ALTER TABLE failed_logins ADD COLUMN address VARCHAR(64) NOT NULL DEFAULT ''",
    "CREATE INDEX IF NOT EXISTS failed_logins_address_at ON failed_logins (address, at)",
]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def create() -> None:
        for statement in STATEMENTS:
            await engine().run_ddl(statement)

    manager.add_raw(create)
    return manager
