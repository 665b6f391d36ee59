"""Customer organisations as the API shows them (list rows and detail), which the command line
prints too, and the bodies that create and change them, their contacts and addresses
(decoded strictly, errors collected from these Structs: api/validation.py)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any

import msgspec

from models.accounts import KEEP
from models.customers.addresses import NewAddress
from models.customers.contacts import NewContact
from models.customers.queries import AddressRow, CustomerListRow, CustomerRows, PaymentTerms
from models.customers.records import CustomerChanges
from models.field_rules import EMAIL_ADDRESS, NOT_BLANK, ONE_LINE
from models.schemas.common import DecimalString, UpdatedAt
from models.statements import iso
from models.structs import Input, Schema

Slug = Annotated[str, msgspec.Meta(description="Used by the `customer` filter of GET /orders")]


class CustomerRow(Schema):
    id: Annotated[int, msgspec.Meta(description="Numeric id, used in paths")]
    name: str
    slug: Slug
    external_ref: Annotated[
        str | None,
        msgspec.Meta(description="Extension: the caller's own id, unique per workspace, or null"),
    ]
    email: Annotated[
        str | None,
        msgspec.Meta(description="Extension: the primary contact's email, or null without one"),
    ]
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
    id: Annotated[int, msgspec.Meta(description="Extension: used in the contact's paths")]
    name: str
    email: str
    phone: str
    is_primary: bool


class Address(Schema):
    id: Annotated[int, msgspec.Meta(description="Used in the address's paths")]
    label: Annotated[str, msgspec.Meta(description='The customer\'s name for it ("Warehouse")')]
    name: Annotated[str, msgspec.Meta(description="The person to deliver to; may be empty")]
    company: str
    line1: str
    line2: str
    city: str
    region: str
    postal_code: str
    country: Annotated[str, msgspec.Meta(description="ISO 3166-1 alpha-2, upper case")]
    phone: str
    is_default: Annotated[
        bool, msgspec.Meta(description="Exactly one address is the default while any exist")
    ]


class CustomerDetail(Schema):
    id: Annotated[int, msgspec.Meta(description="Numeric id, used in paths")]
    name: str
    slug: Slug
    external_ref: Annotated[
        str | None,
        msgspec.Meta(description="Extension: the caller's own id, unique per workspace, or null"),
    ]
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
    tax_exempt: Annotated[bool, msgspec.Meta(description="Extension: no tax on its orders")]
    contacts: Annotated[
        list[Contact],
        msgspec.Meta(description="The primary contact first, then in the order added"),
    ]
    addresses: Annotated[
        list[Address],
        msgspec.Meta(description="Extension: the default address first, then in the order added"),
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
                external_ref=row.external_ref,
                email=row.primary_email,
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
        external_ref=customer.external_ref,
        lifetime_value_cents=int(customer.lifetime_value_cents or 0),
        price_list=price_list,
        payment_terms=customer.payment_terms,
        default_carrier=customer.default_carrier,
        tax_exempt=bool(customer.tax_exempt),
        contacts=[
            Contact(
                id=contact.id,
                name=contact.name,
                email=contact.email,
                phone=contact.phone,
                is_primary=bool(contact.is_primary),
            )
            for contact in rows.contacts
        ],
        addresses=[address_body(address) for address in rows.addresses],
        updated_at=iso(customer.updated_at),
    )


def address_body(row: AddressRow) -> Address:
    return Address(
        id=row.id, label=row.label, name=row.name, company=row.company, line1=row.line1,
        line2=row.line2, city=row.city, region=row.region, postal_code=row.postal_code,
        country=row.country, phone=row.phone, is_default=bool(row.is_default),
    )  # fmt: skip


# --- request bodies ------------------------------------------------------------------------------

MAX_CONTACTS = 50
MAX_ADDRESSES = 50


def _line(length: int, description: str | None = None) -> msgspec.Meta:
    """One line of text, at most `length` characters; may be empty."""
    return msgspec.Meta(max_length=length, pattern=ONE_LINE, description=description)


def _required(length: int, description: str = "Required, not blank") -> msgspec.Meta:
    return msgspec.Meta(max_length=length, pattern=NOT_BLANK, description=description)


CustomerName = Annotated[str, _required(200)]
ExternalRef = Annotated[
    str, _required(100, "The caller's own id (a storefront's), unique per workspace")
]
PriceListName = Annotated[
    str, _required(100, "The name of one of the workspace's price lists; another answers 422")
]
Carrier = Annotated[str, _line(100, "Carrier set on dispatch when none is given")]
TaxExempt = Annotated[bool, msgspec.Meta(description="No tax on the customer's orders")]
ContactName = Annotated[str, _required(200)]
Email = Annotated[
    str,
    msgspec.Meta(
        max_length=254,
        pattern=EMAIL_ADDRESS,
        description="`local@domain`, ASCII, no display name or < >",
    ),
]
Phone = Annotated[str, _line(50)]
IsPrimary = Annotated[
    bool,
    msgspec.Meta(
        description="Make it the primary contact (the previous one stops being so); the first "
        "contact is primary whatever is sent, and false never unmakes the primary"
    ),
]
Label = Annotated[str, _line(100, 'The customer\'s name for the address ("Warehouse")')]
Recipient = Annotated[str, _line(200, "The person to deliver to")]
Company = Annotated[str, _line(200)]
Line1 = Annotated[str, _required(200)]
Line2 = Annotated[str, _line(200)]
City = Annotated[str, _required(100)]
Region = Annotated[str, _line(100, "County, state or province")]
PostalCode = Annotated[str, _line(20)]
Country = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^[A-Z]{2}$", description="ISO 3166-1 alpha-2 country code, upper case (GB)"
    ),
]
IsDefault = Annotated[
    bool,
    msgspec.Meta(
        description="Make it the default address (the previous one stops being so); the first "
        "address is the default whatever is sent, and false never unmakes the default"
    ),
]


class ContactCreate(Input):
    name: ContactName
    email: Email
    phone: Phone = ""
    is_primary: IsPrimary = False

    def new_contact(self) -> NewContact:
        return NewContact(self.name, self.email, self.phone, self.is_primary)


class ContactUpdate(Input):
    """Only the fields sent change."""

    name: ContactName | msgspec.UnsetType = msgspec.UNSET
    email: Email | msgspec.UnsetType = msgspec.UNSET
    phone: Phone | msgspec.UnsetType = msgspec.UNSET
    is_primary: IsPrimary | msgspec.UnsetType = msgspec.UNSET

    def changes(self) -> dict[str, Any]:
        """Keyword arguments of models.customers.contacts.edit_contact."""
        given = {
            field: getattr(self, field)
            for field in ("name", "email", "phone")
            if getattr(self, field) is not msgspec.UNSET
        }
        return {**given, "primary": self.is_primary is True}


class AddressCreate(Input):
    line1: Line1
    city: City
    country: Country
    label: Label = ""
    name: Recipient = ""
    company: Company = ""
    line2: Line2 = ""
    region: Region = ""
    postal_code: PostalCode = ""
    phone: Phone = ""
    is_default: IsDefault = False

    def new_address(self) -> NewAddress:
        values = msgspec.structs.asdict(self)
        default = values.pop("is_default")
        return NewAddress(**values, default=default)


class AddressUpdate(Input):
    """Only the fields sent change."""

    label: Label | msgspec.UnsetType = msgspec.UNSET
    name: Recipient | msgspec.UnsetType = msgspec.UNSET
    company: Company | msgspec.UnsetType = msgspec.UNSET
    line1: Line1 | msgspec.UnsetType = msgspec.UNSET
    line2: Line2 | msgspec.UnsetType = msgspec.UNSET
    city: City | msgspec.UnsetType = msgspec.UNSET
    region: Region | msgspec.UnsetType = msgspec.UNSET
    postal_code: PostalCode | msgspec.UnsetType = msgspec.UNSET
    country: Country | msgspec.UnsetType = msgspec.UNSET
    phone: Phone | msgspec.UnsetType = msgspec.UNSET
    is_default: IsDefault | msgspec.UnsetType = msgspec.UNSET

    def changes(self) -> dict[str, str]:
        """The text fields sent (models.customers.addresses.edit_address's `changes`)."""
        values = msgspec.structs.asdict(self)
        values.pop("is_default")
        return {field: value for field, value in values.items() if value is not msgspec.UNSET}


class CustomerCreate(Input):
    name: CustomerName
    external_ref: ExternalRef | None = None
    price_list: PriceListName | None = None
    payment_terms: PaymentTerms = "net_30"
    default_carrier: Carrier = ""
    tax_exempt: TaxExempt = False
    contacts: Annotated[
        list[ContactCreate],
        msgspec.Meta(
            max_length=MAX_CONTACTS,
            description="The first, or the first with is_primary, is the primary contact",
        ),
    ] = msgspec.field(default_factory=list)
    addresses: Annotated[
        list[AddressCreate],
        msgspec.Meta(
            max_length=MAX_ADDRESSES,
            description="The first, or the first with is_default, is the default address",
        ),
    ] = msgspec.field(default_factory=list)

    def create_arguments(self) -> dict[str, Any]:
        """Keyword arguments of models.customers.records.create_customer."""
        return {
            "name": self.name,
            "external_ref": self.external_ref,
            "price_list": self.price_list,
            "payment_terms": self.payment_terms,
            "carrier": self.default_carrier,
            "tax_exempt": self.tax_exempt,
            "contacts": [contact.new_contact() for contact in self.contacts],
            "addresses": [address.new_address() for address in self.addresses],
            "new_price_list": False,
        }


class CustomerUpdate(Input):
    """Only the fields sent change; `external_ref` or `price_list` null clears it. Contacts
    and addresses change through their own paths."""

    name: CustomerName | msgspec.UnsetType = msgspec.UNSET
    external_ref: ExternalRef | msgspec.UnsetType | None = msgspec.UNSET
    price_list: PriceListName | msgspec.UnsetType | None = msgspec.UNSET
    payment_terms: PaymentTerms | msgspec.UnsetType = msgspec.UNSET
    default_carrier: Carrier | msgspec.UnsetType = msgspec.UNSET
    tax_exempt: TaxExempt | msgspec.UnsetType = msgspec.UNSET

    def changes(self) -> CustomerChanges:
        def given(value: Any) -> Any:
            return KEEP if value is msgspec.UNSET else value

        return CustomerChanges(
            name=given(self.name),
            external_ref=given(self.external_ref),
            price_list=given(self.price_list),
            payment_terms=given(self.payment_terms),
            carrier=given(self.default_carrier),
            tax_exempt=given(self.tax_exempt),
            new_price_list=False,
        )


def contact_body(row: Any) -> Contact:
    """A contact row (models.tables.Contact) as the API shows it."""
    return Contact(
        id=row.id, name=row.name, email=row.email, phone=row.phone,
        is_primary=bool(row.is_primary),
    )  # fmt: skip


def address_row_body(row: Any) -> Address:
    """An address row (models.tables.Address) as the API shows it."""
    return Address(
        id=row.id, label=row.label, name=row.name, company=row.company, line1=row.line1,
        line2=row.line2, city=row.city, region=row.region, postal_code=row.postal_code,
        country=row.country, phone=row.phone, is_default=bool(row.is_default),
    )  # fmt: skip
