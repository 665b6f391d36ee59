"""Invoices as tax documents: what they say of the shop, the rate an order was taxed at, and the
customer's links to an invoice's own page.

- `invoice_settings`: one row per workspace (legal name, address, tax number and label, bank
  details, footer, logo), made when Settings → Invoices is first saved; until then an invoice
  names the shop by its workspace name.
- `orders.tax_rate`: the rate the order's tax was computed at, written with its totals; NULL
  for orders priced before (their invoices give the tax label without a rate).
- `invoice_links`: each "Email invoice" link, as the SHA-256 of its token.

Additive only."""

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.base import OnDelete, OnUpdate
from piccolo.columns.column_types import (
    Bytea,
    ForeignKey,
    Numeric,
    Serial,
    Text,
    Timestamptz,
    Varchar,
)
from piccolo.columns.defaults.timestamptz import TimestamptzNow
from piccolo.columns.indexes import IndexMethod
from piccolo.table import Table

ID = "2026-12-02T10:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "invoices as tax documents: invoice settings, orders' tax rate, invoice links"


class Workspace(Table, tablename="workspaces", schema=None):
    id = Serial(primary_key=True)


class Invoice(Table, tablename="invoices", schema=None):
    id = Serial(primary_key=True)


class CustomerMessage(Table, tablename="customer_messages", schema=None):
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


def _foreign_key(
    references: type[Table], *, on_delete: OnDelete, index: bool, unique: bool = False
) -> dict[str, Any]:
    return _params(
        references=references,
        on_delete=on_delete,
        on_update=OnUpdate.cascade,
        target_column=None,
        null=True,
        index=index,
        unique=unique,
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

    add("Order", "orders", "tax_rate", Numeric, _params(default=None, digits=(5, 2), null=True))

    manager.add_table(class_name="InvoiceSettings", tablename="invoice_settings", schema=None)
    settings = ("InvoiceSettings", "invoice_settings")
    add(*settings, "id", Serial, _params(primary_key=True))
    workspace = _foreign_key(Workspace, on_delete=OnDelete.cascade, index=False, unique=True)
    add(*settings, "workspace", ForeignKey, workspace)
    add(*settings, "legal_name", Varchar, _params(length=200, default=""))
    add(*settings, "address_line1", Varchar, _params(length=200, default=""))
    add(*settings, "address_line2", Varchar, _params(length=200, default=""))
    add(*settings, "city", Varchar, _params(length=100, default=""))
    add(*settings, "postcode", Varchar, _params(length=20, default=""))
    add(*settings, "country", Varchar, _params(length=100, default=""))
    add(*settings, "tax_number", Varchar, _params(length=50, default=""))
    add(*settings, "tax_label", Varchar, _params(length=20, default="Tax"))
    add(*settings, "bank_details", Text, _params(default=""))
    add(*settings, "footer", Text, _params(default=""))
    add(*settings, "logo", Bytea, _params(default=None, null=True))
    add(*settings, "logo_type", Varchar, _params(length=20, default=None, null=True))
    add(*settings, "logo_sha256", Varchar, _params(length=64, default=None, null=True))
    add(*settings, "updated_at", Timestamptz, _params(default=TimestamptzNow()))

    manager.add_table(class_name="InvoiceLink", tablename="invoice_links", schema=None)
    link = ("InvoiceLink", "invoice_links")
    add(*link, "id", Serial, _params(primary_key=True))
    add(
        *link,
        "workspace",
        ForeignKey,
        _foreign_key(Workspace, on_delete=OnDelete.cascade, index=True),
    )
    add(*link, "invoice", ForeignKey, _foreign_key(Invoice, on_delete=OnDelete.cascade, index=True))
    add(
        *link,
        "message",
        ForeignKey,
        _foreign_key(CustomerMessage, on_delete=OnDelete.set_null, index=True),
    )
    add(*link, "token_digest", Varchar, _params(length=64, default="", unique=True))
    add(
        *link,
        "created_by",
        ForeignKey,
        _foreign_key(User, on_delete=OnDelete.set_null, index=False),
    )
    add(*link, "created_at", Timestamptz, _params(default=TimestamptzNow()))
    add(*link, "expires_at", Timestamptz, _params(default=TimestamptzNow()))
    add(*link, "opened_at", Timestamptz, _params(default=None, null=True))
    return manager
