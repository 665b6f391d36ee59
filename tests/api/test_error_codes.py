"""Errors a client can act on: every error body has a stable `code` and `details`; one 422
names every problem of a body at every depth (rules between fields included); a field or
filter a route does not take is refused, not ignored (the fixed page size aside)."""

from __future__ import annotations

import asyncio

from models.errors import ErrorCode
from models.tables import Customer, Order
from tests import factories
from tests.api.order_helpers import advance, create, line, order_body, shop


async def test_a_typo_in_an_order_body_is_refused_at_every_depth_with_the_other_errors(client):
    s = await shop()
    body = order_body(
        s.customer.id,
        due_by="2026-13-01",
        shipTo={"line1": "1 Mill Lane"},
        lines=[line(qty=3), line(quantity=0)],
        items=[
            {
                "style": "G5000",
                "colour": "Black",
                "sizes": {"M": 2},
                "unit_price_cents": 450,
                "imprints": [{"location": "front", "method": "screen", "colour": 2}],
            }
        ],
    )

    response = await create(client, s.auth, body)

    assert response.status_code == 422, response.text
    errors = response.json()["errors"]
    assert errors["shipTo"] == ["shipTo is not a field of an order."]
    assert errors["lines.0.qty"] == ["qty is not a field of an order line."]
    assert errors["items.0.imprints.0.colour"] == ["colour is not a field of an imprint."]
    assert "due_by" in errors
    assert "lines.1.quantity" in errors
    # The imprint's own rule (colours for screen printing) is named with the rest.
    assert errors["items.0.imprints.0.colours"] == [
        "The items.0.imprints.0.colours field is required for screen printing."
    ]
    assert response.json()["code"] == "validation_failed"
    assert await Order.count() == 0


async def test_a_customer_with_a_bad_name_and_a_bad_contact_email_hears_of_both(client):
    ws, _, auth = await factories.account()

    response = await client.post(
        "/api/v1/customers",
        json={"name": " ", "contacts": [{"name": "Al", "email": "al at hop"}]},
        headers=auth,
    )

    assert response.status_code == 422, response.text
    errors = response.json()["errors"]
    assert errors["name"] == ["The name field must not be blank."]
    assert errors["contacts.0.email"][0].startswith(
        "The contacts.0.email field must be an email address such as name@example.com"
    )
    assert await Customer.count().where(Customer.workspace == ws.id) == 0


async def test_an_email_with_spaces_around_it_is_still_taken_trimmed(client):
    _, _, auth = await factories.account()
    response = await client.post(
        "/api/v1/customers",
        json={"name": "Hop", "contacts": [{"name": "Al", "email": "  al@hop.test "}]},
        headers=auth,
    )
    assert response.status_code == 201, response.text
    assert response.json()["contacts"][0]["email"] == "al@hop.test"


async def test_an_unknown_list_filter_is_refused_naming_the_filters_and_page_sizes_are_ignored(
    client,
):
    s = await shop()
    await factories.order(s.ws, s.customer)

    response = await client.get("/api/v1/invoices?order=19&colour=red&page=0", headers=s.auth)
    assert response.status_code == 422, response.text
    body = response.json()
    assert set(body["errors"]) == {"colour", "page"}
    assert body["errors"]["colour"][0].startswith("colour is not a parameter of this list")
    assert "order" in body["errors"]["colour"][0]

    for size in ("per_page", "page_size", "limit", "size"):
        listed = await client.get(f"/api/v1/orders?{size}=5", headers=s.auth)
        assert listed.status_code == 200, (size, listed.text)
        assert listed.json()["per_page"] == 50


