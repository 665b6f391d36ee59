"""Orders as the API shows them (list rows and detail) and the create/advance request bodies:
the API, the admin and the command line build and read the same Structs."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Annotated, ClassVar, Literal
from zoneinfo import ZoneInfo

import msgspec

from models.customers.addresses import NewAddress
from models.errors import InvalidFields
from models.field_rules import (
    MULTI_LINE,
    NOT_BLANK,
    ONE_LINE,
    DateBetween,
    Refused,
    RequiredUnless,
)
from models.garments import NewItem
from models.orders import ship_to as ship_to_rules
from models.orders.editing import KEEP, OrderEdit
from models.orders.lines import NewLine
from models.orders.queries import (
    ApprovalSource,
    ArtworkRow,
    ArtworkStatus,
    InvoiceStatus,
    LineRow,
    OrderRow,
    OrderRows,
    ProofRow,
    Stage,
)
from models.pricing import breakdown as price_parts
from models.pricing.breakdown import PriceBreakdown, PriceSource
from models.schemas.common import LocalTimestamp, Timestamp, UpdatedAt
from models.schemas.items import Item, ItemList, item_bodies
from models.statements import iso, iso_or_none, when
from models.structs import Input, Schema


class Totals(Schema):
    subtotal_cents: int
    tax_cents: int
    total_cents: int
    currency: str


class CustomerRef(Schema):
    id: int
    name: str
    slug: str


class OrderLine(Schema, omit_defaults=True):
    """`item_id` is present only on lines made from an item."""

    description: str
    quantity: int
    unit_price_cents: int
    line_total_cents: int
    sku: Annotated[str | None, msgspec.Meta(description="Extension: the line's SKU code, or null")]
    price_source: Annotated[
        PriceSource,
        msgspec.Meta(
            description="Extension: `typed` (as given; plain lines always) or `price_list` "
            "(some part computed from the workspace's price list)"
        ),
    ]
    price_breakdown: Annotated[
        PriceBreakdown | None,
        msgspec.Meta(
            description="Extension: what a line made from an item is priced from; null on "
            "plain lines"
        ),
    ]
    item_id: Annotated[
        int | None,
        msgspec.Meta(description="Extension: the item this line was made from (absent otherwise)"),
    ] = None


Line = Annotated[str, msgspec.Meta(max_length=200, pattern=ONE_LINE)]
Line1 = Annotated[str, msgspec.Meta(max_length=200, pattern=NOT_BLANK)]
City = Annotated[str, msgspec.Meta(max_length=100, pattern=NOT_BLANK)]
Region = Annotated[str, msgspec.Meta(max_length=100, pattern=ONE_LINE)]
PostalCode = Annotated[str, msgspec.Meta(max_length=20, pattern=ONE_LINE)]
Country = Annotated[
    str,
    msgspec.Meta(pattern="^[A-Z]{2}$", description="ISO 3166-1 alpha-2 code, upper case (GB, US)"),
]
Phone = Annotated[str, msgspec.Meta(max_length=50, pattern=ONE_LINE)]


class ShipTo(Input, kw_only=True):
    """An address an order ships to, copied onto the order."""

    noun: ClassVar[str] = "a ship-to address"

    name: Line = ""
    company: Line = ""
    line1: Line1
    line2: Line = ""
    city: City
    region: Region = ""
    postal_code: PostalCode = ""
    country: Country
    phone: Phone = ""

    def new_address(self) -> NewAddress:
        return NewAddress(**msgspec.structs.asdict(self))


class ShipToPatch(Input, kw_only=True):
    """A change of an order's ship-to, merged into it as a JSON merge patch (RFC 7396): a
    field given replaces the order's, `null` clears it, a field left out stays as it is. The
    merged address is checked whole: clearing `line1`, `city` or `country`, or patching an
    order without a ship-to with less than those, answers 422 naming each missing one."""

    noun: ClassVar[str] = "a ship-to address"

    name: Line | msgspec.UnsetType | None = msgspec.UNSET
    company: Line | msgspec.UnsetType | None = msgspec.UNSET
    line1: Line1 | msgspec.UnsetType | None = msgspec.UNSET
    line2: Line | msgspec.UnsetType | None = msgspec.UNSET
    city: City | msgspec.UnsetType | None = msgspec.UNSET
    region: Region | msgspec.UnsetType | None = msgspec.UNSET
    postal_code: PostalCode | msgspec.UnsetType | None = msgspec.UNSET
    country: Country | msgspec.UnsetType | None = msgspec.UNSET
    phone: Phone | msgspec.UnsetType | None = msgspec.UNSET

    def patch(self) -> ship_to_rules.AddressPatch:
        """The fields given, as models.orders.editing.edit_order merges them."""
        given = msgspec.structs.asdict(self).items()
        return ship_to_rules.AddressPatch(
            {field: value for field, value in given if value is not msgspec.UNSET}
        )


ShipToAddressId = Annotated[
    int,
    msgspec.Meta(
        ge=1,
        description="Extension: one of the customer's addresses, copied onto the order "
        "(instead of `ship_to`)",
    ),
]


def ship_to_body(stored: str | dict[str, str] | None) -> ShipTo | None:
    copy = ship_to_rules.decode(stored)
    return None if copy is None else ShipTo(**copy)


def _one_ship_to(ship_to: object, address_id: object) -> None:
    """`ship_to` and `ship_to_address_id` name the same thing: one at most."""
    given = (value not in (None, msgspec.UNSET) for value in (ship_to, address_id))
    if all(given):
        raise InvalidFields(
            {"ship_to_address_id": ["Give ship_to or ship_to_address_id, not both."]}
        )


class Order(Schema):
    id: Annotated[int, msgspec.Meta(description="Numeric id, used in paths")]
    number: Annotated[
        str,
        msgspec.Meta(
            description=(
                "ORD-<year>-<sequence>: per workspace and calendar year (workspace time "
                "zone), gapless, at least 4 digits. Not accepted in paths"
            )
        ),
    ]
    stage: Stage
    substage: Annotated[
        str | None, msgspec.Meta(description="A free label inside the stage, or null")
    ]
    due_by: LocalTimestamp | None
    dispatched_at: Timestamp | None
    carrier: str | None
    tracking_number: str | None
    external_ref: Annotated[
        str | None,
        msgspec.Meta(
            description="Extension: the caller's own reference (unique per workspace), or null"
        ),
    ]
    totals: Totals
    customer: CustomerRef
    lines: list[OrderLine]
    created_at: Timestamp
    updated_at: UpdatedAt


class StageHistoryEntry(Schema):
    from_: Stage | None = msgspec.field(name="from")
    to: Stage
    at: Timestamp


class Invoice(Schema):
    id: Annotated[int, msgspec.Meta(description="Numeric id, used in paths (GET /invoices/{id})")]
    number: str
    status: InvoiceStatus
    total: int
    currency: str
    issued_at: Timestamp | None
    paid_at: Timestamp | None


class Proof(Schema):
    """One proof sent to the customer (extension)."""

    version: int
    file_name: str
    content_type: Annotated[
        str, msgspec.Meta(description="application/pdf, image/png or image/jpeg (by content)")
    ]
    size: Annotated[int, msgspec.Meta(description="Bytes")]
    created_at: Timestamp
    customer_comment: Annotated[
        str | None,
        msgspec.Meta(description="What the customer asked to change in this version, or null"),
    ]


class Artwork(Schema):
    """An order's artwork: its status, the current version and who approved it (the order
    detail's `artwork`, and the answer of the artwork endpoints)."""

    status: ArtworkStatus
    version: Annotated[
        int, msgspec.Meta(description="The current proof's version; 0 until a first proof")
    ]
    approved_at: Timestamp | None
    approved_by: Annotated[
        str | None,
        msgspec.Meta(
            description="Extension: the name the customer gave when approving on the proof "
            "page, or the name given with a recorded approval (`operator` for one recorded "
            "at a shell); null until approved"
        ),
    ] = None
    approval_source: Annotated[
        ApprovalSource | None,
        msgspec.Meta(
            description="Extension: how the approval was given: `customer` on the proof "
            "page, `recorded` elsewhere (at checkout, by phone) and recorded by staff, an "
            "integration or an operator; null until approved, and for approvals older than "
            "this field"
        ),
    ] = None
    approval_note: Annotated[
        str | None,
        msgspec.Meta(description="Extension: the note of a recorded approval, or null"),
    ] = None
    proofs: Annotated[
        list[Proof], msgspec.Meta(description="Extension: every proof sent, oldest first")
    ] = msgspec.field(default_factory=list)


