"""A customer's postal addresses, and the rule that exactly one of them is the default
whenever any exist (orders without a ship-to take it), the same rule as the primary contact:

- the first address a customer gets is the default, whatever was asked;
- making an address the default makes the previous one an ordinary address;
- the default stays so until another is made default or it is removed;
- removing the default promotes the oldest remaining address.

Every change locks the customer's row first (PostgreSQL), so concurrent changes cannot leave
two defaults or none, moves the customer's `updated_at` and records `customer.updated`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from models import clock, db
from models.accounts import known_id
from models.customers.changes import Precondition, changed, lock_customer
from models.errors import FieldErrors, NotFoundError
from models.tables import Address

COUNTRY = re.compile(r"[A-Z]{2}")
# Field → (longest text, required): the columns of models/tables.py Address.
LIMITS = {
    "label": (100, False),
    "name": (200, False),
    "company": (200, False),
    "line1": (200, True),
    "line2": (200, False),
    "city": (100, True),
    "region": (100, False),
    "postal_code": (20, False),
    "country": (2, True),
    "phone": (50, False),
}


@dataclass(frozen=True)
class NewAddress:
    """An address as typed; `check` gives it back trimmed or raises InvalidFields."""

    line1: str
    city: str
    country: str
    label: str = ""
    name: str = ""
    company: str = ""
    line2: str = ""
    region: str = ""
    postal_code: str = ""
    phone: str = ""
    default: bool = False

    def check(self, prefix: str = "") -> NewAddress:
        errors = FieldErrors()
        values: dict[str, Any] = {}
        for field, (length, required) in LIMITS.items():
            values[field] = errors.text(
                f"{prefix}{field}", getattr(self, field), length, required=required
            )
        if f"{prefix}country" not in errors.errors and not COUNTRY.fullmatch(values["country"]):
            errors.add(f"{prefix}country", "must be an ISO 3166-1 alpha-2 code in upper case (GB)")
        errors.check()
        return replace(self, **values)

    def columns(self) -> dict[str, Any]:
        """The address's text columns (all but `default`)."""
        return {field: getattr(self, field) for field in LIMITS}


async def _unset_default(customer_id: int) -> None:
    await Address.update({Address.is_default: False}).where(
        (Address.customer == customer_id) & (Address.is_default == True)  # noqa: E712 - SQL
    )


async def insert_address(workspace_id: int, customer_id: int, address: NewAddress) -> Address:
    """Write a checked address of a locked customer (the caller's transaction)."""
    default = address.default or not await Address.exists().where(Address.customer == customer_id)
    if default:
        await _unset_default(customer_id)
    values: dict[str, Any] = {
        **address.columns(),
        "workspace": workspace_id,
        "customer": customer_id,
        "is_default": default,
        "created_at": clock.now(),
    }
    row = Address(**values)
    await row.save()
    return row


async def add_address(
    *,
    workspace_id: int,
    customer_id: int,
    address: NewAddress,
    precondition: Precondition | None = None,
) -> Address:
    """A new address; the default when asked or when it is the customer's first."""
    address = address.check()

    async def write() -> Address:
        await lock_customer(customer_id, workspace_id)
        if precondition is not None:
            await precondition()
        row = await insert_address(workspace_id, customer_id, address)
        await changed(customer_id)
        return row

    return await db.atomic(write)


async def find_address(workspace_id: int, customer_id: int, address_id: int) -> Address:
    """The customer's address, in that workspace (NotFoundError otherwise)."""
    row = None
    if known_id(address_id):
        row = (
            await Address.objects()
            .where(
                (Address.id == address_id)
                & (Address.customer == customer_id)
                & (Address.workspace == workspace_id)
            )
            .first()
        )
    if row is None:
        raise NotFoundError(f"address {address_id} not found")
    return row


async def edit_address(
    *,
    workspace_id: int,
    customer_id: int,
    address_id: int,
    changes: dict[str, str],
    default: bool = False,
    precondition: Precondition | None = None,
) -> Address:
    """New values for the fields in `changes` (the others stay); `default` makes it the
    customer's default address (never unmakes it)."""

    async def write() -> Address:
        await lock_customer(customer_id, workspace_id)
        row = await find_address(workspace_id, customer_id, address_id)
        if precondition is not None:
            await precondition()
        current = {field: getattr(row, field) for field in LIMITS}
        address = NewAddress(**{**current, **changes}).check()
        if default and not row.is_default:
            await _unset_default(customer_id)
        for field, value in address.columns().items():
            setattr(row, field, value)
        row.is_default = bool(row.is_default) or default
        await row.save()
        await changed(customer_id)
        return row

    return await db.atomic(write)


async def remove_address(
    *,
    workspace_id: int,
    customer_id: int,
    address_id: int,
    precondition: Precondition | None = None,
) -> Address | None:
    """Delete an address; when it was the default the oldest remaining one becomes the
    default (returned, else None)."""

    async def write() -> Address | None:
        await lock_customer(customer_id, workspace_id)
        row = await find_address(workspace_id, customer_id, address_id)
        if precondition is not None:
            await precondition()
        await Address.delete().where(Address.id == address_id)
        promoted = None
        if row.is_default:
            promoted = (
                await Address.objects()
                .where(Address.customer == customer_id)
                .order_by(Address.created_at)
                .order_by(Address.id)
                .first()
            )
            if promoted is not None:
                promoted.is_default = True
                await promoted.save()
        await changed(customer_id)
        return promoted

    return await db.atomic(write)
