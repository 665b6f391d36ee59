"""PATCH /api/v1/orders/{id} with `ship_to` merges it into the order's address (JSON Merge
Patch, RFC 7396): the fields given change, a field's `null` clears it, the fields left out
stay; `"ship_to": null` removes the address. The merged address is checked whole, errors under
`ship_to.<field>`. A whole address (the admin's, the domain's NewAddress) merges to itself."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from models.actors import OPERATOR
from models.customers.addresses import NewAddress
from models.orders import editing
from models.tables import Order, WebhookEvent
from tests.api.order_helpers import Shop, create, more_callers, order_body, shop, subscription
from tests.api.test_order_ship_to import WAREHOUSE

REQUIRED = ("line1", "city", "country")


async def new_order(client: httpx.AsyncClient, s: Shop, **fields: Any) -> int:
    response = await create(client, s.auth, order_body(s.customer.id, **fields))
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


async def patch(
    client: httpx.AsyncClient, s: Shop, order_id: int, body: Any, auth: dict[str, str] | None = None
) -> httpx.Response:
    return await client.patch(f"/api/v1/orders/{order_id}", json=body, headers=auth or s.auth)


async def stored(order_id: int) -> tuple[int, Any]:
    """The order's revision and its ship-to as stored (decoded)."""
    row = await Order.select(Order.revision, Order.ship_to).where(Order.id == order_id).first()
    assert row is not None
    ship_to = row["ship_to"]
    return row["revision"], json.loads(ship_to) if isinstance(ship_to, str) else ship_to


async def test_a_partial_ship_to_changes_only_the_fields_given(client):
    s = await shop()
    order_id = await new_order(client, s, ship_to=WAREHOUSE)

    response = await patch(client, s, order_id, {"ship_to": {"city": "Bradford"}})

    assert response.status_code == 200, response.text
    merged = {**WAREHOUSE, "city": "Bradford"}
    assert response.json()["ship_to"] == merged
    assert list(response.json()["ship_to"]) == list(WAREHOUSE)
    assert response.json()["revision"] == 2
    assert await stored(order_id) == (2, merged)
    again = await patch(client, s, order_id, {"ship_to": {"line2": "Gate B", "postal_code": "BD1"}})
    assert again.json()["ship_to"] == {**merged, "line2": "Gate B", "postal_code": "BD1"}


async def test_null_clears_an_optional_field_and_keeps_the_others(client):
    s = await shop()
    order_id = await new_order(client, s, ship_to=WAREHOUSE)

    response = await patch(client, s, order_id, {"ship_to": {"phone": None, "company": None}})

    assert response.status_code == 200, response.text
    cleared = {**WAREHOUSE, "phone": "", "company": ""}
    assert response.json()["ship_to"] == cleared
    assert await stored(order_id) == (2, cleared)


async def test_clearing_a_required_field_is_422_naming_it_and_changes_nothing(client):
    s = await shop()
    order_id = await new_order(client, s, ship_to=WAREHOUSE)
    before = await stored(order_id)

    for field in REQUIRED:
        response = await patch(client, s, order_id, {"ship_to": {field: None, "name": "Sam"}})
        assert response.status_code == 422, response.text
        key = f"ship_to.{field}"
        assert response.json()["errors"] == {key: [f"The {key} field is required."]}
    every = await patch(client, s, order_id, {"ship_to": dict.fromkeys(REQUIRED)})
    assert every.status_code == 422
    assert set(every.json()["errors"]) == {f"ship_to.{field}" for field in REQUIRED}
    assert await stored(order_id) == before


async def test_null_for_the_whole_ship_to_removes_it(client):
    s = await shop()
    order_id = await new_order(client, s, ship_to=WAREHOUSE)

    response = await patch(client, s, order_id, {"ship_to": None})

    assert response.status_code == 200, response.text
    assert response.json()["ship_to"] is None
    assert await stored(order_id) == (2, None)
    read = await client.get(f"/api/v1/orders/{order_id}", headers=s.auth)
    assert read.json()["ship_to"] is None


async def test_an_order_without_a_ship_to_is_patched_from_an_empty_address(client):
    s = await shop()
    order_id = await new_order(client, s)
    assert (await stored(order_id))[1] is None

    partial = await patch(client, s, order_id, {"ship_to": {"city": "York"}})
    assert partial.status_code == 422, partial.text
    assert partial.json()["errors"] == {
        "ship_to.line1": ["The ship_to.line1 field is required."],
        "ship_to.country": ["The ship_to.country field is required."],
    }
    assert await stored(order_id) == (1, None)

    whole = {"line1": "1 High Street", "city": "York", "country": "GB"}
    response = await patch(client, s, order_id, {"ship_to": whole})
    assert response.status_code == 200, response.text
    assert response.json()["ship_to"] == dict.fromkeys(WAREHOUSE, "") | whole


