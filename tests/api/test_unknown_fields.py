"""Every write route of the API, found in the app's route table (a route added later
included), refuses a field its body does not have: 422 naming it, and nothing written."""

from __future__ import annotations

from typing import Any

import httpx
from litestar import Litestar

from models.tables import Customer, Order, WebhookEvent
from tests import factories
from tests.api.route_table import fill, write_routes

UNKNOWN = "shipTo"


def _body_kind(app: Litestar, method: str, template: str) -> str | None:
    """The media type of the route's request body in the OpenAPI document, if it takes one."""
    paths = app.openapi_schema.to_schema()["paths"]
    operation = paths[template][method.lower()]
    content = operation.get("requestBody", {}).get("content", {})
    return next(iter(content), None)


async def _records(client: httpx.AsyncClient, auth: dict[str, str]) -> dict[str, int | str]:
    ws_id = (await client.get("/api/v1/me", headers=auth)).json()["workspace"]["id"]
    customer = await Customer.objects().where(Customer.workspace == ws_id).first()
    assert customer is not None
    contact = await client.post(
        f"/api/v1/customers/{customer.id}/contacts",
        json={"name": "Al", "email": "al@example.com"},
        headers=auth,
    )
    address = await client.post(
        f"/api/v1/customers/{customer.id}/addresses",
        json={"line1": "1 Mill Lane", "city": "Leeds", "country": "GB"},
        headers=auth,
    )
    order = await Order.objects().where(Order.workspace == ws_id).first()
    assert order is not None
    invoice = await factories.invoice(order)
    payment = await factories.payment(invoice)
    return {
        "customer_id": customer.id,
        "contact_id": contact.json()["id"],
        "address_id": address.json()["id"],
        "order_id": order.id,
        "invoice_id": invoice.id,
        "payment_id": payment.id,
    }


async def test_every_write_route_refuses_a_field_it_does_not_have(
    app: Litestar, client: httpx.AsyncClient
) -> None:
    ws, _, auth = await factories.account()
    customer = await factories.customer(ws)
    await factories.order(ws, customer)
    ids = await _records(client, auth)
    events = await WebhookEvent.count()
    checked = []
    for route in write_routes(app, ("/api/v1",)):
        kind = _body_kind(app, route.method, route.template)
        if kind is None:
            continue  # no body to send a field in (DELETE)
        path = fill(route.template, ids)
        request: dict[str, Any]
        if kind == "multipart/form-data":
            request = {
                "data": {UNKNOWN: "1"},
                "files": {"file": ("a.png", b"\x89PNG", "image/png")},
            }
        else:
            request = {"json": {UNKNOWN: "1"}}
        response = await client.request(route.method, path, headers=auth, **request)
        assert response.status_code == 422, (str(route), response.text)
        body = response.json()
        assert body["code"] == "validation_failed", (str(route), body)
        assert body["errors"][UNKNOWN][0].startswith(f"{UNKNOWN} is not a field of"), (
            str(route),
            body,
        )
        checked.append(str(route))
    assert await WebhookEvent.count() == events  # nothing was written
    # The walk saw the routes it must (a broken route table would pass vacuously).
    assert "POST /api/v1/orders" in checked
    assert "PATCH /api/v1/orders/{order_id}" in checked
    assert "POST /api/v1/invoices/{invoice_id}/payments" in checked
    assert "POST /api/v1/payments/{payment_id}/void" in checked
    assert len(checked) >= 10, checked
