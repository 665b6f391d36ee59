"""Customers: creating and editing them. Slugs, external refs, price lists and payment terms
are decided here, once; the admin, the API, the command line and the demo builder pass values
through. Every change records `customer.created` or `customer.updated` in its transaction.

Slugs and external refs are unique in the workspace: a change that writes either first locks
the workspace row (PostgreSQL; models/customers/changes.py), so of two concurrent creates with
one external_ref one wins and the other is refused naming it, and two with one name get two
slugs."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from models import clock, db
from models.accounts import KEEP, FieldErrors, Keep, known_id
from models.customers.addresses import NewAddress, insert_address
from models.customers.changes import Precondition, lock_customer, lock_workspace, record
from models.customers.contacts import NewContact, insert_contact
from models.errors import ErrorCode, InvalidFields, NotFoundError
from models.tables import Customer, PriceList
from models.webhooks.names import EventName

PAYMENT_TERMS = ("prepaid", "on_receipt", "net_7", "net_15", "net_30", "net_60")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SLUG_LENGTH = 100


def slugify(name: str) -> str:
    """`Hop & Barley Brewing Co.` → `hop-barley-brewing-co` (accents folded to ASCII)."""
    # Apostrophes join words (`St Aidan's` → `st-aidans`); accents fold to ASCII.
    name = name.replace("'", "").replace("\u2019", "")
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    # Leave room for a "-N" suffix when the slug is taken.
    return slug[: SLUG_LENGTH - 8].rstrip("-") or "customer"


async def _free_slug(workspace_id: int, base: str) -> str:
    rows = await Customer.select(Customer.slug).where(
        (Customer.workspace == workspace_id) & Customer.slug.like(base + "%")
    )
    taken = {row["slug"] for row in rows}
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    return slug


# --- customers -----------------------------------------------------------------------------


async def get_customer(customer_id: int) -> Customer:
    row = None
    if known_id(customer_id):
        row = await Customer.objects().where(Customer.id == customer_id).first()
    if row is None:
        raise NotFoundError(f"customer {customer_id} not found")
    return row


async def _price_list(
    workspace_id: int, name: str, discount: Decimal | None, *, new: bool = True
) -> PriceList:
    """The workspace's price list of that name, created with `discount` when new (unless
    `new` is false: the API names one of the workspace's lists).

    An existing list is shared by other customers, so a different discount is refused
    rather than silently changing their prices.
    """
    row = await (
        PriceList.objects()
        .where((PriceList.workspace == workspace_id) & (PriceList.name == name))
        .first()
    )
    if row is None and not new:
        raise InvalidFields({"price_list": ["The selected price_list is invalid."]})
    if row is None:
        now = clock.now()
        row = PriceList(
            workspace=workspace_id,
            name=name,
            discount_percent=discount or Decimal("0.00"),
            created_at=now,
            updated_at=now,
        )
        await row.save()
    elif discount is not None and Decimal(row.discount_percent) != discount:
        raise InvalidFields(
            {
                "discount": [
                    f"price list {name!r} already exists with discount "
                    f"{Decimal(row.discount_percent):.2f}; omit the discount to use it"
                ]
            }
        )
    return row


@dataclass(frozen=True)
class CustomerChanges:
    """New values for a customer; KEEP leaves a field as it is. `price_list` None takes the
    customer off its list (which stays for its other customers); `external_ref` None clears
    it. `new_price_list` false (the API) refuses a list the workspace does not have."""

    name: str | Keep = KEEP
    slug: str | Keep = KEEP
    external_ref: str | Keep | None = KEEP
    price_list: str | Keep | None = KEEP
    discount: Decimal | str | None = None
    payment_terms: str | Keep = KEEP
    carrier: str | Keep = KEEP
    tax_exempt: bool | Keep = KEEP
    new_price_list: bool = True


def _checked(changes: CustomerChanges) -> CustomerChanges:
    """The given fields checked and trimmed (InvalidFields lists every problem)."""
    errors = FieldErrors()
    checked = changes
    if not isinstance(changes.name, Keep):
        checked = replace(checked, name=errors.text("name", changes.name, 200))
    if not isinstance(changes.slug, Keep):
        slug = changes.slug.strip()
        if len(slug) > SLUG_LENGTH or not SLUG.match(slug):
            errors.add("slug", "must be lowercase letters, digits and single hyphens")
        checked = replace(checked, slug=slug)
    if isinstance(changes.external_ref, str):
        ref = errors.text("external_ref", changes.external_ref, 100, required=False)
        checked = replace(checked, external_ref=ref or None)
    if isinstance(changes.price_list, str):
        checked = replace(checked, price_list=errors.text("price_list", changes.price_list, 100))
    if changes.discount is not None:
        checked = replace(checked, discount=errors.percent("discount", changes.discount))
        if not isinstance(changes.price_list, str):
            errors.add("discount", "a discount belongs to a price list: give the price list name")
    if not isinstance(changes.payment_terms, Keep) and changes.payment_terms not in PAYMENT_TERMS:
        errors.add("payment_terms", f"must be one of {', '.join(PAYMENT_TERMS)}")
    if not isinstance(changes.carrier, Keep):
        carrier = errors.text("carrier", changes.carrier, 100, required=False)
        checked = replace(checked, carrier=carrier)
    errors.check()
    return checked


async def _slug_taken(workspace_id: int, slug: str, customer_id: int | None = None) -> None:
    query = Customer.exists().where((Customer.workspace == workspace_id) & (Customer.slug == slug))
    if customer_id is not None:
        query = query.where(Customer.id != customer_id)
    if await query:
        raise InvalidFields({"slug": [f"{slug} is already used in this workspace"]})


async def _ref_taken(workspace_id: int, ref: str, customer_id: int | None = None) -> None:
    query = Customer.select(Customer.id).where(
        (Customer.workspace == workspace_id) & (Customer.external_ref == ref)
    )
    if customer_id is not None:
        query = query.where(Customer.id != customer_id)
    taken = await query.first()
    if taken is not None:
        raise InvalidFields(
            {
                "external_ref": [
                    f"The external_ref has already been taken by customer {taken['id']}."
                ]
            },
            code=ErrorCode.EXTERNAL_REF_TAKEN,
            details={"customer_id": taken["id"]},
        )


def _nested_errors(
    contacts: Sequence[NewContact], addresses: Sequence[NewAddress]
) -> tuple[list[NewContact], list[NewAddress], dict[str, list[str]]]:
    """Contacts and addresses checked, with their problems under `contacts.N.` and
    `addresses.N.`."""
    errors: dict[str, list[str]] = {}
    checked_contacts, checked_addresses = [], []
    for index, contact in enumerate(contacts):
        try:
            checked_contacts.append(contact.check(f"contacts.{index}."))
        except InvalidFields as invalid:
            errors.update(invalid.errors)
    for index, address in enumerate(addresses):
        try:
            checked_addresses.append(address.check(f"addresses.{index}."))
        except InvalidFields as invalid:
            errors.update(invalid.errors)
    return checked_contacts, checked_addresses, errors


async def create_customer(
    *,
    workspace_id: int,
    name: str,
    slug: str | None = None,
    external_ref: str | None = None,
    price_list: str | None = None,
    discount: Decimal | str | None = None,
    payment_terms: str = "net_30",
    carrier: str = "",
    tax_exempt: bool = False,
    contacts: Sequence[NewContact] = (),
    addresses: Sequence[NewAddress] = (),
    new_price_list: bool = True,
) -> Customer:
    """A customer with its contacts and addresses (the first of each primary/default unless
    another asks to be), in one transaction that records `customer.created`; the slug comes
    from the name (made unique) unless one is given."""
    errors: dict[str, list[str]] = {}
    try:
        fields = _checked(
            CustomerChanges(
                name=name, slug=KEEP if slug is None else slug, external_ref=external_ref,
                price_list=price_list, discount=discount, payment_terms=payment_terms,
                carrier=carrier, tax_exempt=tax_exempt,
            )
        )  # fmt: skip
    except InvalidFields as invalid:
        errors.update(invalid.errors)
    contacts, addresses, nested = _nested_errors(contacts, addresses)
    errors.update(nested)
    if errors:
        raise InvalidFields(errors)
    name_given, carrier_given = fields.name, fields.carrier
    assert isinstance(name_given, str) and isinstance(carrier_given, str)  # noqa: S101 - given

    async def write() -> Customer:
        await lock_workspace(workspace_id)
        if isinstance(fields.slug, str):
            await _slug_taken(workspace_id, fields.slug)
            chosen = fields.slug
        else:
            chosen = await _free_slug(workspace_id, slugify(name_given))
        if isinstance(fields.external_ref, str):
            await _ref_taken(workspace_id, fields.external_ref)
        price_list_id = None
        if isinstance(fields.price_list, str):
            listed = await _price_list(
                workspace_id, fields.price_list, _rate(fields.discount), new=new_price_list
            )
            price_list_id = listed.id
        now = clock.now()
        row = Customer(
            workspace=workspace_id,
            name=name_given,
            slug=chosen,
            external_ref=fields.external_ref,
            price_list=price_list_id,
            payment_terms=fields.payment_terms,
            default_carrier=carrier_given,
            tax_exempt=tax_exempt,
            created_at=now,
            updated_at=now,
        )
        await row.save()
        # The first asking to be primary (default) is, else the first given.
        primary = next((n for n, c in enumerate(contacts) if c.primary), 0)
        for index, contact in enumerate(contacts):
            await insert_contact(workspace_id, row.id, replace(contact, primary=index == primary))
        default = next((n for n, a in enumerate(addresses) if a.default), 0)
        for index, address in enumerate(addresses):
            await insert_address(workspace_id, row.id, replace(address, default=index == default))
        await record(row.id, EventName.CUSTOMER_CREATED)
        return row

    return await db.atomic(write)


def _rate(discount: Decimal | str | None) -> Decimal | None:
    return None if discount is None else Decimal(discount)


async def edit_customer(
    *,
    workspace_id: int,
    customer_id: int,
    changes: CustomerChanges,
    precondition: Precondition | None = None,
) -> Customer:
    """Apply `changes` in one transaction that records `customer.updated` (none when nothing
    changes). Raises NotFoundError, StaleError (from `precondition`) or InvalidFields."""
    fields = _checked(changes)

    async def write() -> Customer:
        await lock_workspace(workspace_id)
        row = await lock_customer(customer_id, workspace_id)
        if precondition is not None:
            await precondition()
        values: dict[Any, Any] = {}
        if isinstance(fields.name, str):
            values[Customer.name] = fields.name
        if isinstance(fields.slug, str):
            await _slug_taken(workspace_id, fields.slug, customer_id)
            values[Customer.slug] = fields.slug
        if not isinstance(fields.external_ref, Keep):
            if fields.external_ref is not None and fields.external_ref != row.external_ref:
                await _ref_taken(workspace_id, fields.external_ref, customer_id)
            values[Customer.external_ref] = fields.external_ref
        if not isinstance(fields.price_list, Keep):
            price_list_id = None
            if fields.price_list is not None:
                listed = await _price_list(
                    workspace_id,
                    fields.price_list,
                    _rate(fields.discount),
                    new=fields.new_price_list,
                )
                price_list_id = listed.id
            values[Customer.price_list] = price_list_id
        if isinstance(fields.payment_terms, str):
            values[Customer.payment_terms] = fields.payment_terms
        if isinstance(fields.carrier, str):
            values[Customer.default_carrier] = fields.carrier
        if isinstance(fields.tax_exempt, bool):
            values[Customer.tax_exempt] = fields.tax_exempt
        before = {column: getattr(row, column._meta.name) for column in values}
        if any(before[column] != value for column, value in values.items()):
            values[Customer.updated_at] = clock.now()
            await Customer.update(values).where(Customer.id == customer_id)
            await record(customer_id, EventName.CUSTOMER_UPDATED)
        return await get_customer(customer_id)

    return await db.atomic(write)


async def update_customer(
    *,
    workspace_id: int,
    customer_id: int,
    name: str,
    slug: str,
    price_list: str | None = None,
    discount: Decimal | str | None = None,
    payment_terms: str = "net_30",
    carrier: str = "",
    tax_exempt: bool = False,
) -> Customer:
    """New values for every field `create_customer` takes but the external ref (the admin's
    edit form); no price list (None) takes the customer off its list."""
    return await edit_customer(
        workspace_id=workspace_id,
        customer_id=customer_id,
        changes=CustomerChanges(
            name=name, slug=slug, price_list=price_list, discount=discount,
            payment_terms=payment_terms, carrier=carrier, tax_exempt=tax_exempt,
        ),
    )  # fmt: skip
