"""Customer email and proofs: the workspace's Reply-To address and emailed stages, the sending
state of customer messages, staff notices, uploaded proofs and who approved the artwork.
Additive only; indexes and the fate of rows queued before email existed follow in the next
migration (Piccolo runs raw steps before tables)."""

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.base import OnDelete, OnUpdate
from piccolo.columns.column_types import (
    Bytea,
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

ID = "2026-11-25T10:20:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "customer email: sending state, staff notices, proofs"


class Workspace(Table, tablename="workspaces", schema=None):
    id = Serial(primary_key=True)


class Order(Table, tablename="orders", schema=None):
    id = Serial(primary_key=True)


class User(Table, tablename="users", schema=None):
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


def _foreign_key(references: type[Table], *, on_delete: OnDelete, index: bool) -> dict[str, Any]:
    return _params(
        references=references,
        on_delete=on_delete,
        on_update=OnUpdate.cascade,
        target_column=None,
        null=True,
        index=index,
    )


# The sending columns, the same on customer_messages and staff_notices.
SENDING: list[tuple[str, type, dict[str, Any]]] = [
    ("recipient", Varchar, _params(length=254, default="")),
    ("from_name", Varchar, _params(length=200, default="")),
    ("reply_to", Varchar, _params(length=254, default="")),
    ("message_id", Varchar, _params(length=255, default="")),
    ("body_html", Text, _params(default="")),
    ("attempts", Integer, _params(default=0)),
    ("next_attempt_at", Timestamptz, _params(default=TimestamptzNow())),
    ("lease_expires_at", Timestamptz, _params(default=None, null=True)),
    ("leased_by", Varchar, _params(length=100, default=None, null=True)),
    ("last_error", Text, _params(default=None, null=True)),
    ("reply", Text, _params(default=None, null=True)),
    ("transport", Varchar, _params(length=10, default=None, null=True)),
    ("sent_at", Timestamptz, _params(default=None, null=True)),
    ("updated_at", Timestamptz, _params(default=TimestamptzNow())),
]


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

    add("Workspace", "workspaces", "email", Varchar, _params(length=254, default=""))
    add(
        "Workspace",
        "workspaces",
        "mail_stages",
        Varchar,
        _params(length=200, default="in_production,dispatched"),
    )
    add("Artwork", "artwork", "approved_by", Varchar, _params(length=200, default=None, null=True))
    for name, column, params in SENDING:
        add("CustomerMessage", "customer_messages", name, column, params)

    manager.add_table(class_name="StaffNotice", tablename="staff_notices", schema=None)
    notice = ("StaffNotice", "staff_notices")
    add(*notice, "id", Serial, _params(primary_key=True))
    add(
        *notice,
        "workspace",
        ForeignKey,
        _foreign_key(Workspace, on_delete=OnDelete.cascade, index=True),
    )
    add(*notice, "user", ForeignKey, _foreign_key(User, on_delete=OnDelete.set_null, index=False))
    add(*notice, "kind", Varchar, _params(length=40, default=""))
    add(*notice, "subject", Varchar, _params(length=255, default=""))
    add(*notice, "body", Text, _params(default=""))
    add(*notice, "status", Varchar, _params(length=20, default="queued"))
    add(*notice, "created_at", Timestamptz, _params(default=TimestamptzNow()))
    for name, column, params in SENDING:
        add(*notice, name, column, params)

    manager.add_table(class_name="ArtworkProof", tablename="artwork_proofs", schema=None)
    proof = ("ArtworkProof", "artwork_proofs")
    add(*proof, "id", Serial, _params(primary_key=True))
    add(
        *proof,
        "workspace",
        ForeignKey,
        _foreign_key(Workspace, on_delete=OnDelete.cascade, index=True),
    )
    add(*proof, "order", ForeignKey, _foreign_key(Order, on_delete=OnDelete.cascade, index=True))
    add(*proof, "version", Integer, _params(default=0))
    add(*proof, "file_name", Varchar, _params(length=255, default=""))
    add(*proof, "content_type", Varchar, _params(length=50, default=""))
    add(*proof, "size", Integer, _params(default=0))
    add(*proof, "sha256", Varchar, _params(length=64, default=""))
    add(*proof, "data", Bytea, _params(default=b""))
    add(*proof, "note", Text, _params(default=""))
    add(
        *proof,
        "created_by",
        ForeignKey,
        _foreign_key(User, on_delete=OnDelete.set_null, index=False),
    )
    add(*proof, "created_at", Timestamptz, _params(default=TimestamptzNow()))
    add(*proof, "token_digest", Varchar, _params(length=64, default="", unique=True))
    add(*proof, "token_expires_at", Timestamptz, _params(default=TimestamptzNow()))
    add(*proof, "answer", Varchar, _params(length=20, default=None, null=True))
    add(*proof, "answered_at", Timestamptz, _params(default=None, null=True))
    add(*proof, "answered_name", Varchar, _params(length=200, default=None, null=True))
    add(*proof, "answered_from", Varchar, _params(length=100, default=None, null=True))
    add(*proof, "customer_comment", Text, _params(default=None, null=True))
    return manager
