"""A customer's contacts, and the rule that exactly one of them is primary whenever any exist
(stage messages and proofs go to the primary contact).

- the first contact a customer gets is primary, whatever was asked;
- making a contact primary makes the previous one an ordinary contact, in one transaction;
- a primary contact stays primary until another is made primary or it is removed (unticking
  "primary" on it changes nothing: some contact must be primary);
- removing the primary contact promotes the oldest remaining one.

The admin's contact forms, the API and `pressline contact add` call these functions. Every
change locks the customer's row first (PostgreSQL), so two concurrent changes cannot leave two
primaries or none; SQLite's write transactions are serial anyway.
"""

from __future__ import annotations

from models import clock, db
from models.accounts import known_id
from models.errors import FieldErrors, NotFoundError
from models.tables import Contact, Customer


async def _lock_customer(customer_id: int, workspace_id: int | None) -> Customer:
    """The customer (of `workspace_id` when given), its row locked for this transaction."""
    query = Customer.objects().where(Customer.id == customer_id)
    if workspace_id is not None:
        query = query.where(Customer.workspace == workspace_id)
    if db.is_postgres():
        query = query.lock_rows("NO KEY UPDATE")
    row = await query.first() if known_id(customer_id) else None
    if row is None:
        raise NotFoundError(f"customer {customer_id} not found")
    return row


def _fields(name: str, email: str, phone: str) -> tuple[str, str, str]:
    errors = FieldErrors()
    name = errors.text("name", name, 200)
    email = errors.email("email", email)
    phone = errors.text("phone", phone, 50, required=False)
    errors.check()
    return name, email, phone


async def _touch(customer_id: int) -> None:
    # The customer detail embeds its contacts, so the customer has changed (docs/api.md §3.1).
    await Customer.update({Customer.updated_at: clock.now()}).where(Customer.id == customer_id)


async def _unset_primary(customer_id: int) -> None:
    await Contact.update({Contact.is_primary: False}).where(
        (Contact.customer == customer_id) & (Contact.is_primary == True)  # noqa: E712 - SQL
    )


async def add_contact(
    *,
    customer_id: int,
    name: str,
    email: str,
    phone: str = "",
    primary: bool = False,
    workspace_id: int | None = None,
) -> Contact:
    """A new contact; primary when asked or when it is the customer's first."""
    name, email, phone = _fields(name, email, phone)
    async with db.transaction():
        customer = await _lock_customer(customer_id, workspace_id)
        primary = primary or not await Contact.exists().where(Contact.customer == customer_id)
        if primary:
            await _unset_primary(customer_id)
        row = Contact(
            workspace=customer.workspace,
            customer=customer_id,
            name=name,
            email=email,
            phone=phone,
            is_primary=primary,
            created_at=clock.now(),
        )
        await row.save()
        await _touch(customer_id)
    return row


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
    name: str,
    email: str,
    phone: str = "",
    primary: bool = False,
) -> Contact:
    """New name, email and phone; `primary` makes it the primary contact (never unmakes it)."""
    name, email, phone = _fields(name, email, phone)
    async with db.transaction():
        await _lock_customer(customer_id, workspace_id)
        row = await find_contact(workspace_id, customer_id, contact_id)
        if primary and not row.is_primary:
            await _unset_primary(customer_id)
        row.name, row.email, row.phone = name, email, phone
        row.is_primary = bool(row.is_primary) or primary
        await row.save()
        await _touch(customer_id)
    return row


async def remove_contact(*, workspace_id: int, customer_id: int, contact_id: int) -> Contact | None:
    """Delete a contact; when it was primary the oldest remaining contact becomes primary
    (returned, else None)."""
    async with db.transaction():
        await _lock_customer(customer_id, workspace_id)
        row = await find_contact(workspace_id, customer_id, contact_id)
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
        await _touch(customer_id)
    return promoted
