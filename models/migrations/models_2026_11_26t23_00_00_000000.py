"""The webhook claim driven by work due now, not by the subscriptions waiting (PostgreSQL).

The claim looked at every active subscription with room and probed its deliveries for one due
now, so its cost grew with the subscriptions backing off (0.9 ms at 10, 5.6 ms at 10,000
subscriptions each holding a retry due later). Each subscription now carries `next_due_at`,
never later than the earliest `next_attempt_at` of its pending deliveries not leased: a
trigger lowers it whenever a delivery becomes (or stays) pending and unleased (queued, retried,
released, redelivered, requeued), and only a claim raises it, for the subscriptions it has
locked, from a fresh snapshot (`webhook_next_due`, VOLATILE: it sees what committed before the
lock, and a delivery inserted later waits for the claim's lock through its foreign key, then
its trigger lowers the value again). The claim walks `subscriptions_due` — active
subscriptions by `next_due_at` — and stops at the first not due: its cost follows the work due
now (daemon/claim.py, PG_CLAIM). `webhook_unwritten` counts, under the same lock, a worker's
finished successes whose results are not written yet: they free their subscription's cap.

PostgreSQL only: SQLite keeps its simpler claim (one worker per database), and its schema is
unchanged."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine, is_postgres

ID = "2026-11-26T23:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhook claim driven by each subscription's next due delivery (PostgreSQL)"

POSTGRES_ONLY = [
    "ALTER TABLE webhook_subscriptions ADD COLUMN IF NOT EXISTS next_due_at TIMESTAMPTZ",
    # Lowers a subscription's next_due_at to a delivery that is pending and not leased. Fired
    # only for such rows (the WHEN clause), so claims and successes never call it.
    """
    CREATE OR REPLACE FUNCTION webhook_delivery_due() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE webhook_subscriptions SET next_due_at = NEW.next_attempt_at
        WHERE id = NEW.subscription
          AND (next_due_at IS NULL OR next_due_at > NEW.next_attempt_at);
        RETURN NULL;
    END
    $$
    """,
    "DROP TRIGGER IF EXISTS webhook_delivery_due ON webhook_deliveries",
    """
    CREATE TRIGGER webhook_delivery_due
    AFTER INSERT OR UPDATE ON webhook_deliveries
    FOR EACH ROW WHEN (NEW.status = 'pending' AND NEW.leased_by IS NULL)
    EXECUTE FUNCTION webhook_delivery_due()
    """,
    # The earliest pending, unleased delivery of a subscription but `taken` (those a claim is
    # leasing), read with a snapshot of its own: VOLATILE, so it sees every delivery committed
    # before the calling claim locked the subscription.
    """
    CREATE OR REPLACE FUNCTION webhook_next_due(sub integer, taken integer[])
    RETURNS timestamptz LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
        RETURN (
            SELECT d.next_attempt_at FROM webhook_deliveries d
            WHERE d.subscription = sub AND d.status = 'pending' AND d.leased_by IS NULL
              AND d.id <> ALL(taken)
            ORDER BY d.next_attempt_at, d.id
            LIMIT 1
        );
    END
    $$
    """,
    # How many of `ids` (with their `leases`) are still leased by `worker` to `sub`, pending:
    # a worker's finished successes whose results are not written yet. Called by a claim
    # that holds the subscription's lock, with a snapshot of its own: a result written before
    # the lock is seen (and is in in_flight already), one written after it cannot commit
    # before the claim does (writing results locks the subscription).
    """
    CREATE OR REPLACE FUNCTION webhook_unwritten(
        sub integer, worker text, now timestamptz, ids integer[], leases timestamptz[]
    ) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
        RETURN (
            SELECT COUNT(*) FROM unnest(ids, leases) AS f(id, lease)
            JOIN webhook_deliveries d ON d.id = f.id
            WHERE d.subscription = sub AND f.lease > now AND d.lease_expires_at = f.lease
              AND d.leased_by = worker AND d.status = 'pending'
        );
    END
    $$
    """,
    "CREATE INDEX IF NOT EXISTS subscriptions_due ON webhook_subscriptions (next_due_at, id) "
    "WHERE is_active AND next_due_at IS NOT NULL",
    """
    UPDATE webhook_subscriptions s SET next_due_at = (
        SELECT min(d.next_attempt_at) FROM webhook_deliveries d
        WHERE d.subscription = s.id AND d.status = 'pending' AND d.leased_by IS NULL
    )
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
