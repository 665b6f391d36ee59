"""The artwork endpoints: `POST /orders/{id}/proofs` (a multipart upload, checked as the
admin's is, emailed unless held back) and `POST /orders/{id}/artwork/approve` (an approval
given elsewhere, recorded: `artwork.approved` as for the customer's own), on both databases."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx
import jsonschema_rs
import pytest

from models.tables import (
    Artwork,
    ArtworkApproval,
    ArtworkProof,
    CustomerMessage,
    IdempotencyKey,
    Order,
    WebhookDelivery,
    WebhookEvent,
)
from tests import factories
from tests.api.artwork_helpers import approve, upload
from tests.api.order_helpers import Shop, advance, shop, subscription
from tests.proofs.files import PDF, png

MIB = 1024 * 1024


async def _order(s: Shop, **fields: Any) -> Order:
    return await factories.order(s.ws, s.customer, **fields)


async def _state() -> dict[str, int]:
    """How many rows an upload or an approval writes."""
    tables = (ArtworkProof, ArtworkApproval, CustomerMessage, WebhookEvent, IdempotencyKey)
    return {table._meta.tablename: await table.count() for table in tables}


def _errors(response: httpx.Response) -> dict[str, list[str]]:
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["message"]
    errors: dict[str, list[str]] = body["errors"]
    return errors


# --- uploads --------------------------------------------------------------------------------


async def test_an_upload_answers_201_with_the_artwork_and_emails_the_customer(client):
    s = await shop()
    o = await _order(s, external_ref="SHOP-77")
    image = png()
    done = await upload(client, s.auth, o.id, image, "front.png")
    assert done.status_code == 201, done.text
    body = done.json()
    assert (body["status"], body["version"], body["approved_at"], body["approved_by"]) == (
        "awaiting_approval",
        1,
        None,
        None,
    )
    assert (body["approval_source"], body["approval_note"]) == (None, None)
    [proof] = body["proofs"]
    assert {k: proof[k] for k in ("version", "file_name", "content_type", "size")} == {
        "version": 1,
        "file_name": "front.png",
        "content_type": "image/png",
        "size": len(image),
    }
    assert proof["created_at"].endswith("+00:00") and proof["customer_comment"] is None
    # The order's detail shows the same artwork.
    detail = await client.get(f"/api/v1/orders/{o.id}", headers=s.auth)
    assert detail.json()["artwork"] == body

    [row] = await ArtworkProof.select().where(ArtworkProof.order == o.id)
    assert bytes(row["data"]) == image and row["sha256"] == hashlib.sha256(image).hexdigest()
    assert row["created_by"] == s.user.id
    [mail] = await CustomerMessage.select().where(CustomerMessage.kind == "artwork.proof")
    assert mail["status"] == "queued" and mail["recipient"] == s.contact.email
    assert o.number in mail["subject"] and "/proofs/" in mail["body"]

    # A second proof is version 2; the file is named by what it is.
    second = await upload(client, s.auth, o.id, PDF, "v2.html")
    assert second.status_code == 201, second.text
    assert second.json()["version"] == 2
    assert [(p["version"], p["file_name"]) for p in second.json()["proofs"]] == [
        (1, "front.png"),
        (2, "v2.html.pdf"),
    ]


async def test_notify_false_keeps_the_email_back(client):
    s = await shop()
    o = await _order(s)
    held = await upload(client, s.auth, o.id, data={"notify": "false"})
    assert held.status_code == 201, held.text
    assert held.json()["status"] == "awaiting_approval"
    assert await ArtworkProof.count() == 1
    assert await CustomerMessage.count() == 0
    told = await upload(client, s.auth, o.id, data={"notify": "true"})
    assert told.status_code == 201, told.text
    assert await CustomerMessage.count() == 1


async def test_unknown_fields_are_refused_by_name(client):
    s = await shop()
    o = await _order(s)
    before = await _state()
    refused = await upload(client, s.auth, o.id, data={"colour": "red", "note": "hi"})
    errors = _errors(refused)
    assert errors == {
        "colour": ["colour is not a field of a proof upload."],
        "note": ["note is not a field of a proof upload."],
    }
    assert await _state() == before


@pytest.mark.parametrize(
    ("fields", "key", "words"),
    [
        ({"notify": "yes"}, "notify", "The notify field must be true or false."),
        ({"notify": "True"}, "notify", "The notify field must be true or false."),
        ({"notify": ""}, "notify", "The notify field must be true or false."),
    ],
)
async def test_notify_must_be_true_or_false(client, fields, key, words):
    s = await shop()
    o = await _order(s)
    errors = _errors(await upload(client, s.auth, o.id, data=fields))
    assert errors == {key: [words]}
    assert await ArtworkProof.count() == 0


async def test_the_file_is_required_and_must_be_a_file(client):
    s = await shop()
    o = await _order(s)
    path = f"/api/v1/orders/{o.id}/proofs"
    no_file = await client.post(path, files={"notify": (None, "true")}, headers=s.auth)
    assert list(_errors(no_file)) == ["file"]
    as_text = await client.post(path, files={"file": (None, "not a file")}, headers=s.auth)
    one_file = "The file field must be one file (a part with a file name)."
    assert _errors(as_text) == {"file": [one_file]}
    two = await client.post(
        path,
        files=[("file", ("a.png", png(), "image/png")), ("file", ("b.png", png(), "image/png"))],
        headers=s.auth,
    )
    assert list(_errors(two)) == ["file"]
    both = await client.post(
        path, files={"notify": (None, "maybe"), "size": (None, "XL")}, headers=s.auth
    )
    assert set(_errors(both)) == {"file", "notify", "size"}
    assert await ArtworkProof.count() == 0


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"just some text, not an image\n", "not a PDF, PNG or JPEG"),
        (b"<html><body>proof</body></html>", "not a PDF, PNG or JPEG"),
        (b"", "The file is empty"),
    ],
    ids=["text", "html", "empty"],
)
async def test_a_file_of_the_wrong_kind_is_refused(client, content, words):
    s = await shop()
    o = await _order(s)
    errors = _errors(await upload(client, s.auth, o.id, content, "proof.png"))
    assert list(errors) == ["file"] and words in errors["file"][0]
    assert await ArtworkProof.count() == 0 and await CustomerMessage.count() == 0


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/json", b'{"file": "front.png"}'),
        ("application/x-www-form-urlencoded", b"file=front.png"),
        ("text/plain", b"hello"),
        ("multipart/form-data", b"--x--"),  # no boundary
        ("multipart/form-data; boundary=x", b"--x\r\nContent-Disposition: form-data\r\n\r\n"),
    ],
)
async def test_a_body_that_is_not_a_multipart_form_is_a_422_naming_the_body(
    client, content_type, body
):
    s = await shop()
    o = await _order(s)
    refused = await client.post(
        f"/api/v1/orders/{o.id}/proofs",
        content=body,
        headers={**s.auth, "Content-Type": content_type},
    )
    errors = _errors(refused)
    assert "body" in errors or "file" in errors, errors
    assert await ArtworkProof.count() == 0


async def test_a_file_over_10_mib_is_a_422_and_a_body_over_12_mib_a_413(client):
    s = await shop()
    o = await _order(s)
    big = png() + b"\0" * (11 * MIB)
    errors = _errors(await upload(client, s.auth, o.id, big, "big.png"))
    assert errors["file"] == ["The file is 11.0 MiB; a proof may be at most 10 MiB."]

    huge = await upload(client, s.auth, o.id, b"%PDF-" + b"\0" * (13 * MIB), "huge.pdf")
    assert huge.status_code == 413, huge.text
    assert huge.json()["message"] == "Request body too large (limit 12 MiB)"

    async def chunks() -> Any:  # no Content-Length: the limit holds while streaming
        for _ in range(13 * 16):
            yield b"\0" * (64 * 1024)

    streamed = await client.post(
        f"/api/v1/orders/{o.id}/proofs",
        content=chunks(),
        headers={**s.auth, "Content-Type": "multipart/form-data; boundary=x"},
    )
    assert streamed.status_code == 413, streamed.text
    assert streamed.json()["message"] == "Request body too large (limit 12 MiB)"
    assert await ArtworkProof.count() == 0


async def test_other_workspaces_orders_and_finished_orders(client):
    s, other = await shop(), await shop()
    theirs = await factories.order(other.ws, other.customer)
    for order_id in (theirs.id, 2_000_000_000, 2**31):
        for response in (
            await upload(client, s.auth, order_id),
            await approve(client, s.auth, order_id),
        ):
            assert response.status_code == 404, (order_id, response.text)
            assert response.json()["message"] in ("Order not found", "Not found")
    for stage in ("dispatched", "cancelled"):
        done = await _order(s, stage=stage)
        for response in (
            await upload(client, s.auth, done.id),
            await approve(client, s.auth, done.id),
        ):
            assert response.status_code == 422, response.text
            body = response.json()
            assert (body["errors"], body["code"]) == ({}, "artwork_locked")
            assert body["message"] == (
                f"Order {done.number} is {stage}; its artwork can no longer change."
            )
    assert await _state() == {
        "artwork_proofs": 0,
        "artwork_approvals": 0,
        "customer_messages": 0,
        "webhook_events": 0,
        "idempotency_keys": 0,
    }


async def test_an_upload_with_an_idempotency_key_runs_once(client):
    s = await shop()
    o = await _order(s)
    key = {"Idempotency-Key": "proof-1"}
    first = await upload(client, s.auth, o.id, headers=key)
    assert first.status_code == 201, first.text
    # httpx draws a new boundary for every request: the same file and fields are the same
    # request whatever the bytes around them.
    again = await upload(client, s.auth, o.id, headers=key)
    assert again.status_code == 201, again.text
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.content == first.content
    assert await ArtworkProof.count() == 1 and await CustomerMessage.count() == 1
    other_file = await upload(client, s.auth, o.id, PDF, "front.pdf", headers=key)
    assert list(_errors(other_file)) == ["Idempotency-Key"]
    held_back = await upload(client, s.auth, o.id, data={"notify": "false"}, headers=key)
    assert list(_errors(held_back)) == ["Idempotency-Key"]
    blank = await upload(client, s.auth, o.id, headers={"Idempotency-Key": " "}, data={"x": "1"})
    assert set(_errors(blank)) == {"Idempotency-Key", "x"}
    assert await ArtworkProof.count() == 1


# --- recorded approvals ---------------------------------------------------------------------


async def _event(order: Order) -> dict[str, Any]:
    """The order's `artwork.approved` (a proof sent before it has its own event)."""
    rows = await WebhookEvent.select().where(WebhookEvent.order == order.id)
    [row] = [row for row in rows if row["name"] != "artwork.proof_sent"]
    assert row["name"] == "artwork.approved"
    body: dict[str, Any] = json.loads(row["body"])
    return body


