"""Operators' order commands: `artwork proof|approve`, `invoice pay`, `order cancel`, each
writing its webhook events (or none, for cancel) in the same transaction as the change."""

from __future__ import annotations

import json
from typing import Any

import pytest

from models import clock
from models.tables import (
    Artwork,
    Customer,
    CustomerMessage,
    Invoice,
    Order,
    OrderLine,
    Sku,
    StageChange,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
)
from tests import factories

pytestmark = pytest.mark.usefixtures("backend")


async def _setup(**order_fields: Any) -> tuple[Any, Any, Order]:
    ws = await factories.workspace()
    customer = await factories.customer(ws, "Acme Tees")
    await factories.contact(customer, is_primary=True)
    await WebhookSubscription(
        workspace=ws.id, url="http://127.0.0.1:9/", secret="s", events="*"
    ).save()
    order = await factories.order(ws, customer, **order_fields)
    return ws, customer, order


async def test_proof_then_approve_records_artwork_approved(pressline):
    ws, customer, order = await _setup()
    proof = await pressline(f"artwork proof --order {order.id} --json")
    assert proof.code == 0, proof.err
    assert (proof.data["status"], proof.data["version"]) == ("awaiting_approval", 1)
    sent = await WebhookEvent.objects().first()
    assert (sent.name, sent.order, sent.customer) == ("artwork.proof_sent", order.id, customer.id)
    assert f'"order_id":{order.id},"order_number":"{order.number}","artwork_version":1}}' in (
        sent.body
    )
    approve = await pressline(f"artwork approve --order {order.id}")
    assert approve.code == 0, approve.err
    assert "approved" in approve.out
    artwork = await Artwork.objects().get(Artwork.order == order.id)
    assert (artwork.status, artwork.version) == ("approved", 1)
    event = await WebhookEvent.objects().where(WebhookEvent.name == "artwork.approved").first()
    assert (event.name, event.order, event.customer) == ("artwork.approved", order.id, customer.id)
    assert event.body == (
        '{"event":"artwork.approved",'
        f'"event_id":"{event.event_id}",'
        f'"occurred_at":"{clock.iso(artwork.approved_at)}",'
        f'"workspace_id":{ws.id},'
        f'"order_id":{order.id},"order_number":"{order.number}","artwork_version":1}}'
    )
    assert await WebhookDelivery.count() == 2  # the proof's and the approval's, to `*`
    # A second proof starts a new version that needs approving again.
    again = await pressline(f"artwork proof --order {order.id} --json")
    assert (again.data["status"], again.data["version"], again.data["approved_at"]) == (
        "awaiting_approval",
        2,
        None,
    )


async def test_approval_needs_a_proof(pressline):
    _, _, order = await _setup()
    run = await pressline(f"artwork approve --order {order.id}")
    assert run.code == 1
    assert "has no proof awaiting approval" in run.err
    assert await WebhookEvent.count() == 0


@pytest.mark.parametrize("stage", ["dispatched", "cancelled"])
async def test_artwork_of_a_finished_order_cannot_change(pressline, stage):
    _, _, order = await _setup(stage=stage)
    for action in ("proof", "approve"):
        run = await pressline(f"artwork {action} --order {order.id} --json")
        assert run.code == 1
        assert run.data["error"] == (
            f"Order {order.number} is {stage}; its artwork can no longer change."
        )


async def test_unknown_orders_are_reported(pressline):
    for command in ("artwork proof --order 999999", "order cancel --order 2147483648"):
        run = await pressline(command)
        assert run.code == 1
        assert "not found" in run.err


