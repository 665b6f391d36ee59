"""Composite indexes (workspace first) for every list, filter and lookup path, and the
uniqueness rules Piccolo cannot declare on a single column. Plain SQL valid on SQLite and
PostgreSQL alike."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine

ID = "2026-11-22T06:50:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "composite indexes and per-workspace uniqueness"

INDEXES = [
    # lists and filters
    "CREATE INDEX IF NOT EXISTS orders_ws_created ON orders (workspace, created_at DESC, id DESC)",
    "CREATE INDEX IF NOT EXISTS orders_ws_stage_created ON orders (workspace, stage, created_at DESC, id DESC)",
    "CREATE INDEX IF NOT EXISTS orders_ws_customer_created ON orders (workspace, customer, created_at DESC, id DESC)",
    "CREATE INDEX IF NOT EXISTS orders_ws_updated ON orders (workspace, updated_at)",
    "CREATE INDEX IF NOT EXISTS customers_ws_name ON customers (workspace, name, id)",
    "CREATE INDEX IF NOT EXISTS customers_ws_updated ON customers (workspace, updated_at)",
    "CREATE INDEX IF NOT EXISTS skus_ws_updated ON skus (workspace, updated_at)",
    'CREATE INDEX IF NOT EXISTS order_lines_order_position ON order_lines ("order", position)',
    'CREATE INDEX IF NOT EXISTS stage_history_order_at ON stage_history ("order", at, id)',
    "CREATE INDEX IF NOT EXISTS invoices_customer_status ON invoices (customer, status)",
    "CREATE INDEX IF NOT EXISTS contacts_customer ON contacts (customer, is_primary)",
    # per-workspace uniqueness
    "CREATE UNIQUE INDEX IF NOT EXISTS customers_ws_slug ON customers (workspace, slug)",
    "CREATE UNIQUE INDEX IF NOT EXISTS skus_ws_code ON skus (workspace, code)",
    "CREATE UNIQUE INDEX IF NOT EXISTS users_ws_email ON users (workspace, email)",
    "CREATE UNIQUE INDEX IF NOT EXISTS orders_ws_number ON orders (workspace, number)",
    "CREATE UNIQUE INDEX IF NOT EXISTS orders_ws_external_ref ON orders (workspace, external_ref)",
    "CREATE UNIQUE INDEX IF NOT EXISTS invoices_ws_number ON invoices (workspace, number)",
    "CREATE UNIQUE INDEX IF NOT EXISTS number_sequences_key ON number_sequences (workspace, kind, year)",
    'CREATE UNIQUE INDEX IF NOT EXISTS idempotency_keys_user_key ON idempotency_keys ("user", key)',
    "CREATE UNIQUE INDEX IF NOT EXISTS deliveries_event_subscription ON webhook_deliveries (event, subscription)",
    # the daemon's claim query and operators' views
    "CREATE INDEX IF NOT EXISTS deliveries_due ON webhook_deliveries (status, next_attempt_at)",
    "CREATE INDEX IF NOT EXISTS deliveries_subscription_created ON webhook_deliveries (subscription, created_at)",
    "CREATE INDEX IF NOT EXISTS attempts_delivery_number ON webhook_attempts (delivery, number)",
    "CREATE INDEX IF NOT EXISTS idempotency_keys_expires ON idempotency_keys (expires_at)",
]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def create_indexes() -> None:
        for statement in INDEXES:
            await engine().run_ddl(statement)

    manager.add_raw(create_indexes)
    return manager
