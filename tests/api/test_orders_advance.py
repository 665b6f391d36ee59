"""POST /api/v1/orders/{id}/advance: the stage-move policy (docs/api.md §4.7), and every side
effect of a move — history, stock, dispatch details, invoice, customer message, outbox."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

from models import clock
from models.tables import (
    ApiToken,
    Artwork,
    Customer,
    CustomerMessage,
    Invoice,
    NumberSequence,
    Order,
    Sku,
    StageChange,
    WebhookDelivery,
    WebhookEvent,
)
from tests import factories
from tests.api.order_helpers import (
    Shop,
    advance,
    create,
    line,
    order_body,
    shop,
    snapshot,
    subscription,
)


async def new_order(client, s: Shop, **fields) -> int:
    response = await create(client, s.auth, order_body(s.customer.id, **fields))
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


async def move(client, s: Shop, order_id: int, *stages: str) -> None:
    for stage in stages:
        response = await advance(client, s.auth, order_id, stage)
        assert response.status_code == 200, response.text


async def test_a_move_answers_200_with_the_detail_and_records_history(client):
    s = await shop()
    order_id = await new_order(client, s)
    response = await advance(client, s.auth, order_id, "print_queue")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["id"] == order_id
    assert body["stage"] == "print_queue"
    assert [(h["from"], h["to"]) for h in body["stage_history"]] == [
        (None, "artwork"),
        ("artwork", "print_queue"),
    ]
    assert "location" not in response.headers
    assert (await client.get(f"/api/v1/orders/{order_id}", headers=s.auth)).json() == body
    rows = await StageChange.select().where(StageChange.order == order_id).order_by(StageChange.id)
    assert (rows[1]["from_stage"], rows[1]["to_stage"]) == ("artwork", "print_queue")
    token = await ApiToken.select(ApiToken.id).where(ApiToken.user == s.user.id).first()
    assert (rows[1]["actor_kind"], rows[1]["user"], rows[1]["token"]) == (
        "token",
        s.user.id,
        token["id"],
    )


async def test_a_move_bumps_the_orders_updated_at(client):
    s = await shop()
    order_id = await new_order(client, s)
    old = clock.now() - dt.timedelta(days=1)
    await Order.update({Order.updated_at: old}).where(Order.id == order_id)
    response = await advance(client, s.auth, order_id, "print_queue")
    assert dt.datetime.fromisoformat(response.json()["updated_at"]) > old


# --- the policy -----------------------------------------------------------------------------


@pytest.mark.parametrize("terminal", ["dispatched", "cancelled"])
@pytest.mark.parametrize("target", ["artwork", "print_queue", "dispatched"])
async def test_terminal_orders_cannot_move(client, terminal, target):
    s = await shop()
    order = await factories.order(s.ws, s.customer, stage=terminal)
    response = await advance(client, s.auth, order.id, target)
    assert response.status_code == 422
    assert response.json() == {
        "message": f"Order {order.number} is {terminal}; a {terminal} order cannot change stage.",
        "code": "stage_move_refused",
        "errors": {},
        "details": {},
    }


@pytest.mark.parametrize("stage", ["artwork", "print_queue", "in_production", "qc_pack"])
async def test_moving_to_the_current_stage_is_refused(client, stage):
    s = await shop()
    order = await factories.order(s.ws, s.customer, stage=stage)
    response = await advance(client, s.auth, order.id, stage)
    assert response.status_code == 422
    assert response.json()["message"] == f"Order {order.number} is already in stage {stage}."
    assert response.json()["errors"] == {}


async def test_leaving_artwork_needs_approval_when_the_workspace_requires_it(client):
    s = await shop(require_artwork_approval=True)
    order_id = await new_order(client, s)
    number = (await Order.select(Order.number).where(Order.id == order_id).first())["number"]
    refused = await advance(client, s.auth, order_id, "print_queue")
    assert refused.status_code == 422
    assert refused.json()["message"] == (
        f"Order {number} cannot leave artwork before its artwork is approved "
        "(the workspace requires artwork approval)."
    )
    # A proof awaiting approval is not enough either.
    await Artwork.update({Artwork.status: "awaiting_approval", Artwork.version: 1}).where(
        Artwork.order == order_id
    )
    assert (await advance(client, s.auth, order_id, "dispatched")).status_code == 422
    await Artwork.update({Artwork.status: "approved"}).where(Artwork.order == order_id)
    await move(client, s, order_id, "print_queue", "artwork", "in_production")


async def test_without_the_setting_artwork_need_not_be_approved(client):
    s = await shop(require_artwork_approval=False)
    order_id = await new_order(client, s)
    await move(client, s, order_id, "print_queue")


async def test_strict_sequence_refuses_forward_skips_only(client):
    s = await shop(strict_sequence=True)
    order_id = await new_order(client, s)
    number = (await Order.select(Order.number).where(Order.id == order_id).first())["number"]
    refused = await advance(client, s.auth, order_id, "in_production")
    assert refused.status_code == 422
    assert refused.json()["message"] == (
        f"Order {number} cannot skip from artwork to in_production: the workspace requires "
        "stages in sequence (the next stage is print_queue)."
    )
    assert (await advance(client, s.auth, order_id, "dispatched")).status_code == 422
    await move(client, s, order_id, "print_queue", "in_production", "qc_pack")
    # Backward moves (rework) may skip: qc_pack → artwork.
    await move(client, s, order_id, "artwork", "print_queue")


async def test_without_strict_sequence_forward_skips_are_allowed(client):
    s = await shop(strict_sequence=False)
    order_id = await new_order(client, s)
    await move(client, s, order_id, "qc_pack", "dispatched")


@pytest.mark.parametrize(
    ("start", "target"),
    [
        ("qc_pack", "print_queue"),
        ("qc_pack", "artwork"),
        ("in_production", "artwork"),
        ("print_queue", "artwork"),
    ],
)
async def test_backward_moves_are_allowed(client, start, target):
    s = await shop(strict_sequence=True)
    order = await factories.order(s.ws, s.customer, stage=start)
    response = await advance(client, s.auth, order.id, target)
    assert response.status_code == 200, response.text
    assert response.json()["stage"] == target


async def test_the_first_refusal_in_table_order_is_the_reason(client):
    """Terminal wins over every other rule (a dispatched order in a strict workspace)."""
    s = await shop(strict_sequence=True, require_artwork_approval=True)
    order = await factories.order(s.ws, s.customer, stage="cancelled")
    response = await advance(client, s.auth, order.id, "qc_pack")
    assert "cancelled order cannot change stage" in response.json()["message"]


async def test_a_refused_move_writes_nothing(client):
    s = await shop(strict_sequence=True, require_artwork_approval=True)
    await subscription(s.ws)
    await factories.sku(s.ws, "TEE", on_hand=10)
    order_id = await new_order(client, s, lines=[line(sku="TEE")])
    before = await snapshot()
    for target in ("artwork", "print_queue", "in_production", "dispatched"):
        assert (await advance(client, s.auth, order_id, target)).status_code == 422
    assert await snapshot() == before


# --- tenancy --------------------------------------------------------------------------------


async def test_another_workspaces_order_is_404_and_untouched(client):
    s = await shop()
    other = await shop()
    theirs = await new_order(client, other)
    before = await snapshot()
    for order_id in (theirs, 999_999, 2**31, 2**40):
        response = await advance(client, s.auth, order_id, "print_queue")
        assert response.status_code == 404, response.text
        assert response.json() == {"message": "Order not found", "code": "not_found", "details": {}}
    assert await snapshot() == before


# --- stock ----------------------------------------------------------------------------------


async def _levels(*skus) -> list[tuple[int, int]]:
    rows = {r["id"]: r for r in await Sku.select(Sku.id, Sku.on_hand, Sku.reserved)}
    return [(rows[s.id]["on_hand"], rows[s.id]["reserved"]) for s in skus]


async def test_stock_is_consumed_once_on_reaching_production(client):
    s = await shop()
    tee = await factories.sku(s.ws, "TEE", on_hand=20)
    cap = await factories.sku(s.ws, "CAP", on_hand=5)
    lines = [line(sku="TEE", quantity=4), line(sku="CAP", quantity=5), line(sku="TEE", quantity=1)]
    order_id = await new_order(client, s, lines=lines)
    assert await _levels(tee, cap) == [(20, 5), (5, 5)]
    await move(client, s, order_id, "print_queue")
    assert await _levels(tee, cap) == [(20, 5), (5, 5)]
    await move(client, s, order_id, "in_production")
    assert await _levels(tee, cap) == [(15, 0), (0, 0)]
    assert (await Order.select(Order.stock_consumed).where(Order.id == order_id).first())[
        "stock_consumed"
    ]
    # Rework and a second pass through production do not consume again.
    await move(client, s, order_id, "print_queue", "in_production", "qc_pack", "dispatched")
    assert await _levels(tee, cap) == [(15, 0), (0, 0)]


@pytest.mark.parametrize("target", ["qc_pack", "dispatched"])
async def test_skipping_past_production_still_consumes(client, target):
    s = await shop()
    tee = await factories.sku(s.ws, "TEE", on_hand=20)
    order_id = await new_order(client, s, lines=[line(sku="TEE", quantity=7)])
    await move(client, s, order_id, target)
    assert await _levels(tee) == [(13, 0)]


async def test_consumption_moves_the_skus_updated_at(client):
    s = await shop()
    tee = await factories.sku(s.ws, "TEE", on_hand=20)
    order_id = await new_order(client, s, lines=[line(sku="TEE", quantity=7)])
    old = clock.now() - dt.timedelta(days=1)
    await Sku.update({Sku.updated_at: old}).where(Sku.id == tee.id)
    await move(client, s, order_id, "in_production")
    row = await Sku.select(Sku.updated_at).where(Sku.id == tee.id).first()
    assert row["updated_at"] > old


# --- dispatch -------------------------------------------------------------------------------


async def test_dispatch_sets_time_carrier_and_issues_the_invoice(client):
    s = await shop()
    order_id = await new_order(client, s)
    before = clock.now().replace(microsecond=0)
    response = await advance(
        client, s.auth, order_id, "dispatched", carrier="Royal Mail", tracking_number="RM123GB"
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert dt.datetime.fromisoformat(body["dispatched_at"]) >= before
    assert (body["carrier"], body["tracking_number"]) == ("Royal Mail", "RM123GB")
    year = clock.now().year
    assert [(i["number"], i["status"], i["total"], i["currency"]) for i in body["invoices"]] == [
        (f"INV-{year}-0001", "issued", body["totals"]["total_cents"], "GBP")
    ]
    assert body["invoices"][0]["issued_at"] == body["dispatched_at"]
    assert body["invoices"][0]["paid_at"] is None
    invoice = await Invoice.objects().get(Invoice.order == order_id)
    assert (invoice.customer, invoice.workspace, invoice.number_seq) == (s.customer.id, s.ws.id, 1)
    assert body["invoices"][0]["id"] == invoice.id
    shown = await client.get(f"/api/v1/invoices/{invoice.id}", headers=s.auth)
    assert shown.json()["number"] == body["invoices"][0]["number"]
    listed = await client.get("/api/v1/invoices", params={"order": order_id}, headers=s.auth)
    assert [row["id"] for row in listed.json()["data"]] == [invoice.id]
    detail = await client.get(f"/api/v1/orders/{order_id}", headers=s.auth)
    assert detail.json()["invoices"] == body["invoices"]


async def test_dispatch_defaults_to_the_customers_carrier(client):
    s = await shop()
    order_id = await new_order(client, s)
    response = await advance(client, s.auth, order_id, "dispatched")
    assert (response.json()["carrier"], response.json()["tracking_number"]) == ("DPD", None)
    no_default = await factories.customer(s.ws, "Walk-in", default_carrier="")
    order_id = await new_order(client, Shop(s.ws, s.user, s.auth, no_default, s.contact))
    response = await advance(client, s.auth, order_id, "dispatched")
    assert response.json()["carrier"] is None


async def test_a_carrier_already_on_the_order_is_kept(client):
    s = await shop()
    order = await factories.order(s.ws, s.customer, stage="qc_pack", carrier="UPS")
    response = await advance(client, s.auth, order.id, "dispatched")
    assert response.json()["carrier"] == "UPS"


async def test_invoice_numbers_are_consecutive_per_workspace(client):
    a = await shop()
    b = await shop()
    year = clock.now().year
    numbers = []
    for s in (a, b, a):
        order_id = await new_order(client, s)
        response = await advance(client, s.auth, order_id, "dispatched")
        numbers.append(response.json()["invoices"][0]["number"])
    assert numbers == [f"INV-{year}-0001", f"INV-{year}-0001", f"INV-{year}-0002"]
    # Order and invoice numbers are separate sequences.
    assert await NumberSequence.count().where(NumberSequence.workspace == a.ws.id) == 2


async def test_dispatch_moves_the_customers_updated_at(client):
    s = await shop()
    order_id = await new_order(client, s)
    old = clock.now() - dt.timedelta(days=1)
    await Customer.update({Customer.updated_at: old}).where(Customer.id == s.customer.id)
    await move(client, s, order_id, "qc_pack")
    row = await Customer.select(Customer.updated_at).where(Customer.id == s.customer.id).first()
    assert row["updated_at"] == old  # open_orders did not change
    await move(client, s, order_id, "dispatched")
    row = await Customer.select(Customer.updated_at).where(Customer.id == s.customer.id).first()
    assert row["updated_at"] > old


# --- customer messages ----------------------------------------------------------------------


async def test_one_message_per_move_for_the_primary_contact(client):
    s = await shop()
    await factories.contact(s.customer, is_primary=False)
    order_id = await new_order(client, s)
    number = (await Order.select(Order.number).where(Order.id == order_id).first())["number"]
    await move(client, s, order_id, "print_queue", "artwork")
    await advance(client, s.auth, order_id, "dispatched", carrier="DHL", tracking_number="JD01")
    rows = await CustomerMessage.select().order_by(CustomerMessage.id)
    assert [(r["kind"], r["subject"], r["contact"], r["status"]) for r in rows] == [
        # Stages the workspace does not email (default: in_production, dispatched) are muted.
        ("order.print_queue", f"Order {number} is queued for printing", s.contact.id, "muted"),
        ("order.artwork", f"Order {number} is back in artwork", s.contact.id, "muted"),
        ("order.dispatched", f"Order {number} has been dispatched", s.contact.id, "queued"),
    ]
    assert "Carrier: DHL\nTracking number: JD01\n" in rows[2]["body"]
    assert rows[2]["recipient"] == s.contact.email
    assert {(r["customer"], r["order"], r["workspace"]) for r in rows} == {
        (s.customer.id, order_id, s.ws.id)
    }


async def test_without_a_primary_contact_the_message_is_kept_unaddressed(client):
    s = await shop()
    lonely = await factories.customer(s.ws, "No Contacts")
    await factories.contact(lonely, is_primary=False)
    order_id = await new_order(client, Shop(s.ws, s.user, s.auth, lonely, s.contact))
    await move(client, s, order_id, "print_queue")
    row = await CustomerMessage.select().first()
    assert (row["contact"], row["status"]) == (None, "no_contact")


# --- outbox ---------------------------------------------------------------------------------


async def test_a_move_records_the_event_with_its_exact_bytes(client):
    s = await shop(timezone="America/New_York")
    await subscription(s.ws)
    order_id = await new_order(client, s, due_by="2026-12-24")
    number = (await Order.select(Order.number).where(Order.id == order_id).first())["number"]
    await move(client, s, order_id, "print_queue")
    event = await WebhookEvent.objects().where(WebhookEvent.name != "order.created").first()
    at = (
        await StageChange.select(StageChange.at).order_by(StageChange.id, ascending=False).first()
    )["at"]
    assert uuid.UUID(event.event_id).version == 4
    assert (event.name, event.order, event.customer, event.workspace) == (
        "order.stage_changed",
        order_id,
        s.customer.id,
        s.ws.id,
    )
    assert event.body == (
        '{"event":"order.stage_changed",'
        f'"event_id":"{event.event_id}",'
        f'"occurred_at":"{clock.iso(at)}",'
        f'"workspace_id":{s.ws.id},'
        f'"order_id":{order_id},'
        f'"order_number":"{number}",'
        '"from_stage":"artwork","to_stage":"print_queue",'
        f'"customer":{{"id":{s.customer.id},"name":"Acme Tees","slug":"{s.customer.slug}"}},'
        '"due_by":"2026-12-24T00:00:00-05:00"}'
    )


async def test_dispatch_records_order_dispatched_then_invoice_issued(client):
    s = await shop()
    await subscription(s.ws)
    await Customer.update({Customer.name: "Café Ünïcode"}).where(Customer.id == s.customer.id)
    order_id = await new_order(client, s)
    response = await advance(client, s.auth, order_id, "dispatched")
    order = response.json()
    events = (
        await WebhookEvent.objects()
        .where(WebhookEvent.name != "order.created")  # the create's own (test_orders_create)
        .order_by(WebhookEvent.id)
    )
    assert [e.name for e in events] == ["order.dispatched", "invoice.issued"]
    assert f'"customer":{{"id":{s.customer.id},"name":"Café Ünïcode"' in events[0].body
    # The dispatch's carrier (the customer's default) and tracking number close the body.
    assert '"due_by":null,"carrier":"DPD","tracking_number":null}' in events[0].body
    invoice = order["invoices"][0]
    invoice_id = (await Invoice.select(Invoice.id).where(Invoice.order == order_id).first())["id"]
    assert events[1].body == (
        '{"event":"invoice.issued",'
        f'"event_id":"{events[1].event_id}",'
        f'"occurred_at":"{order["dispatched_at"]}",'
        f'"workspace_id":{s.ws.id},'
        f'"order_id":{order["id"]},'
        f'"order_number":"{order["number"]}",'
        f'"invoice_id":{invoice_id},'
        f'"invoice_number":"{invoice["number"]}",'
        '"invoice_status":"issued",'
        f'"total":{order["totals"]["total_cents"]},'
        '"currency":"GBP"}'
    )
    assert events[0].event_id != events[1].event_id


async def test_deliveries_follow_event_lists_scope_and_active_state(client):
    s = await shop()
    other_customer = await factories.customer(s.ws, "Other")
    everything = await subscription(s.ws, events="*")
    inactive = await subscription(s.ws, events="*", is_active=False)
    dispatch_only = await subscription(s.ws, events="order.dispatched")
    spaced_list = await subscription(s.ws, events=" invoice.issued , order.stage_changed ")
    scoped_here = await subscription(s.ws, customer=s.customer.id)
    await subscription(s.ws, customer=other_customer.id)
    await subscription(s.ws, events="invoice.paid,artwork.approved")
    foreign = await shop()
    await subscription(foreign.ws)
    order_id = await new_order(client, s)
    await move(client, s, order_id, "qc_pack", "dispatched")
    events = {
        e["name"]: e["id"] for e in await WebhookEvent.select(WebhookEvent.id, WebhookEvent.name)
    }
    rows = await WebhookDelivery.select().order_by(WebhookDelivery.id)
    got = {(r["event"], r["subscription"], r["status"]) for r in rows}
    staged, dispatched, issued, created = (
        events["order.stage_changed"],
        events["order.dispatched"],
        events["invoice.issued"],
        events["order.created"],
    )
    assert got == {
        (created, everything.id, "pending"),
        (created, inactive.id, "skipped"),
        (created, scoped_here.id, "pending"),
        (staged, everything.id, "pending"),
        (staged, inactive.id, "skipped"),
        (staged, spaced_list.id, "pending"),
        (staged, scoped_here.id, "pending"),
        (dispatched, everything.id, "pending"),
        (dispatched, inactive.id, "skipped"),
        (dispatched, dispatch_only.id, "pending"),
        (dispatched, scoped_here.id, "pending"),
        (issued, everything.id, "pending"),
        (issued, inactive.id, "skipped"),
        (issued, spaced_list.id, "pending"),
        (issued, scoped_here.id, "pending"),
    }
    assert len(rows) == len(got)
    assert all(r["workspace"] == s.ws.id and r["attempts"] == 0 for r in rows)
    assert all(r["next_attempt_at"] <= clock.now() for r in rows)


async def test_no_subscriptions_still_records_the_event(client):
    s = await shop()
    order_id = await new_order(client, s)
    await move(client, s, order_id, "print_queue")
    assert await WebhookEvent.count() == 2  # order.created, order.stage_changed
    assert await WebhookDelivery.count() == 0


# --- a failure midway leaves nothing --------------------------------------------------------


async def test_a_dispatch_failing_midway_rolls_everything_back(client):
    """An invoice number taken behind the counter's back fails the dispatch after the stage,
    history, stock consumption, message and order event were written: none may remain."""
    s = await shop()
    await subscription(s.ws)
    await factories.sku(s.ws, "TEE", on_hand=10)
    order_id = await new_order(client, s, lines=[line(sku="TEE", quantity=3)])
    await move(client, s, order_id, "qc_pack")
    clash = await factories.order(s.ws, s.customer, stage="dispatched")
    row = await factories.invoice(clash)
    await Invoice.update({Invoice.number: f"INV-{clock.now().year}-0001"}).where(
        Invoice.id == row.id
    )
    # Put the stock back to "not yet consumed" so the dispatch would consume it.
    await Order.update({Order.stock_consumed: False}).where(Order.id == order_id)
    await Sku.update({Sku.on_hand: 10, Sku.reserved: 3}, force=True)
    before = await snapshot()
    response = await advance(client, s.auth, order_id, "dispatched")
    assert response.status_code == 500
    assert await snapshot() == before
