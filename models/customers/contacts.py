"""A customer's contacts, and the rule that exactly one of them is primary whenever any exist
(stage messages and proofs go to the primary contact).

- the first contact a customer gets is primary, whatever was asked;
- making a contact primary makes the previous one an ordinary contact, in one transaction;
- a primary contact stays primary until another is made primary or it is removed (unticking
  "primary" on it changes nothing: some contact must be primary);
- removing the primary contact promotes the oldest remaining one.

The admin's contact forms, the API and `pressline contact add` call these functions. Every
change locks the customer's row first (PostgreSQL), so two concurrent changes cannot leave two
primaries or none; SQLite's write transactions are serial anyway. Each change moves the
customer's `updated_at` and records `customer.updated`.
"""

from __future__ import annotations

from dataclasses import dataclass

from models import clock, db
from models.accounts import known_id
from models.customers.changes import Precondition, changed, lock_customer
from models.errors import FieldErrors, NotFoundError
from models.tables import Contact


@dataclass(frozen=True)
class NewContact:
    """A contact as typed; `check` gives it back trimmed or raises InvalidFields."""

    name: str
    email: str
    phone: str = ""
    primary: bool = False

    def check(self, prefix: str = "") -> NewContact:
        errors = FieldErrors()
        name = errors.text(f"{prefix}name", self.name, 200)
        email = errors.email(f"{prefix}email", self.email)
        phone = errors.text(f"{prefix}phone", self.phone, 50, required=False)
        errors.check()
        return NewContact(name, email, phone, self.primary)


async def _unset_primary(customer_id: int) -> None:
    await Contact.update({Contact.is_primary: False}).where(
        (Contact.customer == customer_id) & (Contact.is_primary == True)  # noqa: E712 - SQL
    )


async def insert_contact(workspace_id: int, customer_id: int, contact: NewContact) -> Contact:
    """Write a checked contact of a locked customer (the caller's transaction)."""
    primary = contact.primary or not await Contact.exists().where(Contact.customer == customer_id)
    if primary:
        await _unset_primary(customer_id)
    row = Contact(
        workspace=workspace_id,
        customer=customer_id,
        name=contact.name,
        email=contact.email,
        phone=contact.phone,
        is_primary=primary,
        created_at=clock.now(),
    )
    await row.save()
    return row


async def add_contact(
    *,
    customer_id: int,
    name: str,
    email: str,
    phone: str = "",
    primary: bool = False,
    workspace_id: int | None = None,
    precondition: Precondition | None = None,
) -> Contact:
    """A new contact; primary when asked or when it is the customer's first."""
    contact = NewContact(name, email, phone, primary).check()

    async def write() -> Contact:
        customer = await lock_customer(customer_id, workspace_id)
        if precondition is not None:
            await precondition()
        row = await insert_contact(customer.workspace, customer_id, contact)
        await changed(customer_id)
        return row

    return await db.atomic(write)


async def find_contact(workspace_id: int, customer_id: int, contact_id: int) -> Contact:
    """The customer's contact, in that workspace (NotFoundError otherwise)."""
    row = None
    if known_id(contact_id):
        row = (
            await Contact.objects()
            .where(
                (Contact.id == contact_id)
                & (Contact.customer == customer_id)
                & (Contact.workspace == workspace_id)
            )
            .first()
        )
    if row is None:
        raise NotFoundError(f"contact {contact_id} not found")
    return row


async def edit_contact(
    *,
    workspace_id: int,
    customer_id: int,
    contact_id: int,
    name: str | None = None,
    email: str | None = None,
    phone: str | None = None,
    primary: bool = False,
    precondition: Precondition | None = None,
) -> Contact:
    """New name, email and phone (None keeps the field as it is); `primary` makes it the
    primary contact (never unmakes it)."""

    async def write() -> Contact:
        await lock_customer(customer_id, workspace_id)
        row = await find_contact(workspace_id, customer_id, contact_id)
        if precondition is not None:
            await precondition()
        contact = NewContact(
            row.name if name is None else name,
            row.email if email is None else email,
            row.phone if phone is None else phone,
        ).check()
        if primary and not row.is_primary:
            await _unset_primary(customer_id)
        row.name, row.email, row.phone = contact.name, contact.email, contact.phone
        row.is_primary = bool(row.is_primary) or primary
        await row.save()
        await changed(customer_id)
        return row

    return await db.atomic(write)


async def remove_contact(
    *,
    workspace_id: int,
    customer_id: int,
    contact_id: int,
    precondition: Precondition | None = None,
) -> Contact | None:
    """Delete a contact; when it was primary the oldest remaining contact becomes primary
    (returned, else None)."""

    async def write() -> Contact | None:
        await lock_customer(customer_id, workspace_id)
        row = await find_contact(workspace_id, customer_id, contact_id)
        if precondition is not None:
            await precondition()
        await Contact.delete().where(Contact.id == contact_id)
        promoted = None
        if row.is_primary:
            promoted = (
                await Contact.objects()
                .where(Contact.customer == customer_id)
                .order_by(Contact.created_at)
                .order_by(Contact.id)
                .first()
            )
            if promoted is not None:
                promoted.is_primary = True
                await promoted.save()
        await changed(customer_id)
        return promoted

    return await db.atomic(write)
