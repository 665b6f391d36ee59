"""The events feed: every recorded event, oldest first, its filters, the detail, isolation,
and bad input (every bad parameter named in one 422)."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any

import httpx

from models import artwork, clock
from models.actors import OPERATOR
from models.invoices import payments
from models.orders import stage_moves
from models.tables import Invoice, WebhookEvent
from models.webhooks import events as outbox
from tests import factories
from tests.api.order_helpers import Shop, advance, create, order_body, shop

FIVE = ["print_queue", "in_production", "qc_pack", "dispatched"]


async def every_event(client: httpx.AsyncClient, s: Shop) -> int:
    """An order taken through all five events by the real write paths; returns its id."""
    created = await create(client, s.auth, order_body(s.customer.id))
    assert created.status_code == 201, created.text
    order_id: int = created.json()["id"]
    await artwork.send_proof(workspace_id=s.ws.id, order_id=order_id)
    await artwork.approve_artwork(workspace_id=s.ws.id, order_id=order_id)
    for stage in FIVE:
        moved = await advance(client, s.auth, order_id, stage)
        assert moved.status_code == 200, moved.text
    number = await Invoice.select(Invoice.number).where(Invoice.order == order_id).first()
    assert number is not None
    await payments.pay_invoice(workspace_id=s.ws.id, number=number["number"])
    return order_id


async def record_every_event(workspace_id: int, order_id: int) -> list[str]:
    """The five events for an order in `artwork`, through the domain's own write paths (no
    HTTP); returns their event ids, oldest first."""
    await artwork.send_proof(workspace_id=workspace_id, order_id=order_id)
    await artwork.approve_artwork(workspace_id=workspace_id, order_id=order_id)
    for stage in FIVE:
        await stage_moves.advance_order(
            workspace_id=workspace_id, order_id=order_id, to_stage=stage, actor=OPERATOR
        )
    number = await Invoice.select(Invoice.number).where(Invoice.order == order_id).first()
    assert number is not None
    await payments.pay_invoice(workspace_id=workspace_id, number=number["number"])
    rows = await (
        WebhookEvent.select(WebhookEvent.event_id)
        .where(WebhookEvent.order == order_id)
        .order_by(WebhookEvent.id)
    )
    return [row["event_id"] for row in rows]


async def _stored() -> list[dict[str, Any]]:
    return await WebhookEvent.select().order_by(WebhookEvent.id)


async def test_the_feed_lists_every_event_oldest_first_with_its_delivered_body(client):
    s = await shop()
    order_id = await every_event(client, s)
    other = await shop()
    await every_event(client, other)  # another workspace's events never show

    response = await client.get("/api/v1/events", headers=s.auth)

    assert response.status_code == 200, response.text
    body = response.json()
    assert [row["type"] for row in body["data"]] == [
        "order.created",
        "artwork.proof_sent",
        "artwork.approved",
        "order.stage_changed",
        "order.stage_changed",
        "order.stage_changed",
        "order.dispatched",
        "invoice.issued",
        "invoice.payment_received",
        "invoice.paid",
    ]
    stored = [row for row in await _stored() if row["workspace"] == s.ws.id]
    assert [row["id"] for row in body["data"]] == [row["event_id"] for row in stored]
    for row, event in zip(body["data"], stored, strict=True):
        assert list(row) == ["id", "type", "occurred_at", "order_id", "data"]
        assert row["order_id"] == order_id
        assert row["data"] == json.loads(event["body"])
        assert row["data"]["order_id"] == order_id  # every event points at its order
        assert row["occurred_at"] == row["data"]["occurred_at"] == clock.iso(event["created_at"])
    assert (body["total"], body["per_page"], body["current_page"], body["last_page"]) == (
        10,
        100,
        1,
        1,
    )
    assert response.headers["x-ratelimit-limit"] == "60"  # a read


async def test_the_feed_splices_the_stored_bytes_into_the_response(client):
    s = await shop()
    event_id = str(uuid.uuid4())
    # Spacing, key order and escapes that decoding and encoding again would all change.
    text = (
        f'{{"event": "artwork.approved", "event_id": "{event_id}", "occurred_at": '
        '"2026-11-22T10:15:00+00:00", "order_id": null, "order_number": "Caf\\u00e9 \\"q\\" '
        '\\/ \\ud83d\\ude00", "artwork_version": 1.0}'
    )
    await WebhookEvent(
        workspace=s.ws.id, event_id=event_id, name="artwork.approved", body=text
    ).save()

    listed = await client.get("/api/v1/events", headers=s.auth)
    detail = await client.get(f"/api/v1/events/{event_id}", headers=s.auth)

    assert b'"data":' + text.encode() + b"}" in listed.content
    assert detail.content.endswith(b'"data":' + text.encode() + b"}")
    assert detail.json()["data"]["order_number"] == 'Caf\u00e9 "q" / \U0001f600'


async def test_an_empty_workspace_has_an_empty_first_page(client):
    _, _, auth = await factories.account()

    response = await client.get("/api/v1/events?type=invoice.paid", headers=auth)

    assert response.status_code == 200
    body = response.json()
    assert (body["data"], body["total"], body["last_page"], body["current_page"]) == ([], 0, 1, 1)
    links = body["links"]
    assert (
        links["first"]
        == links["last"]
        == ("http://testserver/api/v1/events?type=invoice.paid&page=1")
    )
    assert (links["prev"], links["next"]) == (None, None)


async def _record(ws_id: int, name: str, *, order_id: int | None, at: dt.datetime) -> str:
    fields = {"order_id": order_id, "order_number": f"ORD-{order_id}"}
    return await outbox.record_event(
        workspace_id=ws_id, name=name, fields=fields, order_id=order_id, occurred_at=at
    )


T0 = dt.datetime(2026, 11, 22, 10, 0, 0, 500000, tzinfo=dt.UTC)


async def test_filters_by_type_time_and_order_and_links_keep_them(client):
    ws, _, auth = await factories.account()
    customer = await factories.customer(ws)
    first, second = await factories.order(ws, customer), await factories.order(ws, customer)
    ids = [
        await _record(ws.id, "order.stage_changed", order_id=first.id, at=T0),
        await _record(ws.id, "invoice.issued", order_id=first.id, at=T0 + dt.timedelta(hours=1)),
        await _record(ws.id, "invoice.paid", order_id=second.id, at=T0 + dt.timedelta(hours=2)),
        await _record(ws.id, "artwork.approved", order_id=None, at=T0 + dt.timedelta(hours=3)),
    ]

    async def listed(**params: str) -> list[str]:
        response = await client.get("/api/v1/events", params=params, headers=auth)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["total"] == len(body["data"])
        return [row["id"] for row in body["data"]]

    assert await listed() == ids
    assert await listed(type="invoice.paid") == [ids[2]]
    assert await listed(type="invoice.paid, invoice.issued,invoice.paid") == ids[1:3]
    assert await listed(order=str(first.id)) == ids[:2]
    assert await listed(order=str(second.id), type="invoice.issued") == []
    assert await listed(order="2147483647") == []
    # at or after; occurred_at is whole seconds, so reading from it includes its own event
    assert await listed(since="2026-11-22T11:00:00+00:00") == ids[1:]
    assert await listed(since="2026-11-22T11:00:00.5") == ids[1:]  # no offset: UTC
    assert await listed(since="2026-11-22T11:00:00.6Z") == ids[2:]
    assert await listed(since="2026-11-22T12:00:00+01:00") == ids[1:]
    assert await listed(since="2026-11-22T13:00:00+00:00", type="invoice.paid") == []
    row = await client.get("/api/v1/events", params={"type": "artwork.approved"}, headers=auth)
    assert row.json()["data"][0]["order_id"] is None

    paged = await client.get(
        "/api/v1/events", params={"type": "invoice.paid", "page": "2"}, headers=auth
    )
    links = paged.json()["links"]
    assert paged.json()["data"] == []
    assert links["prev"] == "http://testserver/api/v1/events?type=invoice.paid&page=1"


async def test_pages_hold_a_hundred_and_never_shift_as_events_arrive(client):
    ws, _, auth = await factories.account()
    ids = [
        await _record(ws.id, "order.stage_changed", order_id=None, at=T0 + dt.timedelta(seconds=n))
        for n in range(101)
    ]

    first = (await client.get("/api/v1/events", headers=auth)).json()
    newer = await _record(ws.id, "invoice.paid", order_id=None, at=T0 - dt.timedelta(days=1))
    second = (await client.get("/api/v1/events?page=2", headers=auth)).json()

    assert [row["id"] for row in first["data"]] == ids[:100]
    assert (first["last_page"], first["links"]["next"]) == (
        2,
        "http://testserver/api/v1/events?page=2",
    )
    assert [row["id"] for row in second["data"]] == [ids[100], newer]  # appended, by id


async def test_detail_by_event_id(client):
    s = await shop()
    await every_event(client, s)
    stored = (await _stored())[-1]

    response = await client.get(f"/api/v1/events/{stored['event_id']}", headers=s.auth)
    upper = await client.get(f"/api/v1/events/{stored['event_id'].upper()}", headers=s.auth)

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["id"] == stored["event_id"]
    assert body["type"] == "invoice.paid"
    assert body["data"] == json.loads(stored["body"])
    assert upper.json() == body  # the same UUID, in capitals


async def test_another_workspaces_event_and_a_malformed_id_answer_the_same_404(client):
    s = await shop()
    await every_event(client, s)
    theirs = (await _stored())[0]["event_id"]
    _, _, auth = await factories.account()

    answers = [
        await client.get(f"/api/v1/events/{event_id}", headers=auth)
        for event_id in (theirs, str(uuid.uuid4()), "abc", "1", theirs + "0", "%00", "x" * 300)
    ]

    assert [r.status_code for r in answers] == [404] * 7
    not_found = {"message": "Event not found", "code": "not_found", "details": {}}
    assert all(r.json() == not_found for r in answers)
    unknown_route = await client.get("/api/v1/events/a/b", headers=auth)
    assert unknown_route.status_code == 404
    assert unknown_route.json() == {"message": "Not found", "code": "not_found", "details": {}}


async def test_every_bad_parameter_is_named_in_one_422(client):
    _, _, auth = await factories.account()

    response = await client.get(
        "/api/v1/events?type=nope&since=yesterday&order=abc&page=0", headers=auth
    )

    assert response.status_code == 422
    body = response.json()
    assert set(body["errors"]) == {"type", "since", "order", "page"}
    assert body["errors"]["type"] == [
        "The selected type is invalid (nope); use one or more of order.stage_changed, "
        "order.dispatched, invoice.issued, invoice.paid, artwork.approved, order.created, "
        "order.updated, order.cancelled, customer.created, customer.updated, "
        "invoice.payment_received, payment.voided, artwork.proof_sent, "
        "artwork.changes_requested, separated by commas."
    ]
    assert body["errors"]["since"] == ["The since parameter must be an ISO 8601 date-time."]
    assert body["errors"]["order"] == ["The order parameter must be an integer."]
    assert body["errors"]["page"] == ["The page parameter must be at least 1."]
    assert body["message"].endswith("(and 3 more errors)")


async def test_each_bad_parameter_alone(client):
    _, _, auth = await factories.account()
    cases = {
        "type=invoice.paid,nope": "type",
        "type=": "type",
        "type=,": "type",
        "type=invoice.paid,": "type",
        "type=invoice.paid%09": "type",
        "type=INVOICE.PAID": "type",
        "since=2026-13-01": "since",
        "since=": "since",
        "order=0": "order",
        "order=-3": "order",
        "order=2147483648": "order",
        "order=1.5": "order",
        "page=abc": "page",
        "page=99999999999999999999999": "page",
    }
    for query, key in cases.items():
        response = await client.get(f"/api/v1/events?{query}", headers=auth)
        assert response.status_code == 422, query
        assert set(response.json()["errors"]) == {key}, (query, response.text)


async def test_the_feed_needs_a_token_and_the_api_plan(client):
    _, _, starter = await factories.account(plan="starter")

    assert (await client.get("/api/v1/events")).status_code == 401
    assert (await client.get(f"/api/v1/events/{uuid.uuid4()}")).status_code == 401
    assert (await client.get("/api/v1/events", headers=starter)).status_code == 422


async def _statements_for(client, statements: list[str], url: str, auth: dict[str, str]) -> int:
    statements.clear()
    response = await client.get(url, headers=auth)
    assert response.status_code == 200, response.text
    return len(statements)


async def test_list_and_detail_cost_a_fixed_number_of_statements(client, statements):
    small_ws, _, small_auth = await factories.account()
    await _record(small_ws.id, "invoice.paid", order_id=None, at=T0)
    big_ws, _, big_auth = await factories.account()
    customer = await factories.customer(big_ws)
    order = await factories.order(big_ws, customer)
    for n in range(100):
        last = await _record(big_ws.id, "invoice.paid", order_id=order.id, at=T0 + dt.timedelta(n))
    filtered = f"/api/v1/events?type=invoice.paid,invoice.issued&since=2026-01-01&order={order.id}"

    one = await _statements_for(client, statements, "/api/v1/events", small_auth)
    hundred = await _statements_for(client, statements, "/api/v1/events", big_auth)
    with_filters = await _statements_for(client, statements, filtered, big_auth)
    detail = await _statements_for(client, statements, f"/api/v1/events/{last}", big_auth)

    assert one == hundred == with_filters == 3, statements  # auth, count, page
    assert detail == 2, statements  # auth, the event
