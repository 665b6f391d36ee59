"""Customer organisations: list rows and detail."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from api.schemas.common import DecimalString, Schema, Timestamp
from models.clock import iso

PaymentTerms = Literal["prepaid", "on_receipt", "net_7", "net_15", "net_30", "net_60"]


class CustomerRow(Schema):
    id: int
    name: str
    slug: str
    price_list: str | None
    discount: DecimalString
    orders_count: int
    open_orders: int
    updated_at: Timestamp


class PriceList(Schema):
    name: str
    discount_percent: DecimalString


class Contact(Schema):
    name: str
    email: str
    phone: str
    is_primary: bool


class CustomerDetail(Schema):
    id: int
    name: str
    slug: str
    lifetime_value_cents: int
    price_list: PriceList | None
    payment_terms: PaymentTerms
    default_carrier: str
    contacts: list[Contact]
    updated_at: Timestamp


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
