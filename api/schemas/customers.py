"""Customer organisations: list rows and detail."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Literal

import msgspec

from api.params import PageNumber, Search, UpdatedSince
from api.schemas.common import DecimalString, Schema, UpdatedAt
from models.queries.customers import CustomerRows
from models.statements import Row, iso

PaymentTerms = Literal["prepaid", "on_receipt", "net_7", "net_15", "net_30", "net_60"]


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
    rows: list[Row], order_counts: dict[int, tuple[int, int]]
) -> list[CustomerRow]:
    """A list page's customers (rows of models.queries.customers) with their order counts."""
    bodies = []
    for customer_id, name, slug, _, _, updated_at, price_list, discount in rows:
        orders_count, open_orders = order_counts.get(customer_id, (0, 0))
        bodies.append(
            CustomerRow(
                id=customer_id,
                name=name,
                slug=slug,
                price_list=price_list,
                discount=_two_places(discount),
                orders_count=orders_count,
                open_orders=open_orders,
                updated_at=iso(updated_at),
            )
        )
    return bodies


def customer_detail_body(rows: CustomerRows) -> CustomerDetail:
    (
        customer_id, name, slug, payment_terms, default_carrier, updated_at,
        price_list_name, discount, lifetime_value,
    ) = rows.customer  # fmt: skip
    price_list = None
    if price_list_name is not None:
        price_list = PriceList(name=price_list_name, discount_percent=_two_places(discount))
    return CustomerDetail(
        id=customer_id,
        name=name,
        slug=slug,
        lifetime_value_cents=int(lifetime_value or 0),
        price_list=price_list,
        payment_terms=payment_terms,
        default_carrier=default_carrier,
        contacts=[
            Contact(name=contact_name, email=email, phone=phone, is_primary=bool(is_primary))
            for contact_name, email, phone, is_primary in rows.contacts
        ],
        updated_at=iso(updated_at),
    )


class CustomerListQuery(Schema):
    """`GET /customers` parameters (docs/api.md §4.2)."""

    search: Search = None
    updated_since: UpdatedSince = None
    page: PageNumber = 1
