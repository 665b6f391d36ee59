"""Rows for tests, written straight to the tables (the API under test only reads them)."""

from __future__ import annotations

import datetime as dt
import itertools
from decimal import Decimal
from typing import Any

from models import clock, tokens
from models.tables import (
    Artwork,
    Contact,
    Customer,
    Invoice,
    Order,
    OrderLine,
    Payment,
    PriceList,
    Sku,
    StageChange,
    User,
    Workspace,
)

_seq = itertools.count(1)


async def workspace(**fields: Any) -> Workspace:
    """A workspace written as a row. The approval rule is off unless a test turns it on (new
    workspaces have it on, models/accounts.py): most tests move orders without proofs."""
    values: dict[str, Any] = {
        "name": f"Workspace {next(_seq)}",
        "plan": "premium",
        "currency": "GBP",
        "tax_rate": Decimal("20.00"),
        "timezone": "Europe/London",
        "require_artwork_approval": False,
    }
    values.update(fields)
    row = Workspace(**values)
    await row.save()
    return row


async def user(ws: Workspace, **fields: Any) -> User:
    n = next(_seq)
    values: dict[str, Any] = {
        "workspace": ws.id,
        "name": f"User {n}",
        "email": f"user{n}@example.com",
    }
    values.update(fields)
    row = User(**values)
    await row.save()
    return row


async def token(u: User, **fields: Any) -> str:
    _, clear = await tokens.create_token(workspace_id=u.workspace, user_id=u.id, **fields)
    return clear


async def account(**workspace_fields: Any) -> tuple[Workspace, User, dict[str, str]]:
    """A workspace with one user and the Authorization header of a fresh token."""
    ws = await workspace(**workspace_fields)
    u = await user(ws)
    return ws, u, {"Authorization": f"Bearer {await token(u)}"}


async def headers(u: User, **token_fields: Any) -> dict[str, str]:
    """The Authorization header of a fresh token for `u`."""
    return {"Authorization": f"Bearer {await token(u, **token_fields)}"}


async def caller(ws: Workspace) -> dict[str, str]:
    """Auth headers of a new user of `ws`: tests making many requests spread them over
    several users, since rate limits count per user."""
    return await headers(await user(ws))


async def price_list(ws: Workspace, name: str = "Trade", discount: str = "12.50") -> PriceList:
    row = PriceList(workspace=ws.id, name=name, discount_percent=Decimal(discount))
    await row.save()
    return row


async def customer(ws: Workspace, name: str | None = None, **fields: Any) -> Customer:
    n = next(_seq)
    name = name or f"Customer {n}"
    values: dict[str, Any] = {
        "workspace": ws.id,
        "name": name,
        "slug": fields.pop("slug", None) or f"{name.lower().replace(' ', '-')}-{n}",
        "payment_terms": "net_30",
        "default_carrier": "DPD",
    }
    values.update(fields)
    row = Customer(**values)
    await row.save()
    return row


async def contact(c: Customer, **fields: Any) -> Contact:
    n = next(_seq)
    values: dict[str, Any] = {
        "workspace": c.workspace,
        "customer": c.id,
        "name": f"Contact {n}",
        "email": f"contact{n}@example.com",
        "phone": "+44 20 7946 0000",
        "is_primary": False,
    }
    values.update(fields)
    row = Contact(**values)
    await row.save()
    return row


async def sku(ws: Workspace, code: str | None = None, **fields: Any) -> Sku:
    n = next(_seq)
    values: dict[str, Any] = {
        "workspace": ws.id,
        "code": code or f"SKU-{n:05d}",
        "style": "Classic Tee",
        "brand": "Gildan",
        "colour": "Black",
        "colour_hex": "#000000",
        "size": "M",
        "on_hand": 100,
        "reserved": 0,
        "reorder_point": 10,
    }
    values.update(fields)
    row = Sku(**values)
    await row.save()
    return row


async def order(
    ws: Workspace,
    c: Customer,
    *,
    stage: str = "artwork",
    lines: list[tuple[str, int, int]] | None = None,
    created_at: dt.datetime | None = None,
    line_skus: list[int | None] | None = None,
    artwork: bool = True,
    **fields: Any,
) -> Order:
    """An order with lines, its first history entry and artwork row; totals at 20% tax.

    `line_skus` gives each line's SKU id (or None); `artwork=False` leaves out the artwork
    row, to check the detail's default artwork."""
    n = next(_seq)
    lines = lines if lines is not None else [("Front print", 10, 1250)]
    subtotal = sum(q * p for _, q, p in lines)
    tax = (subtotal * 20 + 50) // 100
    created = created_at or clock.now()
    row = Order(
        workspace=ws.id,
        customer=c.id,
        number=f"ORD-{created.year}-{n:04d}",
        number_year=created.year,
        number_seq=n,
        stage=stage,
        currency=ws.currency,
        subtotal_cents=subtotal,
        tax_cents=tax,
        total_cents=subtotal + tax,
        tax_rate=fields.pop("tax_rate", Decimal(20)),
        created_at=created,
        updated_at=fields.pop("updated_at", created),
        **fields,
    )
    await row.save()
    for position, (description, quantity, price) in enumerate(lines):
        await OrderLine(
            workspace=ws.id,
            order=row.id,
            position=position,
            description=description,
            quantity=quantity,
            unit_price_cents=price,
            line_total_cents=quantity * price,
            sku=line_skus[position] if line_skus else None,
        ).save()
    await StageChange(
        workspace=ws.id, order=row.id, from_stage=None, to_stage="artwork", at=created
    ).save()
    if artwork:
        await Artwork(workspace=ws.id, order=row.id).save()
    return row


async def stage_change(o: Order, from_stage: str | None, to_stage: str, at: dt.datetime) -> None:
    """A stage-history entry (the order's own `stage` is not touched)."""
    await StageChange(
        workspace=o.workspace, order=o.id, from_stage=from_stage, to_stage=to_stage, at=at
    ).save()


async def set_artwork(o: Order, **fields: Any) -> None:
    """Change the order's artwork row (status, version, approved_at)."""
    await Artwork.update(fields).where(Artwork.order == o.id)


async def invoice(o: Order, *, status: str = "issued", total: int | None = None) -> Invoice:
    n = next(_seq)
    row = Invoice(
        workspace=o.workspace,
        order=o.id,
        customer=o.customer,
        number=f"INV-2026-{n:04d}",
        number_year=2026,
        number_seq=n,
        status=status,
        total_cents=o.total_cents if total is None else total,
        currency=o.currency,
        issued_at=clock.now(),
        paid_at=clock.now() if status == "paid" else None,
        due_at=clock.now() + dt.timedelta(days=30),
        paid_cents=(o.total_cents if total is None else total) if status == "paid" else 0,
    )
    await row.save()
    return row


async def payment(inv: Invoice, amount: int = 100, **fields: Any) -> Payment:
    """A payment of `amount` against an issued invoice, counted in its `paid_cents`, recorded by
    an operator."""
    values: dict[str, Any] = {
        "workspace": inv.workspace,
        "invoice": inv.id,
        "amount_cents": amount,
        "method": "cash",
        "paid_at": clock.now(),
        "actor_kind": "operator",
    }
    values.update(fields)
    row = Payment(**values)
    await row.save()
    await Invoice.update({Invoice.paid_cents: Invoice.paid_cents + amount}).where(
        Invoice.id == inv.id
    )
    return row
