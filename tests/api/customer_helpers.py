"""Shared steps of the customer-writing tests: requests from a fresh user
each (the write limit counts per user), and the events a customer got."""

from __future__ import annotations

import json
from typing import Any

import httpx

from models.tables import WebhookEvent, Workspace
from tests import factories

BASE = "/api/v1/customers"


async def send(
    client: httpx.AsyncClient,
    ws: Workspace,
    method: str,
    path: str,
    body: Any = None,
    **headers: str,
) -> httpx.Response:
    """One request by a new user of `ws`; `body` bytes go as they are, else as JSON."""
    auth = await factories.caller(ws)
    if isinstance(body, bytes):
        return await client.request(
            method,
            BASE + path,
            content=body,
            headers={**auth, "Content-Type": "application/json", **headers},
        )
    return await client.request(method, BASE + path, json=body, headers={**auth, **headers})


async def create(client: httpx.AsyncClient, ws: Workspace, **body: Any) -> dict[str, Any]:
    response = await send(client, ws, "POST", "", {"name": "Hop & Barley", **body})
    assert response.status_code == 201, response.text
    return response.json()


async def detail(client: httpx.AsyncClient, ws: Workspace, customer_id: int) -> httpx.Response:
    return await send(client, ws, "GET", f"/{customer_id}")


async def events(customer_id: int) -> list[tuple[str, dict[str, Any]]]:
    """The customer's events in the order recorded: (name, data of the body)."""
    rows = (
        await WebhookEvent.select(WebhookEvent.name, WebhookEvent.body)
        .where(WebhookEvent.customer == customer_id)
        .order_by(WebhookEvent.id)
    )
    return [(row["name"], json.loads(row["body"])) for row in rows]


async def event_names(customer_id: int) -> list[str]:
    return [name for name, _ in await events(customer_id)]


def address(**fields: Any) -> dict[str, Any]:
    values: dict[str, Any] = {"line1": "1 Brew Lane", "city": "Leeds", "country": "GB"}
    values.update(fields)
    return values