class OrderDetail(Order):
    stage_history: Annotated[
        list[StageHistoryEntry],
        msgspec.Meta(
            description='Oldest first; the first entry is {"from": null, "to": "artwork"}'
        ),
    ]
    invoices: Annotated[
        list[Invoice],
        msgspec.Meta(
            description="INV-<year>-<sequence>, oldest first; currency, issued_at and paid_at "
            "are extensions"
        ),
    ]
    artwork: Annotated[
        Artwork, msgspec.Meta(description="version 0 and awaiting_proof until a proof exists")
    ]
    items: Annotated[
        list[Item],
        msgspec.Meta(description="Extension: the garments, in order"),
    ] = msgspec.field(default_factory=list)
    revision: Annotated[
        int,
        msgspec.Meta(
            description="Extension: 1 at creation, +1 on every change of lines, items, due "
            "date, notes, external_ref or ship-to"
        ),
    ] = 1
    ship_to: Annotated[
        ShipTo | None,
        msgspec.Meta(description="Extension: the address it ships to, or null"),
    ] = None
    prices_include_tax: Annotated[
        bool,
        msgspec.Meta(
            description="Extension: line prices are gross; `total_cents` is the sum of the "
            "line totals and tax is the part of it the rate gives"
        ),
    ] = False


# Due dates repeat (many orders share a date), and converting one to the workspace's zone is
# the dearest part of an order row: remember recent answers.
_LOCAL_ISO_CACHE: dict[tuple[str | dt.datetime, str], str] = {}
_LOCAL_ISO_CACHE_SIZE = 4096


