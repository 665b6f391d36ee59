"""POST and PATCH /api/v1/customers: the created detail and its Location,
slugs and external_ref unique per workspace (also under concurrent creates), the email and
external_ref filters, `customer.created` / `customer.updated` once per change and none on a
refusal, ETag with If-None-Match 304 and If-Match 412, Idempotency-Key replays, tenancy and
strict validation."""

from __future__ import annotations

import asyncio

from models.tables import Address, Contact, Customer, WebhookEvent
from tests import factories
from tests.api.customer_helpers import address, create, detail, event_names, events, send

FULL = {
    "name": "Hop & Barley Brewing Co.",
    "external_ref": "shopify-1001",
    "payment_terms": "net_15",
    "default_carrier": "DPD",
    "tax_exempt": True,
    "contacts": [
        {"name": "Al", "email": "al@hop.test", "phone": "+44 1632 960000"},
        {"name": "Bo", "email": "bo@hop.test", "is_primary": True},
    ],
    "addresses": [address(label="Brewery"), address(label="Warehouse", city="York")],
}


async def test_create_answers_201_with_the_detail_location_and_etag(client):
    ws, _, _ = await factories.account()
    await factories.price_list(ws, "Trade", "12.50")

    response = await send(client, ws, "POST", "", {**FULL, "price_list": "Trade"})

    assert response.status_code == 201, response.text
    body = response.json()
    row = await Customer.objects().where(Customer.id == body["id"]).first()
    assert response.headers["location"] == f"http://testserver/api/v1/customers/{row.id}"
    assert body["slug"] == "hop-barley-brewing-co"
    assert body["external_ref"] == "shopify-1001"
    assert body["price_list"] == {"name": "Trade", "discount_percent": "12.50"}
    assert (body["payment_terms"], body["default_carrier"], body["tax_exempt"]) == (
        "net_15",
        "DPD",
        True,
    )
    # The one asking to be primary is; the first address is the default.
    assert [(c["name"], c["is_primary"]) for c in body["contacts"]] == [("Bo", True), ("Al", False)]
    assert [(a["label"], a["is_default"]) for a in body["addresses"]] == [
        ("Brewery", True),
        ("Warehouse", False),
    ]
    ids = {c["id"] for c in body["contacts"]}
    assert ids == {
        r["id"] for r in await Contact.select(Contact.id).where(Contact.customer == row.id)
    }
    assert await Address.count().where(Address.customer == row.id) == 2
    again = await detail(client, ws, row.id)
    assert again.json() == body
    assert again.headers["etag"] == response.headers["etag"]
    assert await event_names(row.id) == ["customer.created"]
    [(_, data)] = await events(row.id)
    assert (data["customer_id"], data["slug"], data["external_ref"]) == (
        row.id,
        "hop-barley-brewing-co",
        "shopify-1001",
    )


async def test_a_name_alone_makes_a_customer_with_the_defaults(client):
    ws, _, _ = await factories.account()

    body = await create(client, ws, name="Solo")

    assert body["contacts"] == [] and body["addresses"] == []
    assert (body["payment_terms"], body["price_list"], body["external_ref"]) == (
        "net_30",
        None,
        None,
    )


async def test_the_same_name_twice_gets_two_slugs_even_at_once(client):
    ws, _, _ = await factories.account()

    answers = await asyncio.gather(
        *(send(client, ws, "POST", "", {"name": "Twin Tees"}) for _ in range(4))
    )

    assert [r.status_code for r in answers] == [201] * 4, [r.text for r in answers]
    assert sorted(r.json()["slug"] for r in answers) == [
        "twin-tees",
        "twin-tees-2",
        "twin-tees-3",
        "twin-tees-4",
    ]


async def test_of_two_creates_with_one_external_ref_one_wins_and_one_is_422(client):
    ws, _, _ = await factories.account()

    answers = await asyncio.gather(
        send(client, ws, "POST", "", {"name": "First", "external_ref": "ref-1"}),
        send(client, ws, "POST", "", {"name": "Second", "external_ref": "ref-1"}),
    )

    assert sorted(r.status_code for r in answers) == [201, 422], [r.text for r in answers]
    [won] = [r.json() for r in answers if r.status_code == 201]
    [lost] = [r.json() for r in answers if r.status_code == 422]
    assert lost["errors"] == {
        "external_ref": [f"The external_ref has already been taken by customer {won['id']}."]
    }
    assert await Customer.count().where(Customer.workspace == ws.id) == 1
    assert await WebhookEvent.count().where(WebhookEvent.workspace == ws.id) == 1


