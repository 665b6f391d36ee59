"""Input limits (docs/api.md §6) on every POST of the route table, strict JSON, and the check
order of docs/api.md §2.2 and §5 for a large body: never a 5xx, always a documented 4xx."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from models import accounts, members, proofs
from tests import factories
from tests.api.route_table import fill, post_routes


def order_body(customer_id: int) -> dict[str, Any]:
    line = {"description": "Front print", "quantity": 2, "unit_price_cents": 500}
    return {"customer_id": customer_id, "lines": [line]}


MIB = 1024 * 1024
# Routes with a body limit of their own: (the limit, the 413's message).
OWN_LIMITS = {
    "/api/v1/orders/{order_id}/proofs": (
        proofs.UPLOAD_BODY_BYTES,
        "Request body too large (limit 12 MiB)",
    ),
}
JSON = {"Content-Type": "application/json"}
ME = "/api/v1/me"


async def records(ws: Any) -> dict[str, int | str]:
    """A record of `ws` for every path parameter of the POST routes."""
    customer = await factories.customer(ws)
    order = await factories.order(ws, customer)
    invoice = await factories.invoice(order)
    payment = await factories.payment(invoice)
    return {
        "customer_id": customer.id,
        "order_id": order.id,
        "invoice_id": invoice.id,
        "payment_id": payment.id,
    }


async def test_bodies_over_their_limit_answer_413_on_every_post(app, client):
    """1 MiB, but for a proof upload: its own limit, a proof's 10 MiB and the form around it."""
    ws, _, _ = await factories.account()
    ids = await records(ws)

    for template in post_routes(app):
        limit, words = OWN_LIMITS.get(template, (MIB, "Request body too large (limit 1 MiB)"))

        async def chunks(size: int = limit) -> Any:  # no Content-Length: held while streaming
            for _ in range(size // (64 * 1024) + 1):
                yield b" " * (64 * 1024)

        auth = await factories.caller(ws)  # a fresh user per route: no write limit in play
        path = fill(template, ids)
        sized = await client.post(path, content=b" " * (limit + 1), headers={**auth, **JSON})
        streamed = await client.post(path, content=chunks(), headers={**auth, **JSON})
        for response in (sized, streamed):
            assert response.status_code == 413, (template, response.text)
            assert response.json()["message"] == words
            # The write limit, but for the price preview, which saves nothing: a read.
            reads = template == "/api/v1/prices"
            assert response.headers["X-RateLimit-Limit"] == ("60" if reads else "20")
            assert response.headers["X-RateLimit-Bucket"] == ("read" if reads else "write")
        assert "content-length" not in streamed.request.headers


async def test_a_body_of_exactly_one_mib_is_accepted(client):
    ws, _, auth = await factories.account()
    customer = await factories.customer(ws)
    body = msgspec.json.encode(order_body(customer.id))
    padded = body + b" " * (MIB - len(body))
    response = await client.post("/api/v1/orders", content=padded, headers={**auth, **JSON})
    assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"{", id="truncated"),
        pytest.param(b'{"customer_id": 1,}', id="trailing-comma"),
        pytest.param(b'{"to_stage": "\xff\xfe"}', id="invalid-utf8"),
        pytest.param(b'{"to_stage": NaN}', id="nan"),
        pytest.param(b"[]", id="array"),
        pytest.param(b'"text"', id="string"),
        pytest.param(b"null", id="null"),
        pytest.param(b'{"customer_id": 1' + b"0" * 5000 + b"}", id="huge-integer"),
        pytest.param(b"[" * 500 + b"]" * 500, id="nested-500"),
        pytest.param(b"[" * 200_000 + b"]" * 200_000, id="nested-200000"),
        pytest.param(b'{"a":' * 100_000 + b"1" + b"}" * 100_000, id="nested-objects"),
        pytest.param(b'{"notes": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", id="nested-field"),
    ],
)
async def test_malformed_json_is_a_422_naming_the_body(app, client, raw):
    ws, _, _ = await factories.account()
    ids = await records(ws)
    for template in post_routes(app):
        path = fill(template, ids)
        auth = await factories.caller(ws)  # a fresh user per route: no write limit in play
        response = await client.post(path, content=raw, headers={**auth, **JSON})
        assert response.status_code == 422, (template, response.text[:300])
        body = response.json()
        assert body["message"] and isinstance(body["errors"], dict)
        assert body["errors"], "a malformed body names the failing part"


async def test_form_and_other_content_types_never_fail_the_server(app, client):
    ws, _, _ = await factories.account()
    ids = await records(ws)
    for template in post_routes(app):
        path = fill(template, ids)
        auth = await factories.caller(ws)  # a fresh user per route: no write limit in play
        for headers, content in (
            ({"Content-Type": "application/x-www-form-urlencoded"}, b"to_stage=qc_pack"),
            ({"Content-Type": "multipart/form-data; boundary=x"}, b"--x--"),
            ({"Content-Type": "text/plain"}, b"hello"),
            ({"Content-Type": "application/json; charset=latin-1"}, b'{"to_stage": "\xe9"}'),
            ({}, b""),
        ):
            response = await client.post(path, content=content, headers={**auth, **headers})
            assert response.status_code == 422, (template, headers, response.text[:300])
            assert response.json()["message"]


async def test_long_query_strings_and_headers_are_not_errors(client):
    _, _, auth = await factories.account()
    long_stage = await client.get("/api/v1/orders", params={"stage": "x" * 8000}, headers=auth)
    assert long_stage.status_code == 422
    assert "stage" in long_stage.json()["errors"]
    long_header = await client.get(ME, headers={**auth, "X-Padding": "y" * 60_000})
    assert long_header.status_code == 200


async def test_check_order_for_a_large_body(client):
    """401 → 403 → 422 (plan) → 429 all come before the body is read (so before 413)."""
    ws, u, auth = await factories.account()
    big = b" " * (MIB + 1)
    assert (await client.post("/api/v1/orders", content=big)).status_code == 401
    for _ in range(20):
        await client.post("/api/v1/orders", content=b"{}", headers={**auth, **JSON})
    limited = await client.post("/api/v1/orders", content=big, headers={**auth, **JSON})
    assert limited.status_code == 429
    await accounts.set_workspace(ws.id, plan="standard")
    assert (await client.post("/api/v1/orders", content=big, headers=auth)).status_code == 422
    await members.set_user_active(u.id, False)
    assert (await client.post("/api/v1/orders", content=big, headers=auth)).status_code == 403