def local_iso(value: str | dt.datetime | None, timezone: str) -> str | None:
    """`due_by` keeps the workspace's offset, so its date part is the date that was asked for."""
    if value is None:
        return None
    key = (value, timezone)
    text = _LOCAL_ISO_CACHE.get(key)
    if text is None:
        text = when(value).astimezone(ZoneInfo(timezone)).isoformat(timespec="seconds")
        if len(_LOCAL_ISO_CACHE) >= _LOCAL_ISO_CACHE_SIZE:
            _LOCAL_ISO_CACHE.clear()
        _LOCAL_ISO_CACHE[key] = text
    return text


def lines_by_order(rows: Iterable[LineRow]) -> dict[int, list[OrderLine]]:
    """Line rows grouped by their order id."""
    grouped: dict[int, list[OrderLine]] = {}
    for row in rows:
        line = OrderLine(
            description=row.description,
            quantity=row.quantity,
            unit_price_cents=row.unit_price_cents,
            line_total_cents=row.line_total_cents,
            sku=row.sku,
            price_source=row.price_source,
            price_breakdown=row.price_breakdown
            if isinstance(row.price_breakdown, PriceBreakdown) or row.price_breakdown is None
            else price_parts.decode(row.price_breakdown),
            item_id=row.item_id,
        )
        if row.order_id in grouped:
            grouped[row.order_id].append(line)
        else:
            grouped[row.order_id] = [line]
    return grouped


