"""Webhook delivery v2: each subscription's attempts in flight (the fairness cap and the exact
failure limit are decided on it) and the previous secret kept during a rotation's overlap.
Additive only; the indexes are on columns that already exist (Piccolo runs raw steps first)."""

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import Integer, Timestamptz, Varchar
from piccolo.columns.indexes import IndexMethod

from models.db import engine

ID = "2026-11-25T10:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhooks: attempts in flight per subscription, previous secret"

INDEXES = [
    # The claim: a subscription's due deliveries, oldest first.
    "CREATE INDEX IF NOT EXISTS deliveries_pending_subscription "
    "ON webhook_deliveries (subscription, next_attempt_at, id) WHERE status = 'pending'",
    # Attempts cut off by a crash: leases that ran out.
    "CREATE INDEX IF NOT EXISTS deliveries_leased "
    "ON webhook_deliveries (lease_expires_at) WHERE leased_by IS NOT NULL",
]


def _params(**given: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        "null": False,
        "primary_key": False,
        "unique": False,
        "index": False,
        "index_method": IndexMethod.btree,
        "choices": None,
        "db_column_name": None,
        "secret": False,
    }
    params.update(given)
    return params


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    def add(name: str, column: type, params: dict[str, Any]) -> None:
        manager.add_column(
            table_class_name="WebhookSubscription",
            tablename="webhook_subscriptions",
            column_name=name,
            db_column_name=name,
            column_class_name=column.__name__,
            column_class=column,
            params=params,
            schema=None,
        )

    add("in_flight", Integer, _params(default=0))
    add("previous_secret", Varchar, _params(length=100, default=None, null=True))
    add("previous_secret_expires_at", Timestamptz, _params(default=None, null=True))

    async def create_indexes() -> None:
        for statement in INDEXES:
            await engine().run_ddl(statement)

    manager.add_raw(create_indexes)
    return manager
