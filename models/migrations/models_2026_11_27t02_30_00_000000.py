"""Print jobs: garments on orders (`order_items`), their imprints
(`order_imprints`), the item each line was made from (`order_lines.item`) and the order's
`revision`. Additive only: existing orders are at revision 1 with no items."""

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.base import OnDelete, OnUpdate
from piccolo.columns.column_types import (
    JSON,
    BigInt,
    ForeignKey,
    Integer,
    Serial,
    Text,
    Varchar,
)
from piccolo.columns.indexes import IndexMethod
from piccolo.table import Table

ID = "2026-11-27T02:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "print jobs: order items, imprints, line items, order revision"


class Workspace(Table, tablename="workspaces", schema=None):
    id = Serial(primary_key=True)


class Order(Table, tablename="orders", schema=None):
    id = Serial(primary_key=True)


class OrderItem(Table, tablename="order_items", schema=None):
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
        null=True,
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

    add("Order", "orders", "revision", Integer, _params(default=1))

    manager.add_table(class_name="OrderItem", tablename="order_items", schema=None)
    item = ("OrderItem", "order_items")
    add(*item, "id", Serial, _params(primary_key=True))
    add(*item, "workspace", ForeignKey, _foreign_key(Workspace))
    add(*item, "order", ForeignKey, _foreign_key(Order))
    add(*item, "position", Integer, _params(default=0))
    add(*item, "style", Varchar, _params(length=100, default=""))
    add(*item, "colour", Varchar, _params(length=50, default=""))
    add(*item, "description", Varchar, _params(length=200, default=""))
    add(*item, "sizes", JSON, _params(default="{}"))
    add(*item, "unit_price_cents", BigInt, _params(default=0))
    add(*item, "size_upcharges_cents", JSON, _params(default="{}"))

    manager.add_table(class_name="OrderImprint", tablename="order_imprints", schema=None)
    imprint = ("OrderImprint", "order_imprints")
    add(*imprint, "id", Serial, _params(primary_key=True))
    add(*imprint, "workspace", ForeignKey, _foreign_key(Workspace))
    add(*imprint, "order", ForeignKey, _foreign_key(Order))
    add(*imprint, "item", ForeignKey, _foreign_key(OrderItem))
    add(*imprint, "position", Integer, _params(default=0))
    add(*imprint, "location", Varchar, _params(length=20, default=""))
    add(*imprint, "method", Varchar, _params(length=20, default=""))
    add(*imprint, "colours", Integer, _params(default=None, null=True))
    add(*imprint, "colour_names", JSON, _params(default="[]"))
    add(*imprint, "stitches", Integer, _params(default=None, null=True))
    add(*imprint, "width_mm", Integer, _params(default=None, null=True))
    add(*imprint, "height_mm", Integer, _params(default=None, null=True))
    add(*imprint, "notes", Text, _params(default=""))
    add(*imprint, "unit_price_cents", BigInt, _params(default=0))
    add(*imprint, "setup_cents", BigInt, _params(default=0))

    add("OrderLine", "order_lines", "item", ForeignKey, _foreign_key(OrderItem))
    return manager
