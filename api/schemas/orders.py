"""Orders: list rows, detail, and the create/advance request bodies."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal
from zoneinfo import ZoneInfo

import msgspec

from api.schemas.common import LocalTimestamp, Schema, Timestamp
from models.clock import iso

Stage = Literal["artwork", "print_queue", "in_production", "qc_pack", "dispatched", "cancelled"]
InvoiceStatus = Literal["draft", "issued", "paid", "void"]
ArtworkStatus = Literal["awaiting_proof", "awaiting_approval", "approved", "changes_requested"]


class Totals(Schema):
    subtotal_cents: int
    tax_cents: int
    total_cents: int
    currency: str


class CustomerRef(Schema):
    id: int
    name: str
    slug: str


class OrderLine(Schema):
    description: str
    quantity: int
    unit_price_cents: int
    line_total_cents: int
    sku: str | None = None


class Order(Schema):
    id: int
    number: str
    stage: Stage
    substage: str | None
    due_by: LocalTimestamp | None
    dispatched_at: Timestamp | None
    carrier: str | None
    tracking_number: str | None
    external_ref: str | None
    totals: Totals
    customer: CustomerRef
    lines: list[OrderLine]
    created_at: Timestamp
    updated_at: Timestamp


class StageHistoryEntry(Schema):
    from_: Stage | None = msgspec.field(name="from")
    to: Stage
    at: Timestamp


class Invoice(Schema):
    number: str
    status: InvoiceStatus
    total: int
    currency: str
    issued_at: Timestamp | None
    paid_at: Timestamp | None


class Artwork(Schema):
    status: ArtworkStatus
    version: int
    approved_at: Timestamp | None


class OrderDetail(Order):
    stage_history: list[StageHistoryEntry]
    invoices: list[Invoice]
    artwork: Artwork


def _iso(value: dt.datetime | None) -> str | None:
    return iso(value) if value is not None else None


def local_iso(value: dt.datetime | None, timezone: str) -> str | None:
    """`due_by` keeps the workspace's offset, so its date part is the date that was asked for."""
    if value is None:
        return None
    return value.astimezone(ZoneInfo(timezone)).isoformat(timespec="seconds")


def _order_fields(
    row: dict[str, Any], lines: list[dict[str, Any]], timezone: str
) -> dict[str, Any]:
    return {
        "id": row["id"],
        "number": row["number"],
        "stage": row["stage"],
        "substage": row["substage"],
        "due_by": local_iso(row["due_by"], timezone),
        "dispatched_at": _iso(row["dispatched_at"]),
        "carrier": row["carrier"],
        "tracking_number": row["tracking_number"],
        "external_ref": row["external_ref"],
        "totals": Totals(
            subtotal_cents=row["subtotal_cents"],
            tax_cents=row["tax_cents"],
            total_cents=row["total_cents"],
            currency=row["currency"],
        ),
        "customer": CustomerRef(
            id=row["customer_id"], name=row["customer_name"], slug=row["customer_slug"]
        ),
        "lines": [OrderLine(**line) for line in lines],
        "created_at": iso(row["created_at"]),
        "updated_at": iso(row["updated_at"]),
    }


def order_body(row: dict[str, Any], lines: list[dict[str, Any]], timezone: str) -> Order:
    return Order(**_order_fields(row, lines, timezone))


def order_detail_body(row: dict[str, Any], timezone: str) -> OrderDetail:
    artwork = row["artwork"] or {"status": "awaiting_proof", "version": 0, "approved_at": None}
    return OrderDetail(
        **_order_fields(row, row["lines"], timezone),
        stage_history=[
            StageHistoryEntry(from_=entry["from_stage"], to=entry["to_stage"], at=iso(entry["at"]))
            for entry in row["stage_history"]
        ],
        invoices=[
            Invoice(
                number=invoice["number"],
                status=invoice["status"],
                total=invoice["total_cents"],
                currency=invoice["currency"],
                issued_at=_iso(invoice["issued_at"]),
                paid_at=_iso(invoice["paid_at"]),
            )
            for invoice in row["invoices"]
        ],
        artwork=Artwork(
            status=artwork["status"],
            version=artwork["version"],
            approved_at=_iso(artwork["approved_at"]),
        ),
    )