async def test_an_approval_before_any_proof_is_recorded_and_sent(client):
    s = await shop()
    await subscription(s.ws)
    o = await _order(s)
    body = {"approved_by": "  Dana   Reyes ", "note": "Approved at checkout,\r\nstorefront 10442"}
    done = await approve(client, s.auth, o.id, body)
    assert done.status_code == 200, done.text
    artwork = done.json()
    assert (artwork["status"], artwork["version"], artwork["approved_by"]) == (
        "approved",
        0,
        "Dana Reyes",
    )
    assert artwork["approval_source"] == "recorded"
    assert artwork["approval_note"] == "Approved at checkout,\nstorefront 10442"
    assert artwork["approved_at"].endswith("+00:00") and artwork["proofs"] == []
    detail = await client.get(f"/api/v1/orders/{o.id}", headers=s.auth)
    assert detail.json()["artwork"] == artwork

    event = await _event(o)
    assert {k: event[k] for k in ("event", "order_id", "order_number", "artwork_version")} == {
        "event": "artwork.approved",
        "order_id": o.id,
        "order_number": o.number,
        "artwork_version": 0,
    }
    assert await WebhookDelivery.count() == 1
    [record] = await ArtworkApproval.select().where(ArtworkApproval.order == o.id)
    assert (record["version"], record["approved_by"], record["actor_kind"]) == (
        0,
        "Dana Reyes",
        "token",
    )
    assert record["user"] == s.user.id and record["token"] is not None
    assert record["note"] == "Approved at checkout,\nstorefront 10442"

    again = await approve(client, s.auth, o.id)
    assert again.status_code == 422
    assert (again.json()["errors"], again.json()["code"]) == ({}, "artwork_locked")
    assert again.json()["message"] == (
        f"The artwork of order {o.number} is already approved (version 0); send a new proof "
        "to have a new version approved."
    )
    assert await WebhookEvent.count() == 1 and await ArtworkApproval.count() == 1


