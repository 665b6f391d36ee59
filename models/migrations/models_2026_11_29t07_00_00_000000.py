"""Recording an event no longer locks its subscriptions (PostgreSQL).

A subscription's `next_due_at` (never later than its earliest pending, unleased delivery: what
lets a claim walk only the work due now) was lowered by a row trigger on `webhook_deliveries`
that updated the subscription — inside the transaction of the change that recorded the event.
That took a row lock on subscriptions the worker locks too, in whatever order the events of
the transaction came, so web requests and the worker's result writes deadlocked on a busy day.

Now the trigger only appends to `webhook_due_marks` (subscription, due_at): an insert waits on
no one. The worker folds the marks into `next_due_at` before each claim, locking the
subscriptions in id order as every worker statement does (daemon/claim.py, FOLD_DUE). A mark
commits with its delivery, so a delivery a claim's snapshot missed is folded by the next one.
`webhook_unwritten` goes: an attempt's slot is now freed only when its result is written.

PostgreSQL only, like `next_due_at`: SQLite has one worker and claims without it."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine, is_postgres

ID = "2026-11-29T07:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "webhook due marks: recording an event takes no subscription lock (PostgreSQL)"

POSTGRES_ONLY = [
    """
    CREATE TABLE IF NOT EXISTS webhook_due_marks (
        id BIGSERIAL PRIMARY KEY,
        subscription INTEGER NOT NULL
            REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
        due_at TIMESTAMPTZ NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS webhook_due_marks_subscription ON webhook_due_marks (subscription)",
    # Fired only for rows that are pending and not leased (the WHEN clause), so claims and
    # successes never call it.
    """
    CREATE OR REPLACE FUNCTION webhook_delivery_due() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO webhook_due_marks (subscription, due_at)
        VALUES (NEW.subscription, NEW.next_attempt_at);
        RETURN NULL;
    END
    $$
    """,
    "DROP FUNCTION IF EXISTS webhook_unwritten(integer, text, timestamptz, integer[], "
    "timestamptz[])",
]


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def change() -> None:
        if is_postgres():
            for statement in POSTGRES_ONLY:
                await engine().run_ddl(statement)

    manager.add_raw(change)
    return manager
