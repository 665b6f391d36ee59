"""Customer organisations as the API shows them (list rows and detail), which the command line
prints too."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated

import msgspec

from models.customers.queries import CustomerListRow, CustomerRows, PaymentTerms
from models.schemas.common import DecimalString, Schema, UpdatedAt
from models.statements import iso

Slug = Annotated[str, msgspec.Meta(description="Used by the `customer` filter of GET /orders")]


class CustomerRow(Schema):
    id: Annotated[int, msgspec.Meta(description="Numeric id, used in paths")]
    name: str
    slug: Slug
    price_list: Annotated[
        str | None, msgspec.Meta(description="Name of the customer's price list, or null")
    ]
    discount: Annotated[
        str,
        msgspec.Meta(
            pattern=r"^-?\d+\.\d{2}$",
            description=(
                "The price list's discount in percent, as a two-decimal string (the detail's "
                '`price_list.discount_percent`); "0.00" without a price list'
            ),
        ),
    ]
    orders_count: Annotated[int, msgspec.Meta(description="Orders in any stage")]
    open_orders: Annotated[int, msgspec.Meta(description="Orders not dispatched and not cancelled")]
    updated_at: UpdatedAt


class PriceList(Schema):
    name: str
    discount_percent: DecimalString


class Contact(Schema):
    name: str
    email: str
    phone: str
    is_primary: bool


class CustomerDetail(Schema):
    id: Annotated[int, msgspec.Meta(description="Numeric id, used in paths")]
    name: str
    slug: Slug
    lifetime_value_cents: Annotated[
        int,
        msgspec.Meta(
            description="Sum of the totals of the customer's paid invoices, in minor units"
        ),
    ]
    price_list: Annotated[
        PriceList | None, msgspec.Meta(description="null when the customer has no price list")
    ]
    payment_terms: PaymentTerms
    default_carrier: Annotated[
        str,
        msgspec.Meta(description="Carrier set on dispatch when none is given; may be empty"),
    ]
    contacts: Annotated[
        list[Contact],
        msgspec.Meta(description="The primary contact first, then in the order added"),
    ]
    updated_at: UpdatedAt


# Discounts repeat (a workspace has a few price lists): remember each value's text.
_TWO_PLACES_CACHE: dict[Decimal | float | None, str] = {}
_TWO_PLACES_CACHE_SIZE = 1024


def _two_places(value: Decimal | float | None) -> str:
    text = _TWO_PLACES_CACHE.get(value)
    if text is None:
        text = f"{Decimal(str(value or 0)).quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)}"
        if len(_TWO_PLACES_CACHE) >= _TWO_PLACES_CACHE_SIZE:
            _TWO_PLACES_CACHE.clear()
        _TWO_PLACES_CACHE[value] = text
    return text


def customer_row_bodies(
    rows: list[CustomerListRow], order_counts: dict[int, tuple[int, int]]
) -> list[CustomerRow]:
    """A list page's customers with their order counts."""
    bodies = []
    for row in rows:
        orders_count, open_orders = order_counts.get(row.id, (0, 0))
        bodies.append(
            CustomerRow(
                id=row.id,
                name=row.name,
                slug=row.slug,
                price_list=row.price_list,
                discount=_two_places(row.discount_percent),
                orders_count=orders_count,
                open_orders=open_orders,
                updated_at=iso(row.updated_at),
            )
        )
    return bodies


def customer_detail_body(rows: CustomerRows) -> CustomerDetail:
    customer = rows.customer
    price_list = None
    if customer.price_list is not None:
        price_list = PriceList(
            name=customer.price_list, discount_percent=_two_places(customer.discount_percent)
        )
    return CustomerDetail(
        id=customer.id,
        name=customer.name,
        slug=customer.slug,
        lifetime_value_cents=int(customer.lifetime_value_cents or 0),
        price_list=price_list,
        payment_terms=customer.payment_terms,
        default_carrier=customer.default_carrier,
        contacts=[
            Contact(
                name=contact.name,
                email=contact.email,
                phone=contact.phone,
                is_primary=bool(contact.is_primary),
            )
            for contact in rows.contacts
        ],
        updated_at=iso(customer.updated_at),
    )
