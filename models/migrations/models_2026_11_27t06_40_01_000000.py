"""Order edits made before `order_edits` existed: each `order.updated` event the outbox still
holds (retention has pruned older ones) is copied as the edit it records, its revision and
changed fields from the event's body, its author unknown (`actor_kind` ""; shown without a
"by"); plus the index behind an order's edits on its timeline. Plain SQL, one form per engine
for reading the JSON body (a migration's raw SQL runs before its tables are added, so this
follows models_2026_11_27t06_40_00)."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine, is_postgres

ID = "2026-11-27T06:40:01:000000"
VERSION = "1.38.0"
DESCRIPTION = "order edits: those the outbox still holds, and the index by workspace and order"

COPY = """
    INSERT INTO order_edits (workspace, "order", revision, changed, actor_kind, "user", token,
        created_at)
    SELECT e.workspace, e."order", COALESCE({revision}, 0), COALESCE({changed}, '[]'), '',
        NULL, NULL, e.created_at
    FROM webhook_events e
    WHERE e.name = 'order.updated' AND e."order" IS NOT NULL
    ORDER BY e.id
"""
POSTGRES_COPY = COPY.format(
    revision="(e.body::jsonb ->> 'revision')::integer", changed="(e.body::jsonb -> 'changed')::text"
)
SQLITE_COPY = COPY.format(
    revision="json_extract(e.body, '$.revision')", changed="json_extract(e.body, '$.changed')"
)
INDEX = 'CREATE INDEX IF NOT EXISTS order_edits_ws_order ON order_edits (workspace, "order", id)'


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def copy() -> None:
        db = engine()
        await db.run_ddl(POSTGRES_COPY if is_postgres() else SQLITE_COPY)
        await db.run_ddl(INDEX)

    manager.add_raw(copy)
    return manager
