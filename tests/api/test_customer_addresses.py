"""Addresses over the API: POST /customers/{id}/addresses, PATCH and DELETE
/customers/{id}/addresses/{address_id}; exactly one default whenever any exist (also under
concurrent writes), `customer.updated` once per change and none on a refusal, If-Match with
the customer's ETag, Idempotency-Key replays, tenancy and validation."""

from __future__ import annotations

import asyncio
from typing import Any

from models.tables import Address
from tests import factories
from tests.api.customer_helpers import address, create, detail, event_names, send


async def defaults(customer_id: int) -> list[str]:
    rows = await Address.select(Address.label).where(
        (Address.customer == customer_id) & (Address.is_default == True)  # noqa: E712
    )
    return [row["label"] for row in rows]


async def add(client, ws, customer_id: int, **fields: Any):
    return await send(client, ws, "POST", f"/{customer_id}/addresses", address(**fields))


async def test_an_address_has_every_field_and_the_first_is_the_default(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A")

    response = await add(
        client, ws, c["id"], label="Brewery", name="Al Hop", company="Hop & Barley",
        line2="Unit 4", region="West Yorkshire", postal_code="LS1 1AA", phone="+44 113 000",
        is_default=False,
    )  # fmt: skip

    assert response.status_code == 201, response.text
    assert response.json() == {
        "id": response.json()["id"],
        "label": "Brewery",
        "name": "Al Hop",
        "company": "Hop & Barley",
        "line1": "1 Brew Lane",
        "line2": "Unit 4",
        "city": "Leeds",
        "region": "West Yorkshire",
        "postal_code": "LS1 1AA",
        "country": "GB",
        "phone": "+44 113 000",
        "is_default": True,
    }
    assert (await detail(client, ws, c["id"])).json()["addresses"] == [response.json()]
    assert await event_names(c["id"]) == ["customer.created", "customer.updated"]


async def test_a_new_default_unmakes_the_old_and_false_never_unmakes(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A", addresses=[address(label="One")])
    one = c["addresses"][0]

    two = await add(client, ws, c["id"], label="Two", is_default=True)
    kept = await send(
        client, ws, "PATCH", f"/{c['id']}/addresses/{two.json()['id']}", {"is_default": False}
    )
    back = await send(
        client,
        ws,
        "PATCH",
        f"/{c['id']}/addresses/{one['id']}",
        {"is_default": True, "city": "Hull"},
    )

    assert two.json()["is_default"] is True
    assert kept.json()["is_default"] is True
    assert back.status_code == 200 and back.json()["city"] == "Hull"
    assert back.json()["line1"] == "1 Brew Lane"  # fields not sent stay
    assert await defaults(c["id"]) == ["One"]
    shown = (await detail(client, ws, c["id"])).json()["addresses"]
    assert [a["label"] for a in shown] == ["One", "Two"]


async def test_deleting_the_default_promotes_the_oldest_other(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A", addresses=[
        address(label="One"), address(label="Two"), address(label="Three"),
    ])  # fmt: skip
    one, two, three = c["addresses"]

    gone = await send(client, ws, "DELETE", f"/{c['id']}/addresses/{one['id']}")

    assert gone.status_code == 204
    assert await defaults(c["id"]) == ["Two"]
    assert (
        await send(client, ws, "DELETE", f"/{c['id']}/addresses/{three['id']}")
    ).status_code == 204
    assert await defaults(c["id"]) == ["Two"]
    assert (
        await send(client, ws, "DELETE", f"/{c['id']}/addresses/{two['id']}")
    ).status_code == 204
    assert (await detail(client, ws, c["id"])).json()["addresses"] == []
    assert await event_names(c["id"]) == ["customer.created"] + ["customer.updated"] * 3


async def test_concurrent_writes_leave_exactly_one_default(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A")

    answers = await asyncio.gather(
        add(client, ws, c["id"], label="One"), add(client, ws, c["id"], label="Two")
    )
    assert [r.status_code for r in answers] == [201, 201]
    assert len(await defaults(c["id"])) == 1

    shown = (await detail(client, ws, c["id"])).json()["addresses"]
    answers = await asyncio.gather(
        add(client, ws, c["id"], label="Three", is_default=True),
        add(client, ws, c["id"], label="Four", is_default=True),
        send(client, ws, "DELETE", f"/{c['id']}/addresses/{shown[0]['id']}"),
        send(
            client,
            ws,
            "PATCH",
            f"/{c['id']}/addresses/{shown[1]['id']}",
            {"is_default": True},
        ),
    )
    assert sorted(r.status_code for r in answers) == [200, 201, 201, 204]
    assert len(await defaults(c["id"])) == 1
    assert await Address.count().where(Address.customer == c["id"]) == 3
    assert await event_names(c["id"]) == ["customer.created"] + ["customer.updated"] * 6


async def test_if_match_and_idempotency_key(client):
    ws, _, auth = await factories.account()
    c = await create(client, ws, name="A", addresses=[address(label="One")])
    one = c["addresses"][0]
    etag = (await detail(client, ws, c["id"])).headers["etag"]

    ok = await send(
        client, ws, "PATCH", f"/{c['id']}/addresses/{one['id']}", {"label": "1"},
        **{"If-Match": etag},
    )  # fmt: skip
    stale = await send(
        client, ws, "DELETE", f"/{c['id']}/addresses/{one['id']}", **{"If-Match": etag}
    )
    assert (ok.status_code, stale.status_code) == (200, 412)

    path = f"/api/v1/customers/{c['id']}/addresses"
    headers = {**auth, "Idempotency-Key": "address-1"}
    first = await client.post(path, json=address(label="Two"), headers=headers)
    again = await client.post(path, json=address(label="Two"), headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.content == first.content and again.headers["idempotent-replayed"] == "true"
    assert await Address.count().where(Address.customer == c["id"]) == 2
    assert await event_names(c["id"]) == ["customer.created"] + ["customer.updated"] * 2


async def test_another_workspaces_customer_and_address_are_404(client):
    ws, _, _ = await factories.account()
    theirs, _, _ = await factories.account()
    mine = await create(client, ws, name="Mine", addresses=[address()])
    c = await create(client, theirs, name="Theirs", addresses=[address(label="Theirs")])
    their_address = c["addresses"][0]["id"]

    answers = [
        await add(client, ws, c["id"]),
        await send(client, ws, "PATCH", f"/{c['id']}/addresses/{their_address}", {"city": "X"}),
        await send(client, ws, "DELETE", f"/{c['id']}/addresses/{their_address}"),
        await send(client, ws, "PATCH", f"/{mine['id']}/addresses/{their_address}", {"city": "X"}),
        await send(client, ws, "DELETE", f"/{mine['id']}/addresses/{their_address}"),
    ]

    assert [r.status_code for r in answers] == [404] * 5
    assert (await detail(client, theirs, c["id"])).json()["addresses"] == c["addresses"]
    assert await event_names(c["id"]) == ["customer.created"]


async def test_bad_addresses_are_422_and_change_nothing(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A", addresses=[address()])
    one = c["addresses"][0]["id"]

    for body in (
        {"city": "Leeds", "country": "GB"},
        {"line1": "1 Road", "country": "GB"},
        {"line1": "1 Road", "city": "Leeds"},
        address(country="gb"),
        address(country="GBR"),
        address(line1="   "),
        address(line1="x\u0000"),
        address(city="x" * 101),
        address(postal_code="1" * 21),
        address(is_default="yes"),
        address(label=["x"]),
    ):
        response = await send(client, ws, "POST", f"/{c['id']}/addresses", body)
        assert response.status_code == 422, (body, response.text)
    for body in ({"country": "uk"}, {"line1": ""}, {"city": None}, {"region": "\u0000"}):
        response = await send(client, ws, "PATCH", f"/{c['id']}/addresses/{one}", body)
        assert response.status_code == 422, (body, response.text)
    missing = await send(client, ws, "POST", f"/{c['id']}/addresses", {"country": "GB"})
    assert set(missing.json()["errors"]) == {"line1", "city"}
    assert (await detail(client, ws, c["id"])).json()["addresses"] == c["addresses"]
    assert await event_names(c["id"]) == ["customer.created"]
