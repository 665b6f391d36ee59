"""Order edits: the `order_edits` table, one row per edit of an order with
its revision, the fields it changed and who made it, kept as long as the order (the outbox's
`order.updated` events are pruned by retention). Additive only; models_2026_11_27t06_40_01
copies in the edits the outbox still holds and adds the (workspace, order) index."""

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.base import OnDelete, OnUpdate
from piccolo.columns.column_types import (
    ForeignKey,
    Integer,
    Serial,
    Text,
    Timestamptz,
    Varchar,
)
from piccolo.columns.defaults.timestamptz import TimestamptzNow
from piccolo.columns.indexes import IndexMethod
from piccolo.table import Table

ID = "2026-11-27T06:40:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "order edits: revision, changed fields and who"


class Workspace(Table, tablename="workspaces", schema=None):
    id = Serial(primary_key=True)


class Order(Table, tablename="orders", schema=None):
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

    def add(name: str, column: type, params: dict[str, Any]) -> None:
        manager.add_column(
            table_class_name="OrderEditRecord",
            tablename="order_edits",
            column_name=name,
            db_column_name=name,
            column_class_name=column.__name__,
            column_class=column,
            params=params,
            schema=None,
        )

    manager.add_table(class_name="OrderEditRecord", tablename="order_edits", schema=None)
    add("id", Serial, _params(primary_key=True))
    add("workspace", ForeignKey, _foreign_key(Workspace, OnDelete.cascade, index=True))
    add("order", ForeignKey, _foreign_key(Order, OnDelete.cascade, index=False))
    add("revision", Integer, _params(default=0))
    add("changed", Text, _params(default="[]"))
    add("actor_kind", Varchar, _params(length=10, default=""))
    add("user", ForeignKey, _foreign_key(User, OnDelete.set_null, index=False))
    add("token", ForeignKey, _foreign_key(ApiToken, OnDelete.set_null, index=False))
    add("created_at", Timestamptz, _params(default=TimestamptzNow()))
    return manager
