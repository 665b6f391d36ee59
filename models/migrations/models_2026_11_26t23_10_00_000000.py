"""Admin order search by trigram on PostgreSQL: pg_trgm's GIN indexes on the three texts the
search looks inside (models/queries/order_search.py), so a search reads the orders that match
instead of every order of the workspace.

The indexes are built CONCURRENTLY, so a release on a database that already holds many orders
does not block order writes while they build (17-21 s for 1,000,000 orders, docs/
benchmarks.md); PostgreSQL refuses that inside a transaction, so this migration runs without
one. An index left INVALID by a build that failed (a release cancelled midway) is dropped and
built again by the next run. `fastupdate = off`: GIN's pending list (rows written since the last
vacuum, up to 4 MB) is read in full by every search and makes the planner price the index as if
it were large, so a search could be planned as a scan; each order written updates its few
trigram entries at once instead.

pg_trgm ships with PostgreSQL's contrib modules and is a trusted extension (PostgreSQL 13+): the
database owner may create it (docs/operations.md). SQLite searches without an index: nothing to
do there."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine, is_postgres

ID = "2026-11-26T23:10:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "admin order search: trigram indexes (PostgreSQL)"

EXTENSION = "CREATE EXTENSION IF NOT EXISTS pg_trgm"
# name → (table, indexed expression); the expressions are the search's, character for character
INDEXES = {
    "orders_number_trgm": ("orders", "lower(number)"),
    "orders_external_ref_trgm": ("orders", "lower(external_ref)"),
    "customers_name_trgm": ("customers", "lower(name)"),
}
INVALID = """
    SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE NOT i.indisvalid AND c.relname IN ({names})
"""


async def forwards() -> MigrationManager:
    manager = MigrationManager(
        migration_id=ID, app_name="models", description=DESCRIPTION, wrap_in_transaction=False
    )

    async def create() -> None:
        if not is_postgres():
            return
        db = engine()
        await db.run_ddl(EXTENSION)
        names = ", ".join(f"'{name}'" for name in INDEXES)
        for row in await db.run_ddl(INVALID.format(names=names)):
            await db.run_ddl(f"DROP INDEX CONCURRENTLY IF EXISTS {row['relname']}")
        for name, (table, expression) in INDEXES.items():
            await db.run_ddl(
                f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} "
                f"ON {table} USING gin ({expression} gin_trgm_ops) WITH (fastupdate = off)"
            )

    manager.add_raw(create)
    return manager
