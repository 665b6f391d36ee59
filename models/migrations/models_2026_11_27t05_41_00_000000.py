"""New workspaces start with the artwork approval rule on: the column's default
becomes true. Existing workspaces keep the setting they have.

PostgreSQL changes the default in place. SQLite has no ALTER COLUMN; its documented way to
change a default without rebuilding the table (https://sqlite.org/lang_altertable.html, "making
other kinds of table schema changes") rewrites the column's definition in the stored schema and
bumps the schema version, so every connection reads the new definition."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine, is_postgres

ID = "2026-11-27T05:41:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "workspaces: require_artwork_approval defaults to true"

POSTGRES = "ALTER TABLE workspaces ALTER COLUMN require_artwork_approval SET DEFAULT true"
OLD = '"require_artwork_approval" BOOLEAN NOT NULL DEFAULT false'
NEW = '"require_artwork_approval" BOOLEAN NOT NULL DEFAULT true'
SQLITE = (
    f"UPDATE sqlite_master SET sql = replace(sql, '{OLD}', '{NEW}') "  # noqa: S608 - constants
    "WHERE type = 'table' AND name = 'workspaces'"
)


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def change() -> None:
        db = engine()
        if is_postgres():
            await db.run_ddl(POSTGRES)
            return
        [row] = await db.run_ddl("PRAGMA schema_version")
        await db.run_ddl("PRAGMA writable_schema = ON")
        await db.run_ddl(SQLITE)
        await db.run_ddl(f"PRAGMA schema_version = {int(row['schema_version']) + 1}")
        await db.run_ddl("PRAGMA writable_schema = OFF")

    manager.add_raw(change)
    return manager
