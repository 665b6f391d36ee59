"""Where an order is shipped: an address copied onto the order when it is
created or edited — given in full, named among the customer's addresses, or (at creation,
when neither is given) the customer's default address — so changing the customer's addresses
later never moves an order already placed. An edit may also give only some of the fields
(`AddressPatch`): they are merged into the order's copy, which is then checked whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from models import statements
from models.customers.addresses import LIMITS, NewAddress
from models.errors import InvalidFields
from models.filters import MAX_ID

# What an order keeps of an address (its label and default flag are the customer's).
FIELDS = tuple(field for field in LIMITS if field != "label")
# The fields a whole address has (line1, city, country): never blank on an order's copy.
REQUIRED = tuple(field for field in FIELDS if LIMITS[field][1])
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


@dataclass(frozen=True)
class AddressPatch:
    """A change of an order's ship-to as a JSON merge patch (RFC 7396): each field named is
    set to its value, or cleared by None; a field not named stays as the order has it. An
    order without a ship-to is patched from an empty address."""

    values: Mapping[str, str | None]

    @classmethod
    def whole(cls, address: NewAddress) -> AddressPatch:
        """A full address as the patch naming every field: it merges to that address, whatever
        the order had."""
        return cls({field: getattr(address, field) for field in FIELDS})

    def merged(
        self, stored: str | dict[str, str] | None, prefix: str = "ship_to."
    ) -> dict[str, str]:
        """The order's copy (`stored`) with this patch applied, checked whole as a given address
        is: a required field left blank (cleared, or never there) is "required", every error
        keyed `{prefix}{field}`. Raises InvalidFields, with every problem found."""
        unknown = sorted(set(self.values) - set(FIELDS))
        if unknown:
            raise InvalidFields(
                {f"{prefix}{name}": [f"{name} is not a field of an address."] for name in unknown}
            )
        address: dict[str, Any] = dict.fromkeys(FIELDS, "") | {
            field: value for field, value in (decode(stored) or {}).items() if field in FIELDS
        }
        for field, value in self.values.items():
            address[field] = "" if value is None else value
        errors = {
            f"{prefix}{field}": [f"The {prefix}{field} field is required."]
            for field in REQUIRED
            if not address[field].strip()
        }
        try:
            checked = NewAddress(**address).check(prefix)
        except InvalidFields as invalid:
            for key, messages in invalid.errors.items():
                errors.setdefault(key, [f"The {key} field {message}." for message in messages])
        if errors:
            raise InvalidFields(errors)
        return {field: getattr(checked, field) for field in FIELDS}
