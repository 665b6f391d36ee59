"""Contacts over the API: POST /customers/{id}/contacts, PATCH and DELETE
/customers/{id}/contacts/{contact_id}; exactly one primary whenever any exist (also under
concurrent writes), `customer.updated` once per change and none on a refusal, If-Match with
the customer's ETag, Idempotency-Key replays, tenancy and validation."""

from __future__ import annotations

import asyncio
from typing import Any

from models.tables import Contact
from tests import factories
from tests.api.customer_helpers import create, detail, event_names, send


async def primaries(customer_id: int) -> list[str]:
    rows = await Contact.select(Contact.name).where(
        (Contact.customer == customer_id) & (Contact.is_primary == True)  # noqa: E712
    )
    return [row["name"] for row in rows]


async def add(client, ws, customer_id: int, **body: Any):
    return await send(client, ws, "POST", f"/{customer_id}/contacts", body)


async def test_the_first_contact_is_primary_and_a_new_primary_unmakes_the_old(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A")

    first = await add(client, ws, c["id"], name="Al", email="al@a.test", is_primary=False)
    second = await add(client, ws, c["id"], name="Bo", email="bo@a.test")
    third = await add(client, ws, c["id"], name="Cy", email="cy@a.test", is_primary=True)

    assert [r.status_code for r in (first, second, third)] == [201] * 3
    assert first.json() == {
        "id": first.json()["id"],
        "name": "Al",
        "email": "al@a.test",
        "phone": "",
        "is_primary": True,
    }
    assert second.json()["is_primary"] is False
    assert await primaries(c["id"]) == ["Cy"]
    shown = (await detail(client, ws, c["id"])).json()["contacts"]
    assert [(x["name"], x["is_primary"]) for x in shown] == [
        ("Cy", True),
        ("Al", False),
        ("Bo", False),
    ]
    assert await event_names(c["id"]) == ["customer.created"] + ["customer.updated"] * 3


async def test_patch_changes_the_fields_sent_and_primary_is_never_unmade(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A", contacts=[
        {"name": "Al", "email": "al@a.test", "phone": "1"}, {"name": "Bo", "email": "bo@a.test"},
    ])  # fmt: skip
    al, bo = c["contacts"]

    renamed = await send(client, ws, "PATCH", f"/{c['id']}/contacts/{bo['id']}", {"name": "Bob"})
    unmade = await send(
        client, ws, "PATCH", f"/{c['id']}/contacts/{al['id']}", {"is_primary": False}
    )
    made = await send(client, ws, "PATCH", f"/{c['id']}/contacts/{bo['id']}", {"is_primary": True})

    assert renamed.status_code == 200, renamed.text
    assert renamed.json() == {**bo, "name": "Bob"}
    assert unmade.json()["is_primary"] is True
    assert made.json()["is_primary"] is True
    assert await primaries(c["id"]) == ["Bob"]
    assert (await detail(client, ws, c["id"])).json()["contacts"][1]["phone"] == "1"


async def test_deleting_the_primary_promotes_the_oldest_other(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A", contacts=[
        {"name": "Al", "email": "al@a.test"}, {"name": "Bo", "email": "bo@a.test"},
        {"name": "Cy", "email": "cy@a.test"},
    ])  # fmt: skip
    al, bo, cy = c["contacts"]

    gone = await send(client, ws, "DELETE", f"/{c['id']}/contacts/{al['id']}")

    assert gone.status_code == 204 and gone.content == b""
    assert await primaries(c["id"]) == ["Bo"]
    assert (await send(client, ws, "DELETE", f"/{c['id']}/contacts/{cy['id']}")).status_code == 204
    assert await primaries(c["id"]) == ["Bo"]
    again = await send(client, ws, "DELETE", f"/{c['id']}/contacts/{al['id']}")
    assert again.status_code == 404
    assert await event_names(c["id"]) == ["customer.created"] + ["customer.updated"] * 2
    assert (await send(client, ws, "DELETE", f"/{c['id']}/contacts/{bo['id']}")).status_code == 204
    assert (await detail(client, ws, c["id"])).json()["contacts"] == []


