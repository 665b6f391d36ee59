"""Live updates (models/live.py): the changes to an order's timeline that record no event
announce themselves (PostgreSQL), as event rows do (migration 2026-11-27T06:17).

- `customer_messages`: a row's `status` or `attempts` changed (the worker sent it, a try
  failed and will be retried, it failed for good, staff queued it again) sends
  `pg_notify('pressline_live', '<workspace>:0:<order id>:email.<status>')`. An email queued
  is part of the change that queued it (a stage move, a proof: their events announce them),
  except an invoice's, which the next trigger announces.
- `invoice_links`: "Email invoice" (a link inserted with its email) sends
  `'<workspace>:0:<order id>:invoice.emailed'`; the customer first opening the invoice's page
  (`opened_at` set) sends `'…:invoice.opened'`, the order read from the invoice.

Event id 0 (live.NOT_AN_EVENT): no row of `webhook_events`, so the stream sends it without an
id. Delivered at commit, never for a rollback, without a statement of its own: the worker's
one-statement outcome stays one statement. A lease taken or given back changes neither
column and notifies nothing.

PostgreSQL only: on SQLite (one process) the web process's writes call `live.ping` after
commit, and the schema is unchanged."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine, is_postgres

ID = "2026-12-03T09:41:00:000000"
VERSION = "1.38.0"
DESCRIPTION = (
    "emails' progress and invoice links announce themselves on pressline_live (PostgreSQL)"
)

POSTGRES_ONLY = [
    """
    CREATE OR REPLACE FUNCTION customer_message_live() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_notify(
            'pressline_live',
            NEW.workspace::text || ':0:' || NEW."order"::text || ':email.' || NEW.status
        );
        RETURN NULL;
    END
    $$
    """,
    "DROP TRIGGER IF EXISTS customer_message_live_update ON customer_messages",
    """
    CREATE TRIGGER customer_message_live_update
    AFTER UPDATE OF status, attempts ON customer_messages
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.attempts IS DISTINCT FROM NEW.attempts)
    EXECUTE FUNCTION customer_message_live()
    """,
    """
    CREATE OR REPLACE FUNCTION invoice_link_live() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
        order_id integer;
    BEGIN
        SELECT i."order" INTO order_id FROM invoices i WHERE i.id = NEW.invoice;
        IF order_id IS NOT NULL THEN
            PERFORM pg_notify(
                'pressline_live',
                NEW.workspace::text || ':0:' || order_id::text || ':invoice.'
                    || CASE WHEN TG_OP = 'INSERT' THEN 'emailed' ELSE 'opened' END
            );
        END IF;
        RETURN NULL;
    END
    $$
    """,
    "DROP TRIGGER IF EXISTS invoice_link_live_insert ON invoice_links",
    """
    CREATE TRIGGER invoice_link_live_insert
    AFTER INSERT ON invoice_links
    FOR EACH ROW EXECUTE FUNCTION invoice_link_live()
    """,
    "DROP TRIGGER IF EXISTS invoice_link_live ON invoice_links",
    """
    CREATE TRIGGER invoice_link_live
    AFTER UPDATE OF opened_at ON invoice_links
    FOR EACH ROW WHEN (OLD.opened_at IS NULL AND NEW.opened_at IS NOT NULL)
    EXECUTE FUNCTION invoice_link_live()
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
