"""Payments: the `payments` table, and on invoices the due date from the
customer's payment terms (`due_at`) and the sum of the payments (`paid_cents`). Additive only;
models_2026_11_27t03_20_01 fills both in for invoices issued before."""

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.base import OnDelete, OnUpdate
from piccolo.columns.column_types import (
    BigInt,
    ForeignKey,
    Serial,
    Timestamptz,
    Varchar,
)
from piccolo.columns.defaults.timestamptz import TimestamptzNow
from piccolo.columns.indexes import IndexMethod
from piccolo.table import Table

ID = "2026-11-27T03:20:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "payments; invoice due date and amount paid"


class Workspace(Table, tablename="workspaces", schema=None):
    id = Serial(primary_key=True)


class Invoice(Table, tablename="invoices", schema=None):
    id = Serial(primary_key=True)


class User(Table, tablename="users", schema=None):
    id = Serial(primary_key=True)


class ApiToken(Table, tablename="api_tokens", schema=None):
    id = Serial(primary_key=True)


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


def _foreign_key(references: type[Table], on_delete: OnDelete, *, index: bool) -> dict[str, Any]:
    return _params(
        references=references,
        on_delete=on_delete,
        on_update=OnUpdate.cascade,
        target_column=None,
        null=True,
        index=index,
    )


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    def add(table: str, tablename: str, name: str, column: type, params: dict[str, Any]) -> None:
        manager.add_column(
            table_class_name=table,
            tablename=tablename,
            column_name=name,
            db_column_name=name,
            column_class_name=column.__name__,
            column_class=column,
            params=params,
            schema=None,
        )

    add("Invoice", "invoices", "due_at", Timestamptz, _params(default=None, null=True))
    add("Invoice", "invoices", "paid_cents", BigInt, _params(default=0))

    manager.add_table(class_name="Payment", tablename="payments", schema=None)
    payment = ("Payment", "payments")
    add(*payment, "id", Serial, _params(primary_key=True))
    add(*payment, "workspace", ForeignKey, _foreign_key(Workspace, OnDelete.cascade, index=True))
    add(*payment, "invoice", ForeignKey, _foreign_key(Invoice, OnDelete.cascade, index=True))
    add(*payment, "amount_cents", BigInt, _params(default=0))
    add(*payment, "method", Varchar, _params(length=20, default=""))
    add(*payment, "reference", Varchar, _params(length=100, default=None, null=True))
    add(*payment, "paid_at", Timestamptz, _params(default=TimestamptzNow()))
    add(*payment, "created_at", Timestamptz, _params(default=TimestamptzNow()))
    add(*payment, "actor_kind", Varchar, _params(length=10, default=""))
    add(*payment, "user", ForeignKey, _foreign_key(User, OnDelete.set_null, index=False))
    add(*payment, "token", ForeignKey, _foreign_key(ApiToken, OnDelete.set_null, index=False))
    return manager