async def test_external_ref_is_unique_per_workspace_only_and_patch_checks_it_too(client):
    ws, _, _ = await factories.account()
    other, _, _ = await factories.account()
    first = await create(client, ws, name="A", external_ref="ref-1")
    await create(client, other, name="A", external_ref="ref-1")  # another workspace: allowed
    second = await create(client, ws, name="B", external_ref="ref-2")

    taken = await send(client, ws, "PATCH", f"/{second['id']}", {"external_ref": "ref-1"})
    same = await send(client, ws, "PATCH", f"/{first['id']}", {"external_ref": "ref-1"})
    cleared = await send(client, ws, "PATCH", f"/{first['id']}", {"external_ref": None})

    assert taken.status_code == 422
    assert taken.json()["errors"]["external_ref"] == [
        f"The external_ref has already been taken by customer {first['id']}."
    ]
    assert same.status_code == 200 and same.json()["external_ref"] == "ref-1"
    assert cleared.status_code == 200 and cleared.json()["external_ref"] is None
    # A refused change records nothing; an unchanged one neither.
    assert await event_names(second["id"]) == ["customer.created"]
    assert await event_names(first["id"]) == ["customer.created", "customer.updated"]


async def test_of_two_patches_setting_one_external_ref_one_wins(client):
    ws, _, _ = await factories.account()
    a = await create(client, ws, name="A")
    b = await create(client, ws, name="B")

    answers = await asyncio.gather(
        send(client, ws, "PATCH", f"/{a['id']}", {"external_ref": "ref-x"}),
        send(client, ws, "PATCH", f"/{b['id']}", {"external_ref": "ref-x"}),
    )

    assert sorted(r.status_code for r in answers) == [200, 422], [r.text for r in answers]
    refs = await Customer.select(Customer.external_ref).where(Customer.workspace == ws.id)
    assert sorted(str(r["external_ref"]) for r in refs) == ["None", "ref-x"]


async def test_patch_changes_only_the_fields_sent_and_keeps_the_slug(client):
    ws, _, _ = await factories.account()
    await factories.price_list(ws, "Trade", "10.00")
    body = await create(client, ws, **{**FULL, "price_list": "Trade"})

    response = await send(
        client,
        ws,
        "PATCH",
        f"/{body['id']}",
        {"name": "Hop and Barley", "price_list": None, "tax_exempt": False},
    )

    assert response.status_code == 200, response.text
    changed = response.json()
    assert changed["name"] == "Hop and Barley"
    assert changed["slug"] == body["slug"]
    assert changed["price_list"] is None and changed["tax_exempt"] is False
    assert changed["contacts"] == body["contacts"] and changed["addresses"] == body["addresses"]
    assert changed["payment_terms"] == "net_15" and changed["external_ref"] == "shopify-1001"
    assert response.headers["etag"] == (await detail(client, ws, body["id"])).headers["etag"]
    [created, updated] = await events(body["id"])
    assert (created[0], updated[0]) == ("customer.created", "customer.updated")
    assert updated[1]["name"] == "Hop and Barley"


