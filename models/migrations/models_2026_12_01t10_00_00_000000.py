"""Prices the shop sets once: the workspace's price list and where each price came from.

- `workspaces.pricing`: the price list (matrices, setups, garment markups, size upcharges) as
  JSON; NULL for a workspace made before price lists, which prices as before (an item's price
  typed, imprints and setups 0 unless typed) until its price list is first saved.
- `workspaces.prices_include_tax` and `orders.prices_include_tax`: line prices are gross.
- `order_items.unit_price_typed`, `order_imprints.unit_price_typed` and `.setup_typed`: the
  price was typed (kept on every edit) or computed from the price list (computed again when
  the order's content changes). Every price stored before this migration was typed.
- `order_imprints.design`: imprints of one design share a price break and one setup.
- `order_lines.price_source` (`typed` | `price_list`) and `.price_breakdown` (JSON).

Additive only."""

from typing import Any

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.columns.column_types import JSON, Boolean, Varchar
from piccolo.columns.indexes import IndexMethod

ID = "2026-12-01T10:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "price lists: the workspace's document, typed or computed prices, breakdowns"


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

    workspaces = ("Workspace", "workspaces")
    add(*workspaces, "pricing", JSON, _params(default=None, null=True))
    add(*workspaces, "prices_include_tax", Boolean, _params(default=False))
    add("Order", "orders", "prices_include_tax", Boolean, _params(default=False))
    add("OrderItem", "order_items", "unit_price_typed", Boolean, _params(default=True))
    imprints = ("OrderImprint", "order_imprints")
    add(*imprints, "unit_price_typed", Boolean, _params(default=True))
    add(*imprints, "setup_typed", Boolean, _params(default=True))
    add(*imprints, "design", Varchar, _params(length=100, default=None, null=True))
    lines = ("OrderLine", "order_lines")
    add(*lines, "price_source", Varchar, _params(length=10, default="typed"))
    add(*lines, "price_breakdown", JSON, _params(default=None, null=True))
    return manager
