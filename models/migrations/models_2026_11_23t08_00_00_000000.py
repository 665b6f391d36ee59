"""The admin: each user's role and password hash, each token's last use, the admin's sessions
and the failed logins the throttle counts. Additive only; every user existing before this is
an owner (the column's default). Indexes follow in the next migration (Piccolo runs raw steps
before tables)."""

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.base import OnDelete, OnUpdate
from piccolo.columns.column_types import ForeignKey, Serial, Timestamptz, Varchar
from piccolo.columns.defaults.timestamptz import TimestamptzNow
from piccolo.columns.indexes import IndexMethod
from piccolo.table import Table

ID = "2026-11-23T08:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "admin: roles, passwords, sessions, failed logins"


class User(Table, tablename="users", schema=None):
    id = Serial(primary_key=True)


class Workspace(Table, tablename="workspaces", schema=None):
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

    add("User", "users", "role", Varchar, _params(length=10, default="owner"))
    add("User", "users", "password_hash", Varchar, _params(length=255, default=None, null=True))

    add(
        "ApiToken",
        "api_tokens",
        "last_used_at",
        Timestamptz,
        _params(default=None, null=True),
    )

    manager.add_table(class_name="AdminSession", tablename="admin_sessions", schema=None)
    add("AdminSession", "admin_sessions", "id", Serial, _params(primary_key=True))
    add("AdminSession", "admin_sessions", "digest", Varchar, _params(length=64, unique=True))
    add("AdminSession", "admin_sessions", "user", ForeignKey, _foreign_key(User))
    add("AdminSession", "admin_sessions", "workspace", ForeignKey, _foreign_key(Workspace))
    for name in ("created_at", "last_seen_at"):
        add("AdminSession", "admin_sessions", name, Timestamptz, _params(default=TimestamptzNow()))
    add(
        "AdminSession",
        "admin_sessions",
        "expires_at",
        Timestamptz,
        _params(default=TimestamptzNow()),
    )

    manager.add_table(class_name="FailedLogin", tablename="failed_logins", schema=None)
    add("FailedLogin", "failed_logins", "id", Serial, _params(primary_key=True))
    add("FailedLogin", "failed_logins", "email", Varchar, _params(length=254, default=""))
    add("FailedLogin", "failed_logins", "at", Timestamptz, _params(default=TimestamptzNow()))

    return manager
