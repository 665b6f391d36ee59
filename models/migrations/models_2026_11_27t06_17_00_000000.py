"""Live updates (models/live.py): each order-related event row announces itself (PostgreSQL).

An AFTER INSERT trigger on `webhook_events`, for rows naming an order, sends
`pg_notify('pressline_live', '<workspace>:<event id>:<order id>:<event name>')` in the
inserting transaction: delivered at its commit, never for a rollback, and without a statement
of its own per change (a create stays within its statement budget). The payload is built
from the row's integers and its event name (one of models/webhooks/names.py, checked by
`record_event`). Every web process's LISTEN connection fans it out to its open streams.

PostgreSQL only: on SQLite (one process) `record_event` hands the change to the process's
streams after commit, and the schema is unchanged."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine, is_postgres

ID = "2026-11-27T06:17:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "order events announce themselves on pressline_live (PostgreSQL)"

POSTGRES_ONLY = [
    """
    CREATE OR REPLACE FUNCTION webhook_event_live() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_notify(
            'pressline_live',
            NEW.workspace::text || ':' || NEW.id::text || ':' || NEW."order"::text || ':'
                || NEW.name
        );
        RETURN NULL;
    END
    $$
    """,
    "DROP TRIGGER IF EXISTS webhook_event_live ON webhook_events",
    """
    CREATE TRIGGER webhook_event_live
    AFTER INSERT ON webhook_events
    FOR EACH ROW WHEN (NEW."order" IS NOT NULL)
    EXECUTE FUNCTION webhook_event_live()
    """,
]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def change() -> None:
        if is_postgres():
            for statement in POSTGRES_ONLY:
                await engine().run_ddl(statement)

    manager.add_raw(change)
    return manager