async def test_an_invalid_value_is_422_under_its_field_and_changes_nothing(client):
    s = await shop()
    order_id = await new_order(client, s, ship_to=WAREHOUSE)
    before = await stored(order_id)
    cases: list[tuple[dict[str, Any], set[str]]] = [
        ({"country": "gb"}, {"ship_to.country"}),
        ({"country": "GBR"}, {"ship_to.country"}),
        ({"line1": "   "}, {"ship_to.line1"}),
        ({"city": ""}, {"ship_to.city"}),
        ({"line2": "a\nb"}, {"ship_to.line2"}),
        ({"postal_code": "x" * 21}, {"ship_to.postal_code"}),
        ({"phone": 44}, {"ship_to.phone"}),
        ({"line1": None, "city": "York", "country": None}, {"ship_to.line1", "ship_to.country"}),
        ({"town": "Leeds"}, {"ship_to.town"}),  # not a field of an address
    ]
    for given, keys in cases:
        response = await patch(client, s, order_id, {"ship_to": given})
        assert response.status_code == 422, (given, response.text)
        assert set(response.json()["errors"]) == keys, (given, response.json())
    for body in ({"ship_to": "1 High Street"}, {"ship_to": ["York"]}):
        response = await patch(client, s, order_id, body)
        assert response.status_code == 422, (body, response.text)
        assert "ship_to" in response.json()["errors"]
    both = await patch(client, s, order_id, {"ship_to": {"city": "York"}, "ship_to_address_id": 1})
    assert both.status_code == 422
    assert both.json()["errors"] == {
        "ship_to_address_id": ["Give ship_to or ship_to_address_id, not both."]
    }
    assert await stored(order_id) == before


async def test_the_merged_values_are_trimmed_as_a_whole_address_is(client):
    s = await shop()
    order_id = await new_order(client, s, ship_to=WAREHOUSE)

    response = await patch(client, s, order_id, {"ship_to": {"city": "  York  "}})

    assert response.status_code == 200, response.text
    assert response.json()["ship_to"]["city"] == "York"


async def test_an_empty_ship_to_keeps_the_address(client):
    s = await shop()
    order_id = await new_order(client, s, ship_to=WAREHOUSE)

    response = await patch(client, s, order_id, {"ship_to": {}})

    assert response.status_code == 200, response.text
    assert response.json()["ship_to"] == WAREHOUSE


async def test_the_order_updated_event_names_ship_to_and_the_detail_shows_the_merge(client):
    s = await shop()
    await subscription(s.ws)
    order_id = await new_order(client, s, ship_to=WAREHOUSE)

    response = await patch(client, s, order_id, {"ship_to": {"city": "Hull", "phone": None}})

    assert response.status_code == 200, response.text
    rows = await WebhookEvent.select(WebhookEvent.name, WebhookEvent.body).where(
        WebhookEvent.order == order_id
    )
    [event] = [json.loads(row["body"]) for row in rows if row["name"] == "order.updated"]
    assert (event["changed"], event["revision"]) == (["ship_to"], 2)
    merged = {**WAREHOUSE, "city": "Hull", "phone": ""}
    read = await client.get(f"/api/v1/orders/{order_id}", headers=s.auth)
    assert read.json()["ship_to"] == merged
    assert read.json()["revision"] == event["revision"]


async def test_two_simultaneous_partial_patches_both_keep_their_field(client):
    """Each merge reads the address under the order's lock: neither loses the other's field."""
    s = await shop()
    other = (await more_callers(s.ws, 1))[0]
    order_id = await new_order(client, s, ship_to=WAREHOUSE)

    answers = await asyncio.gather(
        patch(client, s, order_id, {"ship_to": {"city": "Hull"}}),
        patch(client, s, order_id, {"ship_to": {"phone": "+44 1482 000000"}}, auth=other),
    )

    assert [r.status_code for r in answers] == [200, 200], [r.text for r in answers]
    merged = {**WAREHOUSE, "city": "Hull", "phone": "+44 1482 000000"}
    assert await stored(order_id) == (3, merged)


async def test_a_whole_address_given_to_the_domain_replaces_the_ship_to(client):
    """The admin and other callers may give a NewAddress: it merges to exactly that address
    (its fields left out are blank), as before."""
    s = await shop()
    order_id = await new_order(client, s, ship_to=WAREHOUSE)
    whole = NewAddress(line1="2 Low Road", city="Hull", country="GB", name="Dock")

    await editing.edit_order(
        workspace_id=s.ws.id,
        order_id=order_id,
        edit=editing.OrderEdit(ship_to=whole),
        actor=OPERATOR,
    )

    expected = dict.fromkeys(WAREHOUSE, "") | {
        "name": "Dock",
        "line1": "2 Low Road",
        "city": "Hull",
        "country": "GB",
    }
    assert await stored(order_id) == (2, expected)
