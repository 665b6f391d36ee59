"""The outbox: which subscriptions get a delivery, the event body's exact bytes, atomicity with
the caller's transaction, and the PostgreSQL wake-up sent on commit."""

from __future__ import annotations

import asyncio
import datetime as dt
import json

import asyncpg
import pytest

from models import db
from models.tables import WebhookDelivery, WebhookEvent, WebhookSubscription
from models.webhooks import events as outbox
from tests import factories

AT = dt.datetime(2026, 11, 22, 10, 15, 0, 123456, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("events", "name", "expected"),
    [
        ("*", "invoice.paid", True),
        ("order.dispatched", "order.dispatched", True),
        ("order.dispatched", "order.stage_changed", False),
        ("invoice.issued,order.dispatched", "order.dispatched", True),
        (" invoice.issued , order.dispatched ", "invoice.issued", True),
        ("invoice.issued,*", "artwork.approved", True),
        ("order.dispatched2", "order.dispatched", False),
        ("", "order.dispatched", False),
    ],
)
def test_event_lists(events, name, expected):
    assert outbox.subscribed(events, name) is expected


def test_customer_scope():
    assert outbox.in_scope(None, 5)
    assert outbox.in_scope(5, 5)
    assert not outbox.in_scope(6, 5)


def test_the_body_keeps_the_documented_key_order():
    fields = outbox.order_fields(
        order_id=7,
        order_number="ORD-2026-0007",
        from_stage=None,
        to_stage="artwork",
        customer={"slug": "acme", "name": "Acme", "id": 3, "extra": "dropped"},
        due_by=dt.datetime(2026, 7, 14, 23, 0, tzinfo=dt.UTC),
        timezone="Europe/London",
    )
    body = outbox.encode_body("order.stage_changed", "e-1", AT, fields, workspace_id=4)
    assert body == (
        '{"event":"order.stage_changed","event_id":"e-1","occurred_at":"2026-11-22T10:15:00+00:00",'
        '"workspace_id":4,"order_id":7,"order_number":"ORD-2026-0007","from_stage":null,"to_stage":"artwork",'
        '"customer":{"id":3,"name":"Acme","slug":"acme"},"due_by":"2026-07-15T00:00:00+01:00"}'
    )
    invoice = outbox.encode_body(
        "invoice.paid",
        "e-2",
        AT,
        outbox.invoice_fields(
            order_id=7,
            order_number="ORD-2026-0007",
            invoice_id=3,
            invoice_number="INV-2026-0003",
            invoice_status="paid",
            total=1200,
            currency="EUR",
        ),
        workspace_id=4,
    )
    assert list(json.loads(invoice)) == [
        "event",
        "event_id",
        "occurred_at",
        "workspace_id",
        "order_id",
        "order_number",
        "invoice_id",
        "invoice_number",
        "invoice_status",
        "total",
        "currency",
    ]
    artwork = outbox.encode_body(
        "artwork.approved",
        "e-3",
        AT,
        outbox.artwork_fields(order_id=7, order_number="ORD-2026-0007", artwork_version=2),
        workspace_id=4,
    )
    assert artwork == (
        '{"event":"artwork.approved","event_id":"e-3","occurred_at":"2026-11-22T10:15:00+00:00",'
        '"workspace_id":4,"order_id":7,"order_number":"ORD-2026-0007","artwork_version":2}'
    )


async def _subscription(ws, **fields) -> WebhookSubscription:
    row = WebhookSubscription(
        workspace=ws.id, url="http://127.0.0.1:9/", secret="s", **{"events": "*", **fields}
    )
    await row.save()
    return row


