"""SKUs carry what the shop pays for one.

- `skus.cost_cents`: what the shop pays its supplier for one blank garment, in minor units;
  NULL while unknown (every existing SKU starts unknown). Price lists mark garments up from it.

Additive only."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import BigInt
from piccolo.columns.indexes import IndexMethod

ID = "2026-12-01T09:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "SKUs: cost of one (cost_cents), null while unknown"


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)
    manager.add_column(
        table_class_name="Sku",
        tablename="skus",
        column_name="cost_cents",
        db_column_name="cost_cents",
        column_class_name="BigInt",
        column_class=BigInt,
        params={
            "default": None,
            "null": True,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )
    return manager
