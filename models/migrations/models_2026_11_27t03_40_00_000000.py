"""Ship-to on orders: the address an order is shipped to, copied onto the
order (a JSON object, or NULL), so a later change of the customer's addresses leaves orders
already placed as they were. Additive: existing orders have none."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine, is_postgres

ID = "2026-11-27T03:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "orders: ship_to"


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def create() -> None:
        kind = "JSON" if is_postgres() else "TEXT"
        await engine().run_ddl(f"ALTER TABLE orders ADD COLUMN ship_to {kind} NULL DEFAULT NULL")

    manager.add_raw(create)
    return manager