async def test_an_approval_of_a_proof_fires_the_event_as_the_customer_would(client):
    s = await shop()
    o = await _order(s)
    assert (await upload(client, s.auth, o.id)).status_code == 201
    done = await approve(client, s.auth, o.id, {"approved_by": "Dana (phone)"})
    assert done.status_code == 200, done.text
    assert (done.json()["version"], done.json()["approval_note"]) == (1, None)
    assert (await _event(o))["artwork_version"] == 1
    # A new proof needs approving again: the recorded approval no longer counts.
    newer = await upload(client, s.auth, o.id, data={"notify": "false"})
    assert newer.status_code == 201
    assert newer.json()["status"] == "awaiting_approval"
    assert (newer.json()["approved_by"], newer.json()["approval_source"]) == (None, None)
    assert await ArtworkApproval.count() == 1  # the record stays


async def test_an_approval_may_overrule_a_request_for_changes(client):
    s = await shop()
    o = await _order(s)
    assert (await upload(client, s.auth, o.id)).status_code == 201
    await factories.set_artwork(o, status="changes_requested")
    done = await approve(client, s.auth, o.id, {"approved_by": "Dana", "note": "Fine as is"})
    assert done.status_code == 200, done.text
    assert (done.json()["status"], done.json()["version"]) == ("approved", 1)


