"""Shared set-up for the order write tests: a shop with a customer, request shortcuts, and a
snapshot of every table a create or an advance writes (to prove a failure wrote nothing)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from models.tables import (
    Artwork,
    Contact,
    Customer,
    CustomerMessage,
    Invoice,
    NumberSequence,
    Order,
    OrderLine,
    Sku,
    StageChange,
    User,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
    Workspace,
)
from tests import factories


@dataclass
class Shop:
    ws: Workspace
    user: User
    auth: dict[str, str]
    customer: Customer
    contact: Contact


async def shop(**workspace_fields: Any) -> Shop:
    """A premium workspace (20% tax, Europe/London) with one customer and its primary contact."""
    ws, user, auth = await factories.account(**workspace_fields)
    customer = await factories.customer(ws, "Acme Tees")
    contact = await factories.contact(customer, is_primary=True)
    return Shop(ws, user, auth, customer, contact)


async def more_callers(ws: Workspace, count: int) -> list[dict[str, str]]:
    """Auth headers of `count` new users of `ws` (rate limits count per user)."""
    headers = []
    for _ in range(count):
        user = await factories.user(ws)
        headers.append({"Authorization": f"Bearer {await factories.token(user)}"})
    return headers


def line(**fields: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "description": "Front print",
        "quantity": 10,
        "unit_price_cents": 1250,
    }
    values.update(fields)
    return values


def order_body(customer_id: int, **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"customer_id": customer_id, "lines": [line()]}
    body.update(fields)
    return body


async def create(
    client: httpx.AsyncClient, auth: dict[str, str], body: dict[str, Any], **headers: str
) -> httpx.Response:
    return await client.post("/api/v1/orders", json=body, headers={**auth, **headers})


async def advance(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    order_id: int,
    to_stage: Any,
    headers: dict[str, str] | None = None,
    **fields: Any,
) -> httpx.Response:
    return await client.post(
        f"/api/v1/orders/{order_id}/advance",
        json={"to_stage": to_stage, **fields},
        headers={**auth, **(headers or {})},
    )


async def subscription(ws: Workspace, **fields: Any) -> WebhookSubscription:
    values: dict[str, Any] = {
        "workspace": ws.id,
        "url": "http://127.0.0.1:9/hook",
        "events": "*",
        "secret": "whsec_test",
    }
    values.update(fields)
    row = WebhookSubscription(**values)
    await row.save()
    return row


WRITTEN_TABLES = (
    Order,
    OrderLine,
    StageChange,
    Artwork,
    Invoice,
    CustomerMessage,
    WebhookEvent,
    WebhookDelivery,
)


async def snapshot() -> dict[str, Any]:
    """Row counts of every written table, the counters and stock levels, order stages."""
    state: dict[str, Any] = {table._meta.tablename: await table.count() for table in WRITTEN_TABLES}
    state["sequences"] = await NumberSequence.select(
        NumberSequence.workspace,
        NumberSequence.kind,
        NumberSequence.year,
        NumberSequence.last_value,
    ).order_by(NumberSequence.id)
    state["skus"] = await Sku.select(Sku.id, Sku.on_hand, Sku.reserved, Sku.updated_at).order_by(
        Sku.id
    )
    state["orders"] = await Order.select(
        Order.id, Order.stage, Order.stock_consumed, Order.updated_at, Order.dispatched_at
    ).order_by(Order.id)
    state["customers"] = await Customer.select(Customer.id, Customer.updated_at).order_by(
        Customer.id
    )
    return state
