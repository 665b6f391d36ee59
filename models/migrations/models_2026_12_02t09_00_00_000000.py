"""Voided payments: a payment recorded by mistake (a bounced cheque, a charge refunded, the
wrong invoice) is voided, never deleted, so the invoice keeps the story of its money.

- `payments.voided_at`: when it was voided; NULL for a payment that counts.
- `payments.voided_by`: the user who voided it (the token's user through the API); NULL for
  an operator at a shell, and once that user is deleted.
- `payments.void_reason`: why, as typed (1 to 500 characters); NULL until voided.

Additive only: every payment recorded before counts, as it did."""

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.base import OnDelete, OnUpdate
from piccolo.columns.column_types import ForeignKey, Serial, Timestamptz, Varchar
from piccolo.columns.indexes import IndexMethod
from piccolo.table import Table

ID = "2026-12-02T09:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "payments: voided_at, voided_by, void_reason"


class User(Table, tablename="users", schema=None):
    id = Serial(primary_key=True)


def _params(**given: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        "null": True,
        "primary_key": False,
        "unique": False,
        "index": False,
        "index_method": IndexMethod.btree,
        "choices": None,
        "db_column_name": None,
        "secret": False,
        "default": None,
    }
    params.update(given)
    return params


async def forwards() -> MigrationManager:
    manager = MigrationManager(migration_id=ID, app_name="models", description=DESCRIPTION)

    def add(name: str, column: type, params: dict[str, Any]) -> None:
        manager.add_column(
            table_class_name="Payment",
            tablename="payments",
            column_name=name,
            db_column_name=name,
            column_class_name=column.__name__,
            column_class=column,
            params=params,
            schema=None,
        )

    add("voided_at", Timestamptz, _params())
    voided_by = _params(
        references=User, on_delete=OnDelete.set_null, on_update=OnUpdate.cascade,
        target_column=None,
    )  # fmt: skip
    add("voided_by", ForeignKey, voided_by)
    add("void_reason", Varchar, _params(length=500))
    return manager
