"""Cheaper webhook outbox writes: fewer indexes for each delivery row to keep up to date.

A delivery row is written three times (queued, leased by a claim, moved on by its result), so
every index on it is paid for three times per delivery. Measured with the claim statement
under EXPLAIN (ANALYZE, BUFFERS): index upkeep was most of a claim's cost. So:
- the foreign-key indexes on `webhook_deliveries.event`, `webhook_deliveries.subscription` and
  `webhook_attempts.delivery` go: the composite indexes that start with the same column
  (`deliveries_event_subscription`, `deliveries_subscription_created`,
  `attempts_delivery_number`) serve the same lookups and cascades;
- `deliveries_due (status, next_attempt_at)` becomes `deliveries_pending_due (next_attempt_at)
  WHERE status = 'pending'`: finished deliveries (nearly all rows) leave it;
- `deliveries_leased` goes, so a claim changes no indexed column and PostgreSQL can update the
  row in place (a HOT update, no index entry written); expired leases are found among the
  pending rows due for longer than a lease (daemon/claim.py, EXPIRED). On PostgreSQL the
  table keeps a fifth of each page free for those in-place updates (fillfactor 80).
Plain SQL valid on SQLite and PostgreSQL, but for the fillfactor (PostgreSQL only)."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine, is_postgres

ID = "2026-11-25T17:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhook outbox: fewer indexes per delivery row"

STATEMENTS = [
    "DROP INDEX IF EXISTS webhook_deliveries_event",
    "DROP INDEX IF EXISTS webhook_deliveries_subscription",
    "DROP INDEX IF EXISTS webhook_attempts_delivery",
    "DROP INDEX IF EXISTS deliveries_leased",
    "CREATE INDEX IF NOT EXISTS deliveries_pending_due "
    "ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'",
    "DROP INDEX IF EXISTS deliveries_due",
]
POSTGRES_ONLY = ["ALTER TABLE webhook_deliveries SET (fillfactor = 80)"]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def change() -> None:
        for statement in STATEMENTS + (POSTGRES_ONLY if is_postgres() else []):
            await engine().run_ddl(statement)

    manager.add_raw(change)
    return manager