async def test_codes_name_each_kind_of_refusal(client):
    s = await shop(open_order_limit=1, require_artwork_approval=True)
    first = await create(client, s.auth, order_body(s.customer.id, external_ref="shop-19"))
    assert first.status_code == 201, first.text
    order_id = first.json()["id"]

    missing = await client.get("/api/v1/orders/999999", headers=s.auth)
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
    assert missing.json()["details"] == {}

    no_route = await client.get("/api/v1/nowhere", headers=s.auth)
    assert (no_route.status_code, no_route.json()["code"]) == (404, "not_found")

    unauthenticated = await client.get("/api/v1/orders")
    assert (unauthenticated.status_code, unauthenticated.json()["code"]) == (401, "unauthenticated")

    wrong_method = await client.put("/api/v1/orders", headers=s.auth)
    assert (wrong_method.status_code, wrong_method.json()["code"]) == (405, "method_not_allowed")

    limit = await create(client, s.auth, order_body(s.customer.id))
    assert (limit.status_code, limit.json()["code"]) == (422, "plan_limit"), limit.text
    assert limit.json()["details"] == {"limit": 1, "plan": "premium"}

    refused = await advance(client, s.auth, order_id, "in_production")
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "stage_move_refused"
    assert refused.json()["errors"] == {}

    stale = await client.patch(
        f"/api/v1/orders/{order_id}",
        json={"notes": "x"},
        headers={**s.auth, "If-Match": '"stale"'},
    )
    assert (stale.status_code, stale.json()["code"]) == (412, "precondition_failed")

    key = {"Idempotency-Key": "k-1"}
    used = await client.patch(
        f"/api/v1/orders/{order_id}", json={"notes": "a"}, headers={**s.auth, **key}
    )
    assert used.status_code == 200, used.text
    mismatch = await client.patch(
        f"/api/v1/orders/{order_id}", json={"notes": "b"}, headers={**s.auth, **key}
    )
    assert (mismatch.status_code, mismatch.json()["code"]) == (422, "idempotency_mismatch")


async def test_a_taken_external_ref_names_the_order_holding_it(client):
    s = await shop()
    first = await create(client, s.auth, order_body(s.customer.id, external_ref="shop-19"))
    holder = first.json()["id"]

    again = await create(client, s.auth, order_body(s.customer.id, external_ref="shop-19"))
    assert again.status_code == 422, again.text
    assert again.json()["code"] == "external_ref_taken"
    assert again.json()["details"] == {"order_id": holder}

    other = await create(client, s.auth, order_body(s.customer.id, external_ref="shop-20"))
    edit = await client.patch(
        f"/api/v1/orders/{other.json()['id']}", json={"external_ref": "shop-19"}, headers=s.auth
    )
    assert edit.json()["code"] == "external_ref_taken", edit.text
    assert edit.json()["details"] == {"order_id": holder}

    ws_customer = await client.post(
        "/api/v1/customers", json={"name": "A", "external_ref": "c-1"}, headers=s.auth
    )
    taken = await client.post(
        "/api/v1/customers", json={"name": "B", "external_ref": "c-1"}, headers=s.auth
    )
    assert taken.json()["code"] == "external_ref_taken"
    assert taken.json()["details"] == {"customer_id": ws_customer.json()["id"]}


async def test_an_idempotency_key_in_progress_is_coded_and_says_retry_in_a_second(client):
    s = await shop()
    body = order_body(s.customer.id)
    key = {"Idempotency-Key": "busy-1"}
    answers = await asyncio.gather(
        *(create(client, s.auth, body, **key) for _ in range(6)), return_exceptions=False
    )
    busy = [a for a in answers if a.status_code == 409]
    for answer in busy:
        assert answer.json()["code"] == "idempotency_in_progress"
        assert answer.headers["retry-after"] == "1"
    assert {a.status_code for a in answers} <= {201, 409}


def test_every_documented_error_example_has_the_body_an_error_has(app):
    document = app.openapi_schema.to_schema()
    codes = set(document["components"]["schemas"]["ErrorCode"]["enum"])
    assert codes == {code.value for code in ErrorCode}
    seen = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for status, response in operation.get("responses", {}).items():
                if not status.startswith("4") or path == "/health":
                    continue
                for media in response.get("content", {}).values():
                    for example in media.get("examples", {}).values():
                        body = example["value"]
                        where = (method, path, status, body)
                        assert body["code"] in codes, where
                        assert isinstance(body["details"], dict), where
                        assert ("errors" in body) == (status == "422"), where
                        seen += 1
    assert seen > 50