async def test_concurrent_writes_leave_exactly_one_primary(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A")

    # Two first contacts at once: each would be primary alone.
    answers = await asyncio.gather(
        add(client, ws, c["id"], name="Al", email="al@a.test"),
        add(client, ws, c["id"], name="Bo", email="bo@a.test"),
    )
    assert [r.status_code for r in answers] == [201, 201]
    assert len(await primaries(c["id"])) == 1

    # Two asking to be primary at once, while the primary is removed.
    contacts = (await detail(client, ws, c["id"])).json()["contacts"]
    answers = await asyncio.gather(
        add(client, ws, c["id"], name="Cy", email="cy@a.test", is_primary=True),
        add(client, ws, c["id"], name="Di", email="di@a.test", is_primary=True),
        send(client, ws, "DELETE", f"/{c['id']}/contacts/{contacts[0]['id']}"),
        send(
            client,
            ws,
            "PATCH",
            f"/{c['id']}/contacts/{contacts[1]['id']}",
            {"is_primary": True},
        ),
    )
    assert sorted(r.status_code for r in answers) == [200, 201, 201, 204]
    assert len(await primaries(c["id"])) == 1
    assert await Contact.count().where(Contact.customer == c["id"]) == 3
    assert await event_names(c["id"]) == ["customer.created"] + ["customer.updated"] * 6


async def test_if_match_takes_the_customers_etag(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A", contacts=[
        {"name": "Al", "email": "al@a.test"}, {"name": "Bo", "email": "bo@a.test"},
    ])  # fmt: skip
    al, bo = c["contacts"]
    etag = (await detail(client, ws, c["id"])).headers["etag"]
    path = f"/{c['id']}/contacts"

    ok = await send(client, ws, "PATCH", f"{path}/{al['id']}", {"phone": "9"}, **{"If-Match": etag})
    stale_patch = await send(
        client, ws, "PATCH", f"{path}/{al['id']}", {"phone": "8"}, **{"If-Match": etag}
    )
    stale_delete = await send(client, ws, "DELETE", f"{path}/{bo['id']}", **{"If-Match": etag})
    fresh = (await detail(client, ws, c["id"])).headers["etag"]
    deleted = await send(client, ws, "DELETE", f"{path}/{bo['id']}", **{"If-Match": fresh})

    assert ok.status_code == 200, ok.text
    assert (stale_patch.status_code, stale_delete.status_code) == (412, 412)
    assert deleted.status_code == 204
    assert await event_names(c["id"]) == ["customer.created"] + ["customer.updated"] * 2


async def test_idempotent_add_and_patch_replay_without_a_second_change(client):
    ws, _, auth = await factories.account()
    c = await create(client, ws, name="A")
    path = f"/api/v1/customers/{c['id']}/contacts"
    headers = {**auth, "Idempotency-Key": "contact-1"}
    body = {"name": "Al", "email": "al@a.test"}

    first = await client.post(path, json=body, headers=headers)
    again = await client.post(path, json=body, headers=headers)

    assert first.status_code == again.status_code == 201
    assert again.content == first.content and again.headers["idempotent-replayed"] == "true"
    assert await Contact.count().where(Contact.customer == c["id"]) == 1
    edit = {**auth, "Idempotency-Key": "contact-edit-1"}
    contact_path = f"{path}/{first.json()['id']}"
    one = await client.patch(contact_path, json={"name": "Alan"}, headers=edit)
    two = await client.patch(contact_path, json={"name": "Alan"}, headers=edit)
    assert two.content == one.content and two.headers["idempotent-replayed"] == "true"
    assert await event_names(c["id"]) == ["customer.created"] + ["customer.updated"] * 2


async def test_another_workspaces_customer_and_contact_are_404(client):
    ws, _, _ = await factories.account()
    theirs, _, _ = await factories.account()
    mine = await create(client, ws, name="Mine", contacts=[{"name": "Me", "email": "me@a.test"}])
    c = await create(client, theirs, name="Theirs", contacts=[{"name": "T", "email": "t@a.test"}])
    their_contact = c["contacts"][0]["id"]

    answers = [
        await add(client, ws, c["id"], name="X", email="x@a.test"),
        await send(client, ws, "PATCH", f"/{c['id']}/contacts/{their_contact}", {"name": "X"}),
        await send(client, ws, "DELETE", f"/{c['id']}/contacts/{their_contact}"),
        # Their contact under my customer: still not mine.
        await send(client, ws, "PATCH", f"/{mine['id']}/contacts/{their_contact}", {"name": "X"}),
        await send(client, ws, "DELETE", f"/{mine['id']}/contacts/{their_contact}"),
    ]

    assert [r.status_code for r in answers] == [404] * 5
    assert (await detail(client, theirs, c["id"])).json()["contacts"] == c["contacts"]
    assert await event_names(c["id"]) == ["customer.created"]


async def test_bad_contacts_are_422_and_change_nothing(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A", contacts=[{"name": "Al", "email": "al@a.test"}])
    al = c["contacts"][0]["id"]

    for body in (
        {"email": "x@a.test"},
        {"name": "X"},
        {"name": "X", "email": "not-an-email"},
        {"name": "X", "email": "é@a.test"},
        {"name": "X\u0000", "email": "x@a.test"},
        {"name": "X", "email": "x@a.test", "phone": "1" * 51},
        {"name": "X", "email": "x@a.test", "is_primary": "true"},
        {"name": 1, "email": ["x@a.test"]},
    ):
        response = await add(client, ws, c["id"], **body)
        assert response.status_code == 422, (body, response.text)
    for body in ({"email": "nope"}, {"name": ""}, {"name": None}, {"phone": "\u0000"}):
        response = await send(client, ws, "PATCH", f"/{c['id']}/contacts/{al}", body)
        assert response.status_code == 422, (body, response.text)
    missing = await add(client, ws, c["id"], email="x@a.test")
    assert missing.json()["errors"] == {"name": ["The name field is required."]}
    assert (await detail(client, ws, c["id"])).json()["contacts"] == c["contacts"]
    assert await event_names(c["id"]) == ["customer.created"]
