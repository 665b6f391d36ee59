"""Customer organisations: list rows and detail."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any, Literal

import msgspec

from api.schemas.common import DecimalString, Schema, UpdatedAt
from models.clock import iso

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


def _two_places(value: Decimal | float | None) -> str:
    return f"{Decimal(str(value or 0)).quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)}"


def customer_row_body(row: dict[str, Any]) -> CustomerRow:
    return CustomerRow(
        id=row["id"],
        name=row["name"],
        slug=row["slug"],
        price_list=row["price_list_name"],
        discount=_two_places(row["discount_percent"]),
        orders_count=row["orders_count"],
        open_orders=row["open_orders"],
        updated_at=iso(row["updated_at"]),
    )


def customer_detail_body(row: dict[str, Any]) -> CustomerDetail:
    price_list = None
    if row["price_list_name"] is not None:
        price_list = PriceList(
            name=row["price_list_name"], discount_percent=_two_places(row["discount_percent"])
        )
    return CustomerDetail(
        id=row["id"],
        name=row["name"],
        slug=row["slug"],
        lifetime_value_cents=row["lifetime_value_cents"],
        price_list=price_list,
        payment_terms=row["payment_terms"],
        default_carrier=row["default_carrier"],
        contacts=[Contact(**contact) for contact in row["contacts"]],
        updated_at=iso(row["updated_at"]),
    )
