"""`pressline order advance`: the API's move (rules, refusals, events, invoice), recorded as an
operator's; a refusal is the API's message with exit status 1 and changes nothing."""

from __future__ import annotations

import pytest

from models.tables import Invoice, Order, StageChange, WebhookEvent, Workspace
from tests import factories
from tests.api.order_helpers import advance, snapshot, subscription

pytestmark = pytest.mark.usefixtures("backend")


async def test_advance_moves_through_every_stage_to_dispatch(pressline):
    ws = await factories.workspace()
    customer = await factories.customer(ws, "Acme Tees", default_carrier="DPD")
    await subscription(ws)
    order = await factories.order(ws, customer)
    for stage in ("print_queue", "in_production", "qc_pack"):
        run = await pressline(f"order advance {order.number} --to {stage}")
        assert run.code == 0, run.err
    assert run.out.strip() == f"order {order.number} moved from in_production to qc_pack"
    done = await pressline(
        f"order advance {order.id} --to dispatched --tracking-number TRK9 --json"
    )
    assert done.code == 0, done.err
    assert (done.data["stage"], done.data["carrier"], done.data["tracking_number"]) == (
        "dispatched", "DPD", "TRK9",
    )  # fmt: skip
    invoice = await Invoice.select().where(Invoice.order == order.id).first()
    assert [inv["number"] for inv in done.data["invoices"]] == [invoice["number"]]
    assert [entry["to"] for entry in done.data["stage_history"]] == [
        "artwork", "print_queue", "in_production", "qc_pack", "dispatched",
    ]  # fmt: skip
    moves = await StageChange.select(StageChange.actor_kind, StageChange.user).where(
        (StageChange.order == order.id) & StageChange.from_stage.is_not_null()
    )
    assert moves == [{"actor_kind": "operator", "user": None}] * 4
    names = [row["name"] for row in await WebhookEvent.select(WebhookEvent.name)]
    assert names.count("order.stage_changed") == 3 and "order.dispatched" in names
    assert "invoice.issued" in names

    human = await pressline(f"order advance {order.number} --to qc_pack")
    assert human.code == 1
    assert human.err.strip() == (
        f"error: Order {order.number} is dispatched; a dispatched order cannot change stage."
    )


async def test_refusals_are_the_apis_and_change_nothing(pressline, client):
    ws = await factories.workspace(strict_sequence=True)
    customer = await factories.customer(ws)
    order = await factories.order(ws, customer)
    before = await snapshot()
    run = await pressline(f"order advance {order.number} --to qc_pack --json")
    assert run.code == 1
    auth = await factories.headers(await factories.user(ws))
    api = await advance(client, auth, order.id, "qc_pack")
    assert run.data == {"error": api.json()["message"]}
    assert await snapshot() == before

    carrier = await pressline(f"order advance {order.number} --to print_queue --carrier DPD")
    assert carrier.code == 1
    assert "The carrier field is only accepted when to_stage is dispatched." in carrier.err
    long = await pressline(
        "order", "advance", order.number, "--to", "dispatched", "--carrier", "x" * 101
    )
    assert long.code == 1 and "length <= 100" in long.err
    cancel = await pressline(f"order advance {order.number} --to cancelled")
    assert cancel.code == 2 and "'cancelled' is not one of" in cancel.err
    unknown = await pressline("order advance ORD-1999-0001 --to print_queue")
    assert unknown.code == 1 and "order ORD-1999-0001 not found" in unknown.err
    await Workspace.update({Workspace.strict_sequence: False}).where(Workspace.id == ws.id)
    assert (await Order.select(Order.stage).where(Order.id == order.id))[0]["stage"] == "artwork"
