"""Webhooks say whose they are and carry a globally unique delivery id, against a real receiver.

Every body carries `workspace_id` and every attempt `X-SVC-Workspace`; `webhook-id` (and
`X-SVC-Delivery`) is the delivery's `dlv_…` id: the same on a retry and a redelivery of one
delivery, different between deliveries and between workspaces, and signed (the official
`standardwebhooks` package verifies it). Rows inserted without an id get one from the database,
and the migration's rewrite of older bodies adds `workspace_id` and changes nothing else.
"""

from __future__ import annotations

import importlib
import json
import re
from typing import Any

import pytest
from aiohttp import web
from standardwebhooks import Webhook, WebhookVerificationError

from models import clock, db, delivery_ids
from models.tables import WebhookDelivery, WebhookEvent
from models.webhooks import deliveries, signing, subscriptions
from models.webhooks import events as outbox
from tests.daemon import support
from tests.daemon.support import FakeClock, Received, Receiver

ID = re.compile(r"^dlv_[a-z2-7]{26}$")
MIGRATION = importlib.import_module("models.migrations.models_2026_11_30t10_15_00_000000")


def _fields(order_id: int = 1) -> dict[str, Any]:
    return outbox.artwork_fields(order_id=order_id, order_number="ORD-2026-0001", artwork_version=1)


async def _shop(receiver: Receiver) -> tuple[Any, dict[str, Any], str]:
    """A workspace with one subscription to the receiver, its secret as an operator hands it."""
    ws = await support.workspace()
    sub, secret = await subscriptions.create(ws.id, receiver.url(f"/hook/{ws.id}"))
    receiver.secret = secret
    return ws, sub, secret


def _verified(request: Received, secret: str) -> dict[str, Any]:
    """The body as the official library reads it once it has checked the signature."""
    event: dict[str, Any] = Webhook(secret).verify(request.body, request.headers)
    return event


def test_new_ids_are_dlv_and_26_lowercase_base32_characters_never_repeated():
    made = {delivery_ids.new_delivery_id() for _ in range(20_000)}
    assert len(made) == 20_000
    assert all(ID.match(value) for value in made)
    assert re.match(delivery_ids.PATTERN, next(iter(made)))
    # Every character of the alphabet turns up: all 32 are used.
    assert set("".join(value[4:] for value in made)) == set(delivery_ids.ALPHABET)


async def test_an_event_carries_its_workspace_and_a_signed_delivery_id(
    make_dispatcher, receiver: Receiver
):
    ws, sub, secret = await _shop(receiver)
    event_id = await outbox.record_event(
        workspace_id=ws.id, name="artwork.approved", fields=_fields()
    )
    [row] = await WebhookDelivery.objects().where(WebhookDelivery.subscription == sub["id"])

    assert await make_dispatcher().run_once() == 1

    [got] = receiver.requests
    assert got.signature_ok  # X-SVC-Signature, the original scheme, still holds
    event = _verified(got, secret)
    assert event["event_id"] == event_id and event["workspace_id"] == ws.id
    assert list(event)[:4] == ["event", "event_id", "occurred_at", "workspace_id"]
    assert got.headers["X-SVC-Workspace"] == str(ws.id)
    assert ID.match(got.headers["webhook-id"])
    assert got.headers["webhook-id"] == got.headers["X-SVC-Delivery"] == row.public_id
    # The id is signed: another one fails the check.
    forged = dict(got.headers, **{"webhook-id": delivery_ids.new_delivery_id()})
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(got.body, forged)


async def test_the_test_event_carries_its_workspace_too(make_dispatcher, receiver: Receiver):
    ws, sub, secret = await _shop(receiver)
    queued = await subscriptions.send_test(sub["id"], ws.id)
    assert ID.match(queued.webhook_id) and queued.workspace == ws.id

    await make_dispatcher().run_once()

    [got] = receiver.requests
    event = _verified(got, secret)
    assert event["event"] == "webhook.test"
    assert (event["workspace_id"], event["subscription_id"]) == (ws.id, sub["id"])
    assert got.headers["X-SVC-Workspace"] == str(ws.id)
    assert got.headers["webhook-id"] == got.headers["X-SVC-Delivery"] == queued.webhook_id