async def test_an_unknown_price_list_is_refused_and_not_created(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A")

    made = await send(client, ws, "POST", "", {"name": "B", "price_list": "Nope"})
    edited = await send(client, ws, "PATCH", f"/{c['id']}", {"price_list": "Nope"})

    for response in (made, edited):
        assert response.status_code == 422, response.text
        assert response.json()["errors"] == {"price_list": ["The selected price_list is invalid."]}
    assert await Customer.count().where(Customer.workspace == ws.id) == 1


async def test_etag_if_none_match_304_and_if_match_412(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A")
    first = await detail(client, ws, c["id"])
    etag = first.headers["etag"]

    cached = await send(client, ws, "GET", f"/{c['id']}", **{"If-None-Match": etag})
    assert cached.status_code == 304 and cached.content == b""
    assert cached.headers["etag"] == etag

    ok = await send(client, ws, "PATCH", f"/{c['id']}", {"name": "B"}, **{"If-Match": etag})
    assert ok.status_code == 200, ok.text
    stale = await send(client, ws, "PATCH", f"/{c['id']}", {"name": "C"}, **{"If-Match": etag})
    assert stale.status_code == 412, stale.text
    assert set(stale.json()) == {"message", "code", "details"}
    assert (stale.json()["code"], stale.json()["details"]) == ("precondition_failed", {})
    chained = await send(
        client, ws, "PATCH", f"/{c['id']}", {"name": "D"}, **{"If-Match": ok.headers["etag"]}
    )
    assert chained.status_code == 200, chained.text
    fresh = await send(client, ws, "GET", f"/{c['id']}", **{"If-None-Match": etag})
    assert fresh.status_code == 200 and fresh.json()["name"] == "D"
    assert await event_names(c["id"]) == ["customer.created"] + ["customer.updated"] * 2


async def test_of_two_patches_from_one_read_one_is_412(client):
    ws, _, _ = await factories.account()
    c = await create(client, ws, name="A")
    etag = (await detail(client, ws, c["id"])).headers["etag"]

    answers = await asyncio.gather(
        send(client, ws, "PATCH", f"/{c['id']}", {"name": "B"}, **{"If-Match": etag}),
        send(client, ws, "PATCH", f"/{c['id']}", {"name": "C"}, **{"If-Match": etag}),
    )

    assert sorted(r.status_code for r in answers) == [200, 412], [r.text for r in answers]
    assert await event_names(c["id"]) == ["customer.created", "customer.updated"]


async def test_idempotency_key_replays_create_and_patch_once(client):
    ws, _, auth = await factories.account()
    headers = {**auth, "Idempotency-Key": "create-1"}
    body = {"name": "Once", "external_ref": "once-1"}

    first = await client.post("/api/v1/customers", json=body, headers=headers)
    again = await client.post("/api/v1/customers", json=body, headers=headers)
    other = await client.post("/api/v1/customers", json={"name": "Twice"}, headers=headers)

    assert first.status_code == again.status_code == 201
    assert again.content == first.content
    assert again.headers["idempotent-replayed"] == "true"
    assert again.headers["location"] == first.headers["location"]
    assert other.status_code == 422
    assert await Customer.count().where(Customer.workspace == ws.id) == 1
    customer_id = first.json()["id"]

    patch_headers = {**auth, "Idempotency-Key": "patch-1"}
    path = f"/api/v1/customers/{customer_id}"
    one = await client.patch(path, json={"name": "Renamed"}, headers=patch_headers)
    two = await client.patch(path, json={"name": "Renamed"}, headers=patch_headers)
    assert one.status_code == two.status_code == 200
    assert two.content == one.content and two.headers["idempotent-replayed"] == "true"
    assert await event_names(customer_id) == ["customer.created", "customer.updated"]


async def test_email_and_external_ref_filters(client):
    ws, _, _ = await factories.account()
    other, _, _ = await factories.account()
    a = await create(client, ws, name="A", external_ref="ext-a", contacts=[
        {"name": "Al", "email": "Al@Example.com"}, {"name": "Bo", "email": "bo@example.com"},
    ])  # fmt: skip
    b = await create(client, ws, name="B", contacts=[{"name": "Al", "email": "al@example.com"}])
    await create(client, other, name="Z", external_ref="ext-a",
                 contacts=[{"name": "Al", "email": "al@example.com"}])  # fmt: skip

    async def ids(**params: str) -> list[int]:
        auth = await factories.caller(ws)
        response = await client.get("/api/v1/customers", params=params, headers=auth)
        assert response.status_code == 200, response.text
        return [row["id"] for row in response.json()["data"]]

    assert await ids(email="AL@example.COM") == [a["id"], b["id"]]
    assert await ids(email="bo@example.com") == [a["id"]]
    assert await ids(email="example.com") == []  # exact, not a substring
    assert await ids(external_ref="ext-a") == [a["id"]]
    assert await ids(external_ref="EXT-A") == []
    assert await ids(email="al@example.com", external_ref="ext-a") == [a["id"]]
    assert await ids(email="x" * 300) == []
    assert await ids(external_ref="%") == []


async def test_another_workspaces_customer_is_404_and_unchanged(client):
    ws, _, _ = await factories.account()
    theirs, _, _ = await factories.account()
    c = await create(client, theirs, name="Theirs")

    edit = await send(client, ws, "PATCH", f"/{c['id']}", {"name": "Mine now"})
    read = await detail(client, ws, c["id"])

    assert (edit.status_code, read.status_code) == (404, 404)
    assert (await detail(client, theirs, c["id"])).json()["name"] == "Theirs"
    assert await event_names(c["id"]) == ["customer.created"]


async def test_bad_bodies_are_422_with_every_field_by_dot_path(client):
    ws, _, _ = await factories.account()

    response = await send(client, ws, "POST", "", {
        "name": 5,
        "external_ref": "x" * 101,
        "payment_terms": "net_90",
        "tax_exempt": "yes",
        "contacts": [{"name": "Al", "email": "not an email"}, {"email": "a@b.co"}],
        "addresses": [address(country="gb"), {"line1": "1 Road", "country": "GB"}],
    })  # fmt: skip

    assert response.status_code == 422, response.text
    errors = response.json()["errors"]
    assert set(errors) >= {
        "name",
        "external_ref",
        "payment_terms",
        "tax_exempt",
        "contacts.1.name",
        "addresses.0.country",
        "addresses.1.city",
    }
    assert errors["name"] == ["The name field must be a string."]
    assert await Customer.count().where(Customer.workspace == ws.id) == 0
    assert await WebhookEvent.count().where(WebhookEvent.workspace == ws.id) == 0


async def test_email_nul_huge_and_malformed_input_is_4xx_never_500(client):
    ws, _, _ = await factories.account()
    bad_email = await send(client, ws, "POST", "", {
        "name": "A", "contacts": [{"name": "Al", "email": "Al <al@x.co>"}],
    })  # fmt: skip
    assert bad_email.status_code == 422
    assert list(bad_email.json()["errors"]) == ["contacts.0.email"]
    cases = [
        {"name": "A\u0000B"},
        {"name": "   "},
        {"name": "A", "default_carrier": "x\u0000"},
        {"name": "A" * 201},
        {"name": "A", "contacts": [{"name": "Al", "email": "a@b.co"}] * 51},
        {"name": "A", "addresses": [address(line1="x\u0000")]},
        {"name": "A", "tax_exempt": 2**70},
        {"name": "A", "contacts": "none"},
        [],
        None,
    ]
    for body in cases:
        response = await send(client, ws, "POST", "", body)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["message"]
    for raw in (b"{", b"\xff\xfe", b'{"name": "\\u0000"}', b"[" * 5000):
        response = await send(client, ws, "POST", "", raw)
        assert 400 <= response.status_code < 500, (raw[:10], response.text)
    c = await create(client, ws, name="Kept")
    for body in ({"name": None}, {"name": ""}, {"payment_terms": None}, {"tax_exempt": "no"}):
        response = await send(client, ws, "PATCH", f"/{c['id']}", body)
        assert response.status_code == 422, (body, response.text)
    assert await Customer.count().where(Customer.workspace == ws.id) == 1
    assert await event_names(c["id"]) == ["customer.created"]


async def test_the_command_line_and_the_admins_functions_record_the_same_events(backend, pressline):
    """`pressline customer create` / `contact add` and the admin's forms call the API's
    domain functions: the same rules, the same events."""
    ws, _, _ = await factories.account()
    made = await pressline(
        f"customer create --workspace {ws.id} --name 'Line Co' --external-ref erp-7 --json"
    )
    taken = await pressline(
        f"customer create --workspace {ws.id} --name 'Other Co' --external-ref erp-7"
    )
    assert made.code == 0, made.err
    customer_id = made.data["id"]
    assert made.data["external_ref"] == "erp-7"
    assert taken.code != 0 and f"customer {customer_id}" in taken.err
    added = await pressline(f"contact add --customer {customer_id} --name Al --email al@a.test")
    assert added.code == 0, added.err
    assert await event_names(customer_id) == ["customer.created", "customer.updated"]
    assert await Customer.count().where(Customer.workspace == ws.id) == 1


async def test_the_email_filter_folds_ascii_letters_only(client):
    """PostgreSQL's LOWER() folds the Kelvin sign to "k" and "ǅ" to "ǆ": neither matches."""
    ws, _, _ = await factories.account()
    contact = {"name": "Kate", "email": "kate@example.com"}
    kate = await create(client, ws, name="K", contacts=[contact])
    old = await factories.customer(ws, "Old")  # an address stored before emails were checked
    await factories.contact(old, email="\u01c5o@example.com")
    auth = await factories.caller(ws)

    async def ids(email: str) -> list[int]:
        response = await client.get("/api/v1/customers", params={"email": email}, headers=auth)
        assert response.status_code == 200, response.text
        return [row["id"] for row in response.json()["data"]]

    assert await ids("KATE@Example.com") == [kate["id"]]
    assert await ids("\u212aate@example.com") == []  # the Kelvin sign
    assert await ids("\u01c6o@example.com") == []  # ǆ
    assert await ids("\u01c5O@EXAMPLE.COM") == [old.id]
    assert await ids("kate@example.com\x00") == []