def _order(row: OrderRow, lines: list[OrderLine], timezone: str) -> Order:
    return Order(
        id=row.id,
        number=row.number,
        stage=row.stage,
        substage=row.substage,
        due_by=local_iso(row.due_by, timezone),
        dispatched_at=iso_or_none(row.dispatched_at),
        carrier=row.carrier,
        tracking_number=row.tracking_number,
        external_ref=row.external_ref,
        totals=Totals(
            subtotal_cents=row.subtotal_cents,
            tax_cents=row.tax_cents,
            total_cents=row.total_cents,
            currency=row.currency,
        ),
        customer=CustomerRef(id=row.customer_id, name=row.customer_name, slug=row.customer_slug),
        lines=lines,
        created_at=iso(row.created_at),
        updated_at=iso(row.updated_at),
    )


def order_bodies(rows: list[OrderRow], line_rows: list[LineRow], timezone: str) -> list[Order]:
    """A list page's orders, each with its lines."""
    lines = lines_by_order(line_rows)
    return [_order(row, lines.get(row.id, []), timezone) for row in rows]


def order_detail_body(rows: OrderRows, timezone: str) -> OrderDetail:
    """An order's detail, for GET /orders/{id}, the create's 201 and every other answer that
    shows one (built from rows read, or from the rows a create wrote)."""
    order = rows.order
    return OrderDetail(
        **msgspec.structs.asdict(
            _order(order, lines_by_order(rows.lines).get(order.id, []), timezone)
        ),
        stage_history=[
            StageHistoryEntry(from_=entry.from_stage, to=entry.to_stage, at=iso(entry.at))
            for entry in rows.history
        ],
        invoices=[
            Invoice(
                id=invoice.id,
                number=invoice.number,
                status=invoice.status,
                total=invoice.total_cents,
                currency=invoice.currency,
                issued_at=iso_or_none(invoice.issued_at),
                paid_at=iso_or_none(invoice.paid_at),
            )
            for invoice in rows.invoices
        ],
        artwork=artwork_body(order.artwork, rows.proofs),
        items=item_bodies(rows.items),
        revision=order.revision,
        ship_to=ship_to_body(order.ship_to),
        prices_include_tax=bool(order.prices_include_tax),
    )


class PricePreview(Schema):
    """What `POST /orders` would make of the same body: its lines and totals."""

    lines: list[OrderLine]
    totals: Totals
    prices_include_tax: bool


def price_preview_body(rows: OrderRows) -> PricePreview:
    order = rows.order
    return PricePreview(
        lines=lines_by_order(rows.lines).get(order.id, []),
        totals=Totals(
            subtotal_cents=order.subtotal_cents,
            tax_cents=order.tax_cents,
            total_cents=order.total_cents,
            currency=order.currency,
        ),
        prices_include_tax=bool(order.prices_include_tax),
    )


def artwork_body(row: ArtworkRow | None, proofs: Iterable[ProofRow]) -> Artwork:
    """An order's artwork from its row (None: the order has none, so no proof either) and
    its proofs, oldest first. Who approved, and how, is shown while it is approved."""
    if row is None:
        return Artwork(status="awaiting_proof", version=0, approved_at=None)
    approved = row.status == "approved"
    return Artwork(
        status=row.status,
        version=row.version,
        approved_at=iso_or_none(row.approved_at),
        approved_by=row.approved_by if approved else None,
        approval_source=row.approval_source if approved else None,
        approval_note=row.approval_note if approved else None,
        proofs=[
            Proof(
                version=proof.version,
                file_name=proof.file_name,
                content_type=proof.content_type,
                size=proof.size,
                created_at=iso(proof.created_at),
                customer_comment=proof.customer_comment,
            )
            for proof in proofs
        ],
    )


def validated_part(detail: OrderDetail) -> bytes:
    """What an order's ETag covers: the whole detail but the live SKU levels shown beside its
    stocked items, which change with other orders and stock counts, not with this order."""
    if not any(item.stock for item in detail.items):
        return msgspec.json.encode(detail)
    items = [msgspec.structs.replace(item, stock=None) for item in detail.items]
    return msgspec.json.encode(msgspec.structs.replace(detail, items=items))


