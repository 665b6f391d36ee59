"""Stock movements (one row per change of a SKU's `on_hand` or `reserved`, with who, when and
why), the admin's one-time notices, and indexes for the admin's invoice list. Additive only;
no existing row changes.

Both tables and their indexes are made in one raw step: Piccolo runs raw steps before it adds
tables, and the index on (workspace, sku, at) must follow its table. The tables are created
from the frozen snapshots below through Piccolo, so the column types are the ones it would
choose on SQLite and PostgreSQL alike; the index is plain SQL valid on both. SKUs that already
hold stock get one `opening` movement with their levels."""

import datetime as dt

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns import ForeignKey, Integer, OnDelete, Serial, Text, Timestamptz, Varchar
from piccolo.columns.defaults.timestamptz import TimestamptzNow
from piccolo.table import Table

from models.db import engine

ID = "2026-11-25T10:10:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "stock movements and admin one-time notices"


class Workspace(Table, tablename="workspaces", schema=None):
    id = Serial(primary_key=True)


class User(Table, tablename="users", schema=None):
    id = Serial(primary_key=True)


class ApiToken(Table, tablename="api_tokens", schema=None):
    id = Serial(primary_key=True)


class Sku(Table, tablename="skus", schema=None):
    id = Serial(primary_key=True)


class Order(Table, tablename="orders", schema=None):
    id = Serial(primary_key=True)


class AdminSession(Table, tablename="admin_sessions", schema=None):
    id = Serial(primary_key=True)


class StockMovement(Table, tablename="stock_movements", schema=None):
    id = Serial(primary_key=True)
    workspace = ForeignKey(Workspace, on_delete=OnDelete.cascade)
    sku = ForeignKey(Sku, on_delete=OnDelete.cascade)
    at = Timestamptz(default=TimestamptzNow())
    kind = Varchar(length=20)
    delta_on_hand = Integer(default=0)
    delta_reserved = Integer(default=0)
    reason = Varchar(length=200, default="")
    order = ForeignKey(Order, null=True, on_delete=OnDelete.set_null)
    actor_kind = Varchar(length=10)
    user = ForeignKey(User, null=True, on_delete=OnDelete.set_null)
    token = ForeignKey(ApiToken, null=True, on_delete=OnDelete.set_null)


class AdminFlash(Table, tablename="admin_flashes", schema=None):
    id = Serial(primary_key=True)
    session = ForeignKey(AdminSession, on_delete=OnDelete.cascade)
    notice = Text(default="")
    secret = Text(null=True, default=None)
    details = Text(default="{}")
    created_at = Timestamptz(default=TimestamptzNow())


INDEXES = [
    "CREATE INDEX IF NOT EXISTS stock_movements_ws_sku_at ON stock_movements (workspace, sku, at)",
    'CREATE INDEX IF NOT EXISTS stock_movements_order ON stock_movements ("order")',
    "CREATE INDEX IF NOT EXISTS admin_flashes_session ON admin_flashes (session)",
    # The admin's invoice list: newest first, all or by status.
    "CREATE INDEX IF NOT EXISTS invoices_ws_created ON invoices (workspace, created_at, id)",
    "CREATE INDEX IF NOT EXISTS invoices_ws_status_created "
    "ON invoices (workspace, status, created_at, id)",
    "CREATE INDEX IF NOT EXISTS admin_flashes_created ON admin_flashes (created_at)",
]


OPENING = (
    "INSERT INTO stock_movements "
    "(workspace, sku, at, kind, delta_on_hand, delta_reserved, reason, actor_kind) "
    "SELECT workspace, id, {}, 'opening', on_hand, reserved, "
    "'levels when stock movements began to be recorded', 'operator' "
    "FROM skus WHERE (on_hand <> 0 OR reserved <> 0) "
    "AND NOT EXISTS (SELECT 1 FROM stock_movements m WHERE m.sku = skus.id)"
)


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    async def create() -> None:
        db = engine()
        for table in (StockMovement, AdminFlash):
            table._meta.db = db
            await table.create_table(if_not_exists=True)
        for statement in INDEXES:
            await db.run_ddl(statement)
        # Levels held before movements were recorded: one opening row each, so the sums of a
        # SKU's movements are its figures from the first day.
        await StockMovement.raw(OPENING, dt.datetime.now(dt.UTC))

    manager.add_raw(create)
    return manager