@pytest.mark.parametrize(
    ("body", "key", "words"),
    [
        ({}, "approved_by", "The approved_by field is required."),
        ({"approved_by": None}, "approved_by", "The approved_by field is required."),
        ({"approved_by": "   "}, "approved_by", "The approved_by field must not be blank."),
        (
            {"approved_by": "Dana\nReyes"},
            "approved_by",
            "The approved_by field must be one line of text, without control characters.",
        ),
        (
            {"approved_by": "x" * 201},
            "approved_by",
            "The approved_by field must not be greater than 200 characters.",
        ),
        ({"approved_by": 5}, "approved_by", "The approved_by field must be a string."),
        (
            {"approved_by": "Dana", "note": "y" * 2001},
            "note",
            "The note field must not be greater than 2000 characters.",
        ),
        (
            {"approved_by": "Dana", "note": "bell \x07"},
            "note",
            "The note field must be text, without control characters other than tabs and "
            "line breaks.",
        ),
        (
            {"approved_by": "Dana", "colour": "red"},
            "colour",
            "colour is not a field of an artwork approval.",
        ),
    ],
)
async def test_approval_fields_are_checked(client, body, key, words):
    s = await shop()
    o = await _order(s)
    errors = _errors(await approve(client, s.auth, o.id, body))
    assert errors == {key: [words]}
    assert await Artwork.select(Artwork.status).where(Artwork.order == o.id) == [
        {"status": "awaiting_proof"}
    ]
    assert await WebhookEvent.count() == 0


