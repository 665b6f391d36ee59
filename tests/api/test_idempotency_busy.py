"""A write whose Idempotency-Key is held by a request still in progress answers 409 through
the one error path (`{"message", "code", "details"}` and `Retry-After`, no ETag of the error),
on every keyed write that tags its answer: customer create and edit, order create and edit."""

from __future__ import annotations

import json
from typing import Any

import pytest

from api.idempotency import request_hash
from models import idempotency
from models.tables import Customer, IdempotencyKey, Order
from tests import factories
from tests.api.order_helpers import Shop, order_body, shop

KEY = "Idempotency-Key"


async def _hold(user_id: int, method: str, path: str, body: dict[str, Any]) -> None:
    """Claim the key as a request that is running would (models.idempotency.claim)."""
    fingerprint = request_hash(method, path, json.dumps(body).encode())
    claimed = await idempotency.claim(user_id, "held", fingerprint)
    assert isinstance(claimed, idempotency.Claim)


def _assert_busy(response: Any) -> None:
    assert response.status_code == 409, response.text
    # A second, not the 60 s left of the lease taken a moment ago: a running request is
    # usually done by then.
    assert response.headers["retry-after"] == "1"
    assert response.json() == {
        "message": "A request with this Idempotency-Key is still being processed; "
        "retry in 1 second.",
        "code": "idempotency_in_progress",
        "details": {},
    }
    assert response.headers["content-type"] == "application/json"
    assert "etag" not in response.headers
    assert "idempotent-replayed" not in response.headers


async def _send(client: Any, s: Shop, method: str, path: str, body: dict[str, Any]) -> Any:
    headers = {**s.auth, KEY: "held", "Content-Type": "application/json"}
    return await client.request(method, path, content=json.dumps(body), headers=headers)


async def test_a_customer_edit_with_a_held_key_answers_409(client):
    s = await shop()
    path = f"/api/v1/customers/{s.customer.id}"
    body = {"name": "Acme Tees Ltd"}
    await _hold(s.user.id, "PATCH", path, body)
    _assert_busy(await _send(client, s, "PATCH", path, body))
    assert (await Customer.objects().get(Customer.id == s.customer.id)).name == "Acme Tees"
    # The claim is the running request's: still there, still running.
    assert await IdempotencyKey.select(IdempotencyKey.status) == [{"status": "running"}]
    again = await client.patch(path, json=body, headers=s.auth)  # without the key: done
    assert again.status_code == 200 and again.json()["name"] == "Acme Tees Ltd"
    assert again.headers["etag"]


async def test_a_customer_create_with_a_held_key_answers_409(client):
    s = await shop()
    path = "/api/v1/customers"
    body = {"name": "Bolt Apparel"}
    await _hold(s.user.id, "POST", path, body)
    _assert_busy(await _send(client, s, "POST", path, body))
    assert await Customer.count().where(Customer.name == "Bolt Apparel") == 0


@pytest.mark.parametrize("method", ["PATCH", "POST"])
async def test_an_order_write_with_a_held_key_answers_409(client, method):
    s = await shop()
    if method == "PATCH":
        order = await factories.order(s.ws, s.customer)
        path, body = f"/api/v1/orders/{order.id}", {"notes": "Rush"}
    else:
        path, body = "/api/v1/orders", order_body(s.customer.id)
    before = await Order.select(Order.id, Order.notes, Order.revision).order_by(Order.id)
    await _hold(s.user.id, method, path, body)
    _assert_busy(await _send(client, s, method, path, body))
    assert await Order.select(Order.id, Order.notes, Order.revision).order_by(Order.id) == before
