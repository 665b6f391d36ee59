"""Customer email: the worker's claim index (due queued messages), and messages queued before
email was sent at all are set aside as `muted` rather than mailed weeks late. Plain SQL valid
on SQLite and PostgreSQL alike."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine

ID = "2026-11-25T10:20:01:000000"
VERSION = "1.38.0"
DESCRIPTION = "customer email: claim indexes"

STATEMENTS = [
    "UPDATE customer_messages SET status = 'muted' WHERE status = 'queued' AND recipient = ''",
    "CREATE INDEX IF NOT EXISTS customer_messages_due ON customer_messages (next_attempt_at) "
    "WHERE status = 'queued'",
    "CREATE INDEX IF NOT EXISTS staff_notices_due ON staff_notices (next_attempt_at) "
    "WHERE status = 'queued'",
]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def create() -> None:
        for statement in STATEMENTS:
            await engine().run_ddl(statement)

    manager.add_raw(create)
    return manager
