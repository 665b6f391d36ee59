"""Customers: creating and editing them. Slugs, price lists and payment terms are decided
here, once; the admin, the API, the command line and the demo builder pass values through."""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from typing import NamedTuple

from models import clock, db
from models.accounts import FieldErrors, get_workspace, known_id
from models.errors import InvalidFields, NotFoundError
from models.tables import Customer, PriceList

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


async def _price_list(workspace_id: int, name: str, discount: Decimal | None) -> PriceList:
    """The workspace's price list of that name, created with `discount` when new.

    An existing list is shared by other customers, so a different discount is refused
    rather than silently changing their prices.
    """
    row = await (
        PriceList.objects()
        .where((PriceList.workspace == workspace_id) & (PriceList.name == name))
        .first()
    )
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


class CustomerFields(NamedTuple):
    name: str
    slug: str | None
    price_list: str | None
    discount: Decimal | None
    payment_terms: str
    carrier: str


def _customer_fields(
    *,
    name: str,
    slug: str | None,
    price_list: str | None,
    discount: Decimal | str | None,
    payment_terms: str,
    carrier: str,
) -> CustomerFields:
    """The checked fields of a customer, for create and edit alike (InvalidFields lists all)."""
    errors = FieldErrors()
    name = errors.text("name", name, 200)
    if slug is not None:
        slug = slug.strip()
        if len(slug) > SLUG_LENGTH or not SLUG.match(slug):
            errors.add("slug", "must be lowercase letters, digits and single hyphens")
    list_name = None
    if price_list is not None:
        list_name = errors.text("price_list", price_list, 100)
    rate = None if discount is None else errors.percent("discount", discount)
    if rate is not None and price_list is None:
        errors.add("discount", "a discount belongs to a price list: give the price list name")
    if payment_terms not in PAYMENT_TERMS:
        errors.add("payment_terms", f"must be one of {', '.join(PAYMENT_TERMS)}")
    carrier = errors.text("carrier", carrier, 100, required=False)
    errors.check()
    return CustomerFields(name, slug, list_name, rate, payment_terms, carrier)


async def _slug_taken(workspace_id: int, slug: str, customer_id: int | None = None) -> None:
    query = Customer.exists().where((Customer.workspace == workspace_id) & (Customer.slug == slug))
    if customer_id is not None:
        query = query.where(Customer.id != customer_id)
    if await query:
        raise InvalidFields({"slug": [f"{slug} is already used in this workspace"]})


async def create_customer(
    *,
    workspace_id: int,
    name: str,
    slug: str | None = None,
    price_list: str | None = None,
    discount: Decimal | str | None = None,
    payment_terms: str = "net_30",
    carrier: str = "",
    tax_exempt: bool = False,
) -> Customer:
    """A customer; the slug comes from the name (made unique) unless one is given."""
    fields = _customer_fields(
        name=name, slug=slug, price_list=price_list, discount=discount,
        payment_terms=payment_terms, carrier=carrier,
    )  # fmt: skip
    async with db.transaction():
        await get_workspace(workspace_id)
        slug = fields.slug
        if slug is None:
            slug = await _free_slug(workspace_id, slugify(fields.name))
        else:
            await _slug_taken(workspace_id, slug)
        price_list_id = None
        if fields.price_list is not None:
            price_list_id = (await _price_list(workspace_id, fields.price_list, fields.discount)).id
        now = clock.now()
        row = Customer(
            workspace=workspace_id,
            name=fields.name,
            slug=slug,
            price_list=price_list_id,
            payment_terms=fields.payment_terms,
            default_carrier=fields.carrier,
            tax_exempt=tax_exempt,
            created_at=now,
            updated_at=now,
        )
        await row.save()
    return row


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
    """New values for every field `create_customer` takes (the admin's edit form); no price
    list (None) takes the customer off its list, which stays for its other customers."""
    fields = _customer_fields(
        name=name, slug=slug, price_list=price_list, discount=discount,
        payment_terms=payment_terms, carrier=carrier,
    )  # fmt: skip
    async with db.transaction():
        row = await get_customer(customer_id)
        if row.workspace != workspace_id:
            raise NotFoundError(f"customer {customer_id} not found")
        assert fields.slug is not None  # noqa: S101 - a str was given
        await _slug_taken(workspace_id, fields.slug, customer_id)
        price_list_id = None
        if fields.price_list is not None:
            price_list_id = (await _price_list(workspace_id, fields.price_list, fields.discount)).id
        await Customer.update(
            {
                Customer.name: fields.name,
                Customer.slug: fields.slug,
                Customer.price_list: price_list_id,
                Customer.payment_terms: fields.payment_terms,
                Customer.default_carrier: fields.carrier,
                Customer.tax_exempt: tax_exempt,
                Customer.updated_at: clock.now(),
            }
        ).where(Customer.id == customer_id)
    return await get_customer(customer_id)