async def test_invoice_pay_records_invoice_paid(pressline):
    ws, customer, order = await _setup(stage="dispatched")
    invoice = await factories.invoice(order)
    run = await pressline(f"invoice pay --workspace {ws.id} {invoice.number} --json")
    assert run.code == 0, run.err
    assert run.data["status"] == "paid"
    row = await Invoice.objects().get(Invoice.id == invoice.id)
    assert row.status == "paid"
    assert row.paid_at is not None
    event = await WebhookEvent.objects().where(WebhookEvent.name == "invoice.paid").first()
    assert event.body == (
        '{"event":"invoice.paid",'
        f'"event_id":"{event.event_id}",'
        f'"occurred_at":"{clock.iso(row.paid_at)}",'
        f'"workspace_id":{ws.id},'
        f'"order_id":{order.id},'
        f'"order_number":"{order.number}",'
        f'"invoice_id":{invoice.id},'
        f'"invoice_number":"{invoice.number}",'
        '"invoice_status":"paid",'
        f'"total":{invoice.total_cents},'
        '"currency":"GBP"}'
    )
    detail = await Customer.select(Customer.updated_at).where(Customer.id == customer.id).first()
    assert detail["updated_at"] >= row.paid_at
    order_row = await Order.select(Order.updated_at).where(Order.id == order.id).first()
    assert order_row["updated_at"] >= row.paid_at


async def test_only_issued_invoices_can_be_paid(pressline):
    ws, _, order = await _setup(stage="dispatched")
    paid = await factories.invoice(order, status="paid")
    run = await pressline(f"invoice pay --workspace {ws.id} {paid.number}")
    assert run.code == 1
    assert f"Invoice {paid.number} is paid; only an issued invoice can be paid." in run.err
    other = await factories.workspace()
    issued = await factories.invoice(order)
    run = await pressline(f"invoice pay --workspace {other.id} {issued.number}")
    assert run.code == 1
    assert "not found" in run.err
    assert await WebhookEvent.count() == 0


async def test_cancel_releases_reservations_and_records_order_cancelled(pressline):
    ws, _, _ = await _setup()
    customer = await factories.customer(ws)
    tee = await factories.sku(ws, "TEE", on_hand=10, reserved=6)
    order = await factories.order(
        ws, customer, stage="print_queue", lines=[("Tee", 4, 100), ("Tee", 2, 100)]
    )
    await OrderLine.update({OrderLine.sku: tee.id}).where(OrderLine.order == order.id)
    run = await pressline(f"order cancel --order {order.id} --json")
    assert run.code == 0, run.err
    assert run.data == {"order_id": order.id, "order_number": order.number, "stage": "cancelled"}
    levels = await Sku.select(Sku.on_hand, Sku.reserved).where(Sku.id == tee.id).first()
    assert levels == {"on_hand": 10, "reserved": 0}
    history = (
        await StageChange.select().where(StageChange.order == order.id).order_by(StageChange.id)
    )
    assert (history[-1]["from_stage"], history[-1]["to_stage"], history[-1]["actor_kind"]) == (
        "print_queue",
        "cancelled",
        "operator",
    )
    events = await WebhookEvent.select(WebhookEvent.name, WebhookEvent.body)
    assert [event["name"] for event in events] == ["order.cancelled"]
    body = json.loads(events[0]["body"])
    assert (body["order_id"], body["stage"], body["customer_id"]) == (
        order.id,
        "cancelled",
        customer.id,
    )
    message = await CustomerMessage.objects().first()
    assert message.subject == f"Order {order.number} has been cancelled"


async def test_cancel_after_consumption_releases_nothing(pressline):
    ws, customer, _ = await _setup()
    tee = await factories.sku(ws, "TEE", on_hand=10, reserved=1)
    order = await factories.order(
        ws, customer, stage="qc_pack", lines=[("Tee", 4, 100)], stock_consumed=True
    )
    await OrderLine.update({OrderLine.sku: tee.id}).where(OrderLine.order == order.id)
    assert (await pressline(f"order cancel --order {order.id}")).code == 0
    levels = await Sku.select(Sku.on_hand, Sku.reserved).where(Sku.id == tee.id).first()
    assert levels == {"on_hand": 10, "reserved": 1}


@pytest.mark.parametrize("stage", ["dispatched", "cancelled"])
async def test_finished_orders_cannot_be_cancelled(pressline, stage):
    _, _, order = await _setup(stage=stage)
    run = await pressline(f"order cancel --order {order.id}")
    assert run.code == 1
    assert f"Order {order.number} is {stage}; a {stage} order cannot change stage." in run.err
    row = await Order.select(Order.stage).where(Order.id == order.id).first()
    assert row["stage"] == stage
