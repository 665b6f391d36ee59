"""Garments find their SKUs by style (models/orders/content.py): an index on the workspace and
the lower-cased style, so a create or an edit with items reads only those SKUs however large
the catalogue. Plain SQL valid on SQLite and PostgreSQL."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine

ID = "2026-11-27T03:50:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "skus: index by workspace and lower(style)"

STATEMENT = "CREATE INDEX IF NOT EXISTS skus_workspace_style ON skus (workspace, lower(style))"


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def create() -> None:
        await engine().run_ddl(STATEMENT)

    manager.add_raw(create)
    return manager
