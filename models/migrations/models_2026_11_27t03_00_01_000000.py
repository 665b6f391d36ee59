"""The indexes of customers written over the API: `external_ref` unique per
workspace, a customer's addresses with the default found at once. Plain SQL valid on SQLite
and PostgreSQL alike."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine

ID = "2026-11-27T03:00:01:000000"
VERSION = "1.38.0"
DESCRIPTION = "customers: external_ref unique per workspace, addresses by customer"

INDEXES = [
    # NULLs are distinct on both engines: customers without a ref never collide.
    "CREATE UNIQUE INDEX IF NOT EXISTS customers_ws_external_ref"
    " ON customers (workspace, external_ref)",
    "CREATE INDEX IF NOT EXISTS addresses_customer ON addresses (customer, is_default)",
]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def create_indexes() -> None:
        for statement in INDEXES:
            await engine().run_ddl(statement)

    manager.add_raw(create_indexes)
    return manager