async def test_a_retry_and_a_redelivery_carry_the_same_id(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    async def fail_first(_: web.Request, n: int) -> web.Response:
        return web.Response(status=503 if n == 1 else 200)

    receiver.behaviour = fail_first
    ws, sub, secret = await _shop(receiver)
    await outbox.record_event(workspace_id=ws.id, name="artwork.approved", fields=_fields())
    [row] = await WebhookDelivery.objects().where(WebhookDelivery.subscription == sub["id"])
    dispatcher = make_dispatcher()

    await dispatcher.run_once()  # 503
    fake_clock.advance(60)
    await dispatcher.run_once()  # the retry: 200
    await deliveries.redeliver(row.id)  # an operator sends it again: the same delivery
    fake_clock.advance(1)
    await dispatcher.run_once()

    assert [r.headers["X-SVC-Attempt"] for r in receiver.requests] == ["1", "2", "1"]
    assert {r.headers["webhook-id"] for r in receiver.requests} == {row.public_id}
    assert {r.headers["X-SVC-Delivery"] for r in receiver.requests} == {row.public_id}
    assert {r.headers["X-SVC-Workspace"] for r in receiver.requests} == {str(ws.id)}
    for request in receiver.requests:  # each attempt signed with its own timestamp
        assert _verified(request, secret)["workspace_id"] == ws.id
    assert (await deliveries.get(row.id)).webhook_id == row.public_id


async def test_ids_differ_between_deliveries_and_between_workspaces(
    make_dispatcher, receiver: Receiver
):
    secret = receiver.secret = signing.new_secret()  # one receiver, one secret for all four
    shops = [await support.workspace() for _ in range(2)]
    for ws in shops:
        for path in ("/a", "/b"):
            await support.subscription(ws, receiver.url(f"/{ws.id}{path}"), secret=secret)
    for ws in shops:
        for order_id in (1, 2):  # two events, each to both subscriptions of the shop
            await outbox.record_event(
                workspace_id=ws.id, name="artwork.approved", fields=_fields(order_id)
            )

    assert await make_dispatcher().run_once() == 8

    rows = await WebhookDelivery.select(WebhookDelivery.public_id, WebhookDelivery.workspace)
    by_id = {row["public_id"]: row for row in rows}
    seen = [r.headers["webhook-id"] for r in receiver.requests]
    assert len(set(seen)) == 8 and set(seen) == set(by_id)
    for request in receiver.requests:
        row = by_id[request.headers["webhook-id"]]
        assert request.signature_ok
        event = _verified(request, secret)
        assert event["workspace_id"] == row["workspace"]
        assert request.headers["X-SVC-Workspace"] == str(row["workspace"])
    assert {r.headers["X-SVC-Workspace"] for r in receiver.requests} == {str(w.id) for w in shops}


async def test_rows_inserted_without_an_id_get_one_from_the_database(backend: str):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    events = [await support.event(ws) for _ in range(3)]
    # A bulk load in plain SQL, naming no public_id (as benchmarks and operators' scripts do).
    values = ", ".join(
        f"({ws.id}, {event.id}, {sub.id}, 'pending', 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, "
        "CURRENT_TIMESTAMP)"
        for event in events
    )
    await db.engine().run_ddl(
        "INSERT INTO webhook_deliveries (workspace, event, subscription, status, attempts, "
        f"next_attempt_at, created_at, updated_at) VALUES {values}"
    )
    # And a bulk insert through Piccolo: each row its own id.
    more = [await support.event(ws) for _ in range(3)]
    await WebhookDelivery.insert(
        *(WebhookDelivery(workspace=ws.id, event=e.id, subscription=sub.id) for e in more)
    )
    ids = await WebhookDelivery.select(WebhookDelivery.public_id).output(as_list=True)
    assert len(ids) == 6 and len(set(ids)) == 6
    assert all(ID.match(value) for value in ids)


async def test_the_migration_adds_workspace_id_to_older_bodies_and_nothing_else(backend: str):
    ws = await support.workspace()
    old = (
        '{"event":"order.updated","event_id":"e-1","occurred_at":"2026-05-04T09:12:44+00:00",'
        '"order_id":7,"customer":{"name":"Café \\"ünï\\" ✓"},"changed":["notes"]}'
    )
    odd = '{"event":"x",  "event_id":"e-2"}'  # no occurred_at: left alone
    new = outbox.encode_body("order.updated", "e-3", clock.now(), {}, workspace_id=ws.id)
    rows = [await support.event(ws, "order.updated", body=body) for body in (old, odd, new)]
    for _ in range(2):  # a second run changes nothing
        await MIGRATION.rewrite_bodies(db.engine())
        bodies = [
            (await WebhookEvent.select(WebhookEvent.body).where(WebhookEvent.id == row.id))[0][
                "body"
            ]
            for row in rows
        ]
        assert bodies[0] == old.replace('+00:00",', f'+00:00","workspace_id":{ws.id},', 1)
        assert json.loads(bodies[0])["workspace_id"] == ws.id
        assert bodies[1:] == [odd, new]


async def test_the_migration_gives_sqlite_rows_without_an_id_one(backend: str):
    if db.is_postgres():
        pytest.skip("the column is NOT NULL on PostgreSQL: no row can lack an id")
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    rows = await support.queued(ws, sub, 3)
    await db.engine().run_ddl("UPDATE webhook_deliveries SET public_id = NULL")
    await db.engine().run_ddl(MIGRATION.SQLITE_REST[0])
    ids = await WebhookDelivery.select(WebhookDelivery.public_id).output(as_list=True)
    assert len(set(ids)) == len(rows) and all(ID.match(value) for value in ids)


async def test_operators_find_a_delivery_by_the_webhook_id_an_integrator_quotes(
    pressline, make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    await make_dispatcher().run_once()

    listed = await pressline("webhook", "deliveries", sub.id)
    assert f"webhook-id={d.public_id}" in listed.out
    run = await pressline("webhook", "attempts", d.public_id, "--json")
    assert run.code == 0, run.err
    assert [a["status_code"] for a in run.data["attempts"]] == [200]
    again = await pressline("webhook", "redeliver", d.public_id, "--json")
    assert again.code == 0, again.err
    assert (again.data["id"], again.data["webhook_id"]) == (d.id, d.public_id)
    fake_clock.advance(1)
    await make_dispatcher().run_once()
    assert receiver.deliveries() == [d.public_id, d.public_id]

    unknown = await pressline("webhook", "attempts", delivery_ids.new_delivery_id())
    assert unknown.code == 1 and "not found" in unknown.err
    assert (await pressline("webhook", "attempts", "abc")).code == 2