# --- request bodies (decoded strictly, errors collected from these Structs: api/validation.py) ---

MAX_LINES = 500
MAX_DESCRIPTION = 255
MAX_QUANTITY = 10_000
MAX_UNIT_PRICE_CENTS = 100_000_000
MAX_NOTES = 2_000
MAX_EXTERNAL_REF = 100
MAX_SKU_CODE = 64
MAX_CARRIER = 100
MAX_TRACKING_NUMBER = 100
EARLIEST_DUE_BY = dt.date(1900, 1, 1)
# The last date whose midnight exists in every time zone's UTC range.
LATEST_DUE_BY = dt.date(9999, 12, 30)

AdvanceTarget = Literal["artwork", "print_queue", "in_production", "qc_pack", "dispatched"]


class OrderLineCreate(Input):
    description: Annotated[
        str, msgspec.Meta(max_length=MAX_DESCRIPTION, pattern=NOT_BLANK, description="Not blank")
    ]
    quantity: Annotated[int, msgspec.Meta(ge=1, le=MAX_QUANTITY)]
    unit_price_cents: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=MAX_UNIT_PRICE_CENTS,
            description="Tax-exclusive unit price in minor units, used as given",
        ),
    ]
    sku: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=MAX_SKU_CODE,
                pattern=NOT_BLANK,
                description=(
                    "Extension: a SKU code of the workspace. Reserves `quantity` at create; "
                    "consumed when the order first reaches in_production or later"
                ),
            ),
        ]
        | None
    ) = None


DueBy = Annotated[
    dt.date,
    msgspec.Meta(
        description=(
            "Calendar date (YYYY-MM-DD, 1900-01-01 to 9999-12-30); returned as "
            "00:00 of that date in the workspace time zone"
        ),
        extra={"rule": DateBetween(EARLIEST_DUE_BY, LATEST_DUE_BY)},
    ),
]
Notes = Annotated[
    str,
    msgspec.Meta(
        max_length=MAX_NOTES,
        pattern=MULTI_LINE,
        description="Internal; never returned. May hold line breaks",
    ),
]
ExternalRef = Annotated[
    str,
    msgspec.Meta(
        max_length=MAX_EXTERNAL_REF,
        pattern=NOT_BLANK,
        description="Extension: the caller's own reference, unique per workspace",
    ),
]
LineList = Annotated[list[OrderLineCreate], msgspec.Meta(max_length=MAX_LINES)]


PricesIncludeTax = Annotated[
    bool,
    msgspec.Meta(
        description="Extension: line prices are gross (tax included); default: the "
        "workspace's setting"
    ),
]


class OrderCreate(Input):
    customer_id: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            description=(
                "A customer of the token's workspace; any other id answers 422 `errors.customer_id`"
            ),
        ),
    ]
    lines: (
        Annotated[
            LineList,
            msgspec.Meta(
                description="Required, at least one, unless `items` is given",
                extra={"rule": RequiredUnless("items")},
            ),
        ]
        | None
    ) = None
    items: ItemList | None = None
    due_by: DueBy | None = None
    notes: Notes | None = None
    external_ref: ExternalRef | None = None
    ship_to: (
        Annotated[
            ShipTo,
            msgspec.Meta(
                description="Extension: the address it ships to; without it (and without "
                "`ship_to_address_id`) the customer's default address is copied"
            ),
        ]
        | None
    ) = None
    ship_to_address_id: ShipToAddressId | None = None
    prices_include_tax: PricesIncludeTax | None = None

    def __post_init__(self) -> None:
        """The spec's `lines` rule holds for an order without items."""
        _one_ship_to(self.ship_to, self.ship_to_address_id)
        if self.items:
            return
        if self.lines is None:
            raise InvalidFields({"lines": ["The lines field is required."]})
        if not self.lines:
            raise InvalidFields({"lines": ["The lines field must have at least 1 line."]})

    def new_lines(self) -> list[NewLine]:
        """The lines as models.orders.creating.create takes them."""
        return new_lines(self.lines or [])

    def new_items(self) -> list[NewItem]:
        return [item.new_item() for item in self.items or []]


