"""From `outbox.record_event` to the receiver: event filters, customer scope, skip and replay."""

from __future__ import annotations

from collections import Counter

from models import clock
from models.tables import WebhookDelivery, WebhookEvent
from models.webhooks import events as outbox
from models.webhooks import subscriptions
from tests import factories
from tests.daemon import support
from tests.daemon.support import FakeClock, Receiver

STAGE = {"order_number": "ORD-2026-0001", "from_stage": "print", "to_stage": "finishing"}


async def test_filters_and_customer_scope_decide_who_receives_what(
    make_dispatcher, receiver: Receiver
):
    ws = await factories.workspace()
    acme, zed = await factories.customer(ws, "Acme"), await factories.customer(ws, "Zed")
    await support.subscription(ws, receiver.url("/all"))
    await support.subscription(ws, receiver.url("/dispatched"), events="order.dispatched")
    await support.subscription(
        ws, receiver.url("/orders"), events="order.dispatched,order.stage_changed"
    )
    await support.subscription(ws, receiver.url("/acme"), customer=acme.id)
    other_ws = await factories.workspace()
    await support.subscription(other_ws, receiver.url("/other-workspace"))

    for customer, name in ((acme, "order.stage_changed"), (zed, "order.dispatched")):
        await outbox.record_event(
            workspace_id=ws.id, name=name, fields=STAGE, customer_id=customer.id
        )
    await outbox.record_event(
        workspace_id=ws.id,
        name="invoice.paid",
        fields={"order_number": "ORD-2026-0001", "invoice_number": "INV-1"},
        customer_id=acme.id,
    )

    await make_dispatcher().run_once()

    got = Counter((r.path, r.headers["X-SVC-Event"]) for r in receiver.requests)
    assert got == Counter(
        {
            ("/all", "order.stage_changed"): 1,
            ("/all", "order.dispatched"): 1,
            ("/all", "invoice.paid"): 1,
            ("/dispatched", "order.dispatched"): 1,
            ("/orders", "order.stage_changed"): 1,
            ("/orders", "order.dispatched"): 1,
            ("/acme", "order.stage_changed"): 1,
            ("/acme", "invoice.paid"): 1,
        }
    )
    assert all(r.signature_ok for r in receiver.requests)
    bodies = {row["body"].encode() for row in await WebhookEvent.select(WebhookEvent.body)}
    assert {r.body for r in receiver.requests} == bodies


async def test_events_while_inactive_are_skipped_then_replayed(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    ws = await factories.workspace()
    customer = await factories.customer(ws)
    sub = await support.subscription(ws, receiver.url())
    await subscriptions.disable(sub.id)
    since = clock.now()
    event_id = await outbox.record_event(
        workspace_id=ws.id, name="order.stage_changed", fields=STAGE, customer_id=customer.id
    )
    dispatcher = make_dispatcher()
    assert await dispatcher.run_once() == 0
    assert [row["status"] for row in await WebhookDelivery.select(WebhookDelivery.status)] == [
        "skipped"
    ]

    result = await subscriptions.enable(sub.id, requeue_since=since)
    assert result["requeued"] == 1
    fake_clock.advance(1)
    assert await dispatcher.run_once() == 1
    [got] = receiver.requests
    assert event_id.encode() in got.body
