"""The admin's indexes (failed logins by email and time, sessions by expiry) and the table of
named keys (the CSRF signing key). Plain SQL valid on SQLite and PostgreSQL alike."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine

ID = "2026-11-23T08:00:01:000000"
VERSION = "1.38.0"
DESCRIPTION = "admin indexes and keys"

STATEMENTS = [
    "CREATE INDEX IF NOT EXISTS failed_logins_email_at ON failed_logins (email, at)",
    "CREATE INDEX IF NOT EXISTS admin_sessions_expires ON admin_sessions (expires_at)",
    # One row per named key; not a Piccolo table, so clearing the tables (tests) keeps it.
    "CREATE TABLE IF NOT EXISTS admin_keys "
    "(name VARCHAR(40) PRIMARY KEY, value VARCHAR(128) NOT NULL)",
]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def create() -> None:
        for statement in STATEMENTS:
            await engine().run_ddl(statement)

    manager.add_raw(create)
    return manager
