"""Invoices issued before payments existed: a paid one has been paid its total, and each is
due by its customer's payment terms counted from its issue (models/invoices/terms.py), as
later invoices are; plus the index behind `GET /v1/invoices?updated_since=`. Plain SQL, one
form per engine for the date arithmetic."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from models.db import engine, is_postgres

ID = "2026-11-27T03:20:01:000000"
VERSION = "1.38.0"
DESCRIPTION = "invoices: due dates and amounts paid before payments"

# The days of each payment-terms code (models/invoices/terms.py), as SQL.
DAYS = (
    "CASE c.payment_terms WHEN 'net_7' THEN 7 WHEN 'net_15' THEN 15 WHEN 'net_30' THEN 30 "
    "WHEN 'net_60' THEN 60 ELSE 0 END"
)
PAID = "UPDATE invoices SET paid_cents = total_cents WHERE status = 'paid' AND paid_cents = 0"
POSTGRES_DUE = f"""
    UPDATE invoices i SET due_at = i.issued_at + make_interval(days => {DAYS})
    FROM customers c WHERE c.id = i.customer AND i.due_at IS NULL AND i.issued_at IS NOT NULL
"""  # noqa: S608 - constant fragments
# SQLite keeps timestamps as fixed-width UTC text ("2026-11-22 10:15:00.123456+00:00",
# models/db.py): the date and time move by the days, the fraction and offset stay.
SQLITE_DUE = f"""
    UPDATE invoices SET due_at = (
        SELECT datetime(substr(invoices.issued_at, 1, 19), '+' || ({DAYS}) || ' days')
            || substr(invoices.issued_at, 20)
        FROM customers c WHERE c.id = invoices.customer
    )
    WHERE due_at IS NULL AND issued_at IS NOT NULL
"""  # noqa: S608 - constant fragments
INDEX = "CREATE INDEX IF NOT EXISTS invoices_ws_updated ON invoices (workspace, updated_at, id)"


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def fill() -> None:
        db = engine()
        await db.run_ddl(PAID)
        await db.run_ddl(POSTGRES_DUE if is_postgres() else SQLITE_DUE)
        await db.run_ddl(INDEX)

    manager.add_raw(fill)
    return manager