async def test_record_event_writes_the_event_and_matching_deliveries(backend):
    ws = await factories.workspace()
    customer = await factories.customer(ws)
    other_customer = await factories.customer(ws)
    everything = await _subscription(ws)
    paused = await _subscription(ws, is_active=False)
    scoped = await _subscription(ws, customer=customer.id, events="artwork.approved")
    await _subscription(ws, customer=other_customer.id)
    await _subscription(ws, events="invoice.paid")
    await _subscription(await factories.workspace())
    event_id = await outbox.record_event(
        workspace_id=ws.id,
        name="artwork.approved",
        fields=outbox.artwork_fields(order_id=1, order_number="ORD-2026-0001", artwork_version=1),
        customer_id=customer.id,
        occurred_at=AT,
    )
    event = await WebhookEvent.objects().get(WebhookEvent.event_id == event_id)
    assert (event.workspace, event.name, event.customer, event.order) == (
        ws.id,
        "artwork.approved",
        customer.id,
        None,
    )
    assert event.created_at == AT
    assert json.loads(event.body)["event_id"] == event_id
    assert json.loads(event.body)["workspace_id"] == ws.id
    rows = await WebhookDelivery.select(
        WebhookDelivery.subscription,
        WebhookDelivery.status,
        WebhookDelivery.next_attempt_at,
        WebhookDelivery.attempts,
    ).order_by(WebhookDelivery.subscription)
    assert rows == [
        {"subscription": everything.id, "status": "pending", "next_attempt_at": AT, "attempts": 0},
        {"subscription": paused.id, "status": "skipped", "next_attempt_at": AT, "attempts": 0},
        {"subscription": scoped.id, "status": "pending", "next_attempt_at": AT, "attempts": 0},
    ]


async def test_unknown_event_names_are_a_programming_error(backend):
    ws = await factories.workspace()
    with pytest.raises(ValueError, match="unknown event"):
        await outbox.record_event(workspace_id=ws.id, name="order.shipped", fields={})
    assert await WebhookEvent.count() == 0


async def test_the_event_rolls_back_with_the_callers_transaction(backend):
    ws = await factories.workspace()
    await _subscription(ws)

    class Boom(Exception):
        pass

    with pytest.raises(Boom):
        async with db.transaction():
            await outbox.record_event(
                workspace_id=ws.id,
                name="invoice.paid",
                fields=outbox.artwork_fields(order_id=1, order_number="X", artwork_version=0),
            )
            assert await WebhookEvent.count() == 1
            raise Boom
    assert await WebhookEvent.count() == 0
    assert await WebhookDelivery.count() == 0


async def test_postgres_is_notified_on_commit_only(backend):
    if backend.startswith("sqlite"):
        pytest.skip("LISTEN/NOTIFY is PostgreSQL only")
    ws = await factories.workspace()
    await _subscription(ws)
    received: asyncio.Queue[str] = asyncio.Queue()
    listener = await asyncpg.connect(backend)
    try:
        await listener.add_listener(
            outbox.NOTIFY_CHANNEL, lambda *args: received.put_nowait(args[3])
        )
        async with db.transaction():
            await outbox.record_event(
                workspace_id=ws.id,
                name="artwork.approved",
                fields=outbox.artwork_fields(order_id=1, order_number="X", artwork_version=1),
            )
            await asyncio.sleep(0.2)
            assert received.empty()  # nothing before commit
        payload = await asyncio.wait_for(received.get(), timeout=5)
        assert payload == ""
    finally:
        await listener.close()


async def test_no_wake_up_when_nothing_is_pending(backend):
    if backend.startswith("sqlite"):
        pytest.skip("LISTEN/NOTIFY is PostgreSQL only")
    ws = await factories.workspace()
    await _subscription(ws, is_active=False)
    received: asyncio.Queue[str] = asyncio.Queue()
    listener = await asyncpg.connect(backend)
    try:
        await listener.add_listener(
            outbox.NOTIFY_CHANNEL, lambda *args: received.put_nowait(args[3])
        )
        await outbox.record_event(
            workspace_id=ws.id,
            name="artwork.approved",
            fields=outbox.artwork_fields(order_id=1, order_number="X", artwork_version=1),
        )
        await asyncio.sleep(0.3)
        assert received.empty()
        assert await WebhookDelivery.count() == 1
    finally:
        await listener.close()
