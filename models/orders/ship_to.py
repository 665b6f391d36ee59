"""Where an order is shipped: an address copied onto the order when it is
created or edited — given in full, named among the customer's addresses, or (at creation,
when neither is given) the customer's default address — so changing the customer's addresses
later never moves an order already placed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from models import statements
from models.customers.addresses import LIMITS, NewAddress
from models.errors import InvalidFields
from models.filters import MAX_ID

# What an order keeps of an address (its label and default flag are the customer's).
FIELDS = tuple(field for field in LIMITS if field != "label")
_COLUMNS = ", ".join(FIELDS)
_BY_ID = statements.Sql(
    f"SELECT {_COLUMNS} FROM addresses WHERE workspace = $1 AND customer = $2 AND id = $3"  # noqa: S608
)
_JSON = msgspec.json.Encoder()
_READ = msgspec.json.Decoder(dict[str, str])


def encode(address: dict[str, str] | None) -> str | None:
    return None if address is None else _JSON.encode(address).decode()


def decode(stored: str | dict[str, str] | None) -> dict[str, str] | None:
    """The stored copy (text on SQLite and from asyncpg's `json`)."""
    if stored is None or isinstance(stored, dict):
        return stored
    return _READ.decode(stored)


async def resolve(
    conn: statements.Reader,
    workspace_id: int,
    customer_id: int,
    *,
    given: NewAddress | None,
    address_id: int | None,
    fallback: dict[str, str] | None,
) -> dict[str, str] | None:
    """The copy to keep: `given` (checked, errors under `ship_to.`), the customer's address
    `address_id`, else `fallback` (at creation, the customer's default address, or None)."""
    if given is not None:
        checked = given.check("ship_to.")
        return {field: getattr(checked, field) for field in FIELDS}
    if address_id is not None:
        row = None
        if 0 < address_id <= MAX_ID:
            row = await conn.row(_BY_ID, workspace_id, customer_id, address_id)
        if row is None:
            raise InvalidFields(
                {"ship_to_address_id": ["The selected ship_to_address_id is invalid."]}
            )
        return copy(row)
    return fallback


def copy(row: Sequence[Any]) -> dict[str, str]:
    """An address's FIELDS, as selected in that order, as an order keeps them."""
    return {field: str(value or "") for field, value in zip(FIELDS, row, strict=True)}
