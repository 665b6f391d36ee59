"""Recorded artwork approvals: an approval given outside the proof page (at checkout, by
phone) and recorded by staff, an integration or an operator.

- `artwork.approval_source` (`customer` | `recorded`) and `artwork.approval_note`, beside
  `approved_by`, say how the current approval was given; NULL until approved. Approvals made
  before this migration keep NULL: how they were given was not recorded.
- `artwork_approvals`: one row per recorded approval (the version approved, the approver's
  name, a note, who recorded it), kept as long as the order for its timeline.

Additive only."""

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

ID = "2026-11-30T12:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "recorded artwork approvals: source and note of the approval, approvals table"


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

    artwork = ("Artwork", "artwork")
    add(*artwork, "approval_source", Varchar, _params(length=20, default=None, null=True))
    add(*artwork, "approval_note", Text, _params(default=None, null=True))

    manager.add_table(class_name="ArtworkApproval", tablename="artwork_approvals", schema=None)
    approval = ("ArtworkApproval", "artwork_approvals")
    add(*approval, "id", Serial, _params(primary_key=True))
    add(*approval, "workspace", ForeignKey, _foreign_key(Workspace, OnDelete.cascade, index=True))
    add(*approval, "order", ForeignKey, _foreign_key(Order, OnDelete.cascade, index=True))
    add(*approval, "version", Integer, _params(default=0))
    add(*approval, "approved_by", Varchar, _params(length=200, default=""))
    add(*approval, "note", Text, _params(default=""))
    add(*approval, "actor_kind", Varchar, _params(length=10, default=""))
    add(*approval, "user", ForeignKey, _foreign_key(User, OnDelete.set_null, index=False))
    add(*approval, "token", ForeignKey, _foreign_key(ApiToken, OnDelete.set_null, index=False))
    add(*approval, "created_at", Timestamptz, _params(default=TimestamptzNow()))
    return manager