def new_lines(lines: list[OrderLineCreate]) -> list[NewLine]:
    return [
        NewLine(
            description=line.description,
            quantity=line.quantity,
            unit_price_cents=line.unit_price_cents,
            sku=line.sku,
        )
        for line in lines
    ]


class OrderUpdate(Input):
    """`PATCH /orders/{id}`: only the fields sent change; a given `lines` or
    `items` replaces all of its kind; a given `ship_to` is merged into the order's."""

    due_by: DueBy | msgspec.UnsetType | None = msgspec.UNSET
    notes: Notes | msgspec.UnsetType | None = msgspec.UNSET
    external_ref: ExternalRef | msgspec.UnsetType | None = msgspec.UNSET
    lines: LineList | msgspec.UnsetType = msgspec.UNSET
    items: ItemList | msgspec.UnsetType = msgspec.UNSET
    ship_to: (
        Annotated[
            ShipToPatch,
            msgspec.Meta(
                description="Merged into the order's ship-to (RFC 7396): only the fields "
                "given change, a field's null clears it; null removes the whole ship-to"
            ),
        ]
        | msgspec.UnsetType
        | None
    ) = msgspec.UNSET
    ship_to_address_id: ShipToAddressId | msgspec.UnsetType = msgspec.UNSET
    prices_include_tax: PricesIncludeTax | msgspec.UnsetType = msgspec.UNSET

    def __post_init__(self) -> None:
        _one_ship_to(self.ship_to, self.ship_to_address_id)

    def edit(self) -> OrderEdit:
        """The change as models.orders.editing.edit_order takes it."""
        return OrderEdit(
            due_by=KEEP if self.due_by is msgspec.UNSET else self.due_by,
            notes=KEEP if self.notes is msgspec.UNSET else self.notes or "",
            external_ref=KEEP if self.external_ref is msgspec.UNSET else self.external_ref,
            lines=None if self.lines is msgspec.UNSET else new_lines(self.lines),
            items=None if self.items is msgspec.UNSET else [item.new_item() for item in self.items],
            ship_to=KEEP
            if self.ship_to is msgspec.UNSET
            else (None if self.ship_to is None else self.ship_to.patch()),
            ship_to_address_id=None
            if self.ship_to_address_id is msgspec.UNSET
            else self.ship_to_address_id,
            prices_include_tax=KEEP
            if self.prices_include_tax is msgspec.UNSET
            else self.prices_include_tax,
        )


class AdvanceRequest(Input):
    noun: ClassVar[str] = "a stage move"

    to_stage: Annotated[
        AdvanceTarget,
        msgspec.Meta(
            description="The stage to move to; `cancelled` is not accepted",
            extra={
                "rule": Refused(
                    {"cancelled": "Orders are cancelled by an operator, not through the API."}
                )
            },
        ),
    ]
    carrier: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=MAX_CARRIER,
                pattern=ONE_LINE,
                description=(
                    "Extension, only with to_stage=dispatched; default: the order's carrier, "
                    "else the customer's default carrier"
                ),
            ),
        ]
        | None
    ) = None
    tracking_number: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=MAX_TRACKING_NUMBER,
                pattern=ONE_LINE,
                description="Extension, only with to_stage=dispatched",
            ),
        ]
        | None
    ) = None

    def __post_init__(self) -> None:
        """Carrier details belong to a dispatch."""
        if self.to_stage == "dispatched":
            return
        extras = {"carrier": self.carrier, "tracking_number": self.tracking_number}
        errors = {
            name: [f"The {name} field is only accepted when to_stage is dispatched."]
            for name, value in extras.items()
            if value is not None
        }
        if errors:
            raise InvalidFields(errors)
