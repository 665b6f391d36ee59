"""Customers written over the API: a customer's `external_ref` (unique in its
workspace, by the next migration's index) and its postal `addresses` (one default per
customer). Additive only: existing customers have no external_ref and no addresses."""

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.base import OnDelete, OnUpdate
from piccolo.columns.column_types import (
    Boolean,
    ForeignKey,
    Serial,
    Timestamptz,
    Varchar,
)
from piccolo.columns.defaults.timestamptz import TimestamptzNow
from piccolo.columns.indexes import IndexMethod
from piccolo.table import Table

ID = "2026-11-27T03:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "customers: external_ref, addresses"


class Workspace(Table, tablename="workspaces", schema=None):
    id = Serial(primary_key=True)


class Customer(Table, tablename="customers", schema=None):
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


def _foreign_key(references: type[Table]) -> dict[str, Any]:
    return _params(
        references=references,
        on_delete=OnDelete.cascade,
        on_update=OnUpdate.cascade,
        target_column=None,
        index=True,
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

    add(
        "Customer",
        "customers",
        "external_ref",
        Varchar,
        _params(length=100, default=None, null=True),
    )

    manager.add_table(class_name="Address", tablename="addresses", schema=None)
    address = ("Address", "addresses")
    add(*address, "id", Serial, _params(primary_key=True))
    add(*address, "workspace", ForeignKey, _foreign_key(Workspace))
    add(*address, "customer", ForeignKey, _foreign_key(Customer))
    for name, length in (("label", 100), ("name", 200), ("company", 200)):
        add(*address, name, Varchar, _params(length=length, default=""))
    add(*address, "line1", Varchar, _params(length=200, default=""))
    add(*address, "line2", Varchar, _params(length=200, default=""))
    add(*address, "city", Varchar, _params(length=100, default=""))
    add(*address, "region", Varchar, _params(length=100, default=""))
    add(*address, "postal_code", Varchar, _params(length=20, default=""))
    add(*address, "country", Varchar, _params(length=2, default=""))
    add(*address, "phone", Varchar, _params(length=50, default=""))
    add(*address, "is_default", Boolean, _params(default=False))
    add(*address, "created_at", Timestamptz, _params(default=TimestamptzNow()))
    return manager