async def test_a_recorded_approval_lets_the_order_into_production(client):
    s = await shop(require_artwork_approval=True)
    o = await _order(s)
    blocked = await advance(client, s.auth, o.id, "print_queue")
    assert blocked.status_code == 422
    assert "before its artwork is approved" in blocked.json()["message"]
    assert (await approve(client, s.auth, o.id)).status_code == 200
    moved = await advance(client, s.auth, o.id, "print_queue")
    assert moved.status_code == 200, moved.text
    assert (await advance(client, s.auth, o.id, "in_production")).status_code == 200


async def test_an_approval_with_an_idempotency_key_is_recorded_once(client):
    s = await shop()
    o = await _order(s)
    key = {"Idempotency-Key": "approve-1"}
    first = await approve(client, s.auth, o.id, headers=key)
    again = await approve(client, s.auth, o.id, headers=key)
    assert (first.status_code, again.status_code) == (200, 200), again.text
    assert again.headers["Idempotent-Replayed"] == "true" and again.content == first.content
    assert await WebhookEvent.count() == 1 and await ArtworkApproval.count() == 1


# --- the OpenAPI document -------------------------------------------------------------------


def _valid(openapi: dict[str, Any], path: str, response: httpx.Response) -> list[str]:
    """Problems of the response against its documented schema, objects closed (an
    undocumented field is one)."""
    media = openapi["paths"][path]["post"]["responses"][str(response.status_code)]
    schema = media["content"]["application/json"]["schema"]
    components = json.loads(
        json.dumps(openapi["components"]).replace(
            '"properties":', '"additionalProperties": false, "properties":'
        )
    )
    validator = jsonschema_rs.Draft202012Validator(
        {**schema, "components": components}, validate_formats=True
    )
    return [str(error) for error in validator.iter_errors(response.json())]


async def test_the_document_describes_both_routes_and_their_answers(client):
    openapi = (await client.get("/schema/openapi.json")).json()
    proofs_path = "/api/v1/orders/{order_id}/proofs"
    approve_path = "/api/v1/orders/{order_id}/artwork/approve"
    body = openapi["paths"][proofs_path]["post"]["requestBody"]
    form = body["content"]["multipart/form-data"]["schema"]
    assert body["required"] is True and form["required"] == ["file"]
    assert form["properties"]["file"]["format"] == "binary"
    assert form["properties"]["notify"]["enum"] == ["true", "false"]
    approval = openapi["paths"][approve_path]["post"]["requestBody"]["content"]
    [ref] = [part["$ref"] for part in approval["application/json"]["schema"]["allOf"]]
    fields = openapi["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert fields["required"] == ["approved_by"]
    assert fields["properties"]["approved_by"]["maxLength"] == 200
    for path in (proofs_path, approve_path):
        assert {"404", "409", "422"} <= set(openapi["paths"][path]["post"]["responses"])
    assert openapi["paths"][proofs_path]["post"]["responses"]["413"]

    s = await shop()
    o = await _order(s)
    uploaded = await upload(client, s.auth, o.id)
    approved = await approve(client, s.auth, o.id, {"approved_by": "Dana", "note": "phone"})
    refused = await upload(client, s.auth, o.id, data={"colour": "red"})
    huge = await upload(client, s.auth, o.id, b"%PDF-" + b"\0" * (13 * MIB))
    for path, response, status in (
        (proofs_path, uploaded, 201),
        (approve_path, approved, 200),
        (proofs_path, refused, 422),
        (proofs_path, huge, 413),
    ):
        assert response.status_code == status, response.text
        assert _valid(openapi, path, response) == [], (path, response.text)
