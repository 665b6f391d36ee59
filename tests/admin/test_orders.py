"""The admin's orders over HTTP: every POST answers 303 and a reload repeats nothing; refusals
are the API's own words with 422 and change nothing; CSRF, tenancy and the owner's cancel; each
page costs a fixed number of statements."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import httpx
import pytest

from models import clock
from models.tables import (
    ApiToken,
    CustomerMessage,
    Invoice,
    Order,
    OrderLine,
    Sku,
    StageChange,
    Workspace,
)
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import (
    csrf_of,
    delivery,
    log_in,
    member,
    post_form,
    statement_count,
    subscription,
)
from tests.api.order_helpers import advance, order_body, snapshot

T0 = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.UTC)


def two_lines(customer_id: int, **extra: str) -> dict[str, str]:
    return {
        "customer": str(customer_id), "due_by": "2030-06-30", "external_ref": "SHOP-1",
        "lines-0-description": "Front print", "lines-0-quantity": "10",
        "lines-0-unit_price": "4.50", "lines-0-sku": "",
        "lines-1-description": "Setup", "lines-1-quantity": "1", "lines-1-unit_price": "25",
        **extra,
    }  # fmt: skip


async def create_order(shop: Shop, data: dict[str, str]) -> httpx.Response:
    return await post_form(shop.client, "/admin/orders/new", "/admin/orders", data)


async def move(shop: Shop, number: str, to_stage: str, **extra: str) -> httpx.Response:
    page = f"/admin/orders/{number}"
    return await post_form(shop.client, page, f"{page}/stage", {"to_stage": to_stage, **extra})


async def an_order(shop: Shop, **fields: Any) -> Order:
    customer = await factories.customer(shop.ws, "Acme Tees")
    return await factories.order(shop.ws, customer, **fields)


async def test_create_answers_303_and_the_order_is_the_apis(shop: Shop, client) -> None:
    customer = await factories.customer(shop.ws, "Acme Tees")
    await factories.contact(customer, is_primary=True)
    created = await create_order(shop, two_lines(customer.id))
    assert created.status_code == 303, created.text
    row = await Order.select().where(Order.workspace == shop.ws.id).first()
    assert created.headers["location"] == f"/admin/orders/{row['number']}"
    assert (row["subtotal_cents"], row["tax_cents"], row["total_cents"]) == (7000, 1400, 8400)
    assert row["external_ref"] == "SHOP-1" and row["stage"] == "artwork"
    lines = await OrderLine.select(OrderLine.description, OrderLine.unit_price_cents).where(
        OrderLine.order == row["id"]
    )
    assert [(x["description"], x["unit_price_cents"]) for x in lines] == [
        ("Front print", 450), ("Setup", 2500),
    ]  # fmt: skip
    first = await StageChange.select().where(StageChange.order == row["id"]).first()
    assert (first["actor_kind"], first["user"], first["token"]) == ("user", shop.owner.id, None)

    # the page the 303 leads to says so once; a reload neither says it again nor creates again
    shown = await shop.client.get(created.headers["location"])
    assert f"Order {row['number']} created." in shown.text
    again = await shop.client.get(created.headers["location"])
    assert "created." not in again.text and await Order.count() == 1

    # the API shows the same order
    auth = await factories.headers(shop.owner)
    body = (await client.get(f"/api/v1/orders/{row['id']}", headers=auth)).json()
    assert body["totals"]["total_cents"] == 8400 and body["external_ref"] == "SHOP-1"
    assert body["due_by"].startswith("2030-06-30")
    assert body["stage_history"] == [{"from": None, "to": "artwork", "at": body["created_at"]}]


async def test_a_refused_create_keeps_what_was_typed_with_the_apis_words(shop: Shop) -> None:
    customer = await factories.customer(shop.ws)
    data = two_lines(
        customer.id, **{"lines-1-quantity": "lots", "lines-0-unit_price": "4.567",
                        "lines-0-description": " "},
    )  # fmt: skip
    refused = await create_order(shop, data)
    assert refused.status_code == 422
    assert "Line 1: the description must not be blank." in refused.text
    assert "Line 2: the quantity must be a whole number, e.g. 2." in refused.text
    assert "at most two decimals" in refused.text
    assert 'value="lots"' in refused.text and 'value="4.567"' in refused.text
    assert 'value="SHOP-1"' in refused.text
    assert await Order.count() == 0
    no_lines = await create_order(shop, {"customer": str(customer.id)})
    assert no_lines.status_code == 422
    assert "Add a garment or a line: an order needs at least one." in no_lines.text


async def test_external_ref_and_sku_refusals_name_the_field(shop: Shop) -> None:
    customer = await factories.customer(shop.ws)
    taken = await factories.order(shop.ws, customer, external_ref="SHOP-1")
    refused = await create_order(shop, two_lines(customer.id, **{"lines-0-sku": "NOPE"}))
    assert refused.status_code == 422
    assert f"The external_ref has already been taken by order {taken.id}." in refused.text
    assert "Line 1: the SKU is not one this workspace has." in refused.text
    assert 'id="lines-0-sku-error"' in refused.text and 'id="external_ref-error"' in refused.text
    assert await Order.count() == 1


async def test_the_plan_limit_refuses_with_the_apis_message(shop: Shop, client) -> None:
    ws = await factories.workspace(plan="starter", open_order_limit=1)
    owner = await member(ws)
    await log_in(shop.client, owner.email)
    customer = await factories.customer(ws)
    await factories.order(ws, customer)
    before = await snapshot()
    refused = await create_order(shop, two_lines(customer.id))
    assert refused.status_code == 422
    message = (
        "The workspace has reached its limit of 1 open orders (starter plan); "
        "dispatch or cancel orders, or upgrade the plan."
    )
    assert message in refused.text
    assert await snapshot() == before
    # the API's answer to the same create, on a plan with the API
    api_ws = await factories.workspace(open_order_limit=1)
    api_customer = await factories.customer(api_ws)
    await factories.order(api_ws, api_customer)
    auth = await factories.headers(await factories.user(api_ws))
    answer = await client.post("/api/v1/orders", json=order_body(api_customer.id), headers=auth)
    assert answer.json()["message"] == message.replace("starter", "premium")


async def test_moves_answer_303_record_the_member_and_a_reload_moves_nothing(shop: Shop) -> None:
    order = await an_order(shop)
    moved = await move(shop, order.number, "print_queue")
    assert moved.status_code == 303
    assert moved.headers["location"] == f"/admin/orders/{order.number}"
    page = await shop.client.get(moved.headers["location"])
    assert f"Order {order.number} moved to Print queue." in page.text
    assert f"by {shop.owner.name}" in page.text
    reload = await shop.client.get(moved.headers["location"])
    assert "moved to" not in reload.text
    history = (
        await StageChange.select().where(StageChange.order == order.id).order_by(StageChange.id)
    )
    assert len(history) == 2
    assert (history[1]["to_stage"], history[1]["actor_kind"], history[1]["user"]) == (
        "print_queue", "user", shop.owner.id,
    )  # fmt: skip
    # from the board, back to the board
    board = await post_form(
        shop.client, "/admin/orders/board", f"/admin/orders/{order.number}/stage",
        {"to_stage": "in_production", "return_to": "board"},
    )  # fmt: skip
    assert board.status_code == 303 and board.headers["location"] == "/admin/orders/board"
    # an id names the order too
    by_id = await move(shop, str(order.id), "qc_pack")
    assert by_id.status_code == 303
    assert (await Order.select(Order.stage).where(Order.id == order.id))[0]["stage"] == "qc_pack"


async def test_dispatch_with_tracking_issues_the_invoice(shop: Shop) -> None:
    order = await an_order(shop, stage="qc_pack")
    moved = await move(shop, order.number, "dispatched", carrier="DPD", tracking_number="TRK1")
    assert moved.status_code == 303
    row = await Order.select().where(Order.id == order.id).first()
    assert (row["stage"], row["carrier"], row["tracking_number"]) == ("dispatched", "DPD", "TRK1")
    invoice = await Invoice.select().where(Invoice.order == order.id).first()
    page = await shop.client.get(f"/admin/orders/{order.number}")
    assert invoice["number"] in page.text and "TRK1" in page.text
    assert await CustomerMessage.count() == 1


@pytest.mark.parametrize(
    ("workspace", "stage", "target", "message"),
    [
        (
            {"require_artwork_approval": True}, "artwork", "print_queue",
            "Order {n} cannot leave artwork before its artwork is approved (the workspace "
            "requires artwork approval).",
        ),
        (
            {"strict_sequence": True}, "artwork", "in_production",
            "Order {n} cannot skip from artwork to in_production: the workspace requires "
            "stages in sequence (the next stage is print_queue).",
        ),
        (
            {}, "dispatched", "qc_pack",
            "Order {n} is dispatched; a dispatched order cannot change stage.",
        ),
        ({}, "print_queue", "print_queue", "Order {n} is already in stage print_queue."),
    ],
)  # fmt: skip
async def test_refused_moves_are_the_apis_words_with_422_and_change_nothing(
    shop: Shop, client, workspace: dict[str, Any], stage: str, target: str, message: str
) -> None:
    if workspace:
        await Workspace.update(workspace).where(Workspace.id == shop.ws.id)
    order = await an_order(shop, stage=stage)
    before = await snapshot()
    refused = await move(shop, order.number, target)
    assert refused.status_code == 422
    expected = message.format(n=order.number)
    assert expected in refused.text.replace("&#39;", "'")
    assert await snapshot() == before
    # the API says exactly the same
    auth = await factories.headers(shop.owner)
    api = await advance(client, auth, order.id, target)
    assert api.status_code == 422 and api.json()["message"] == expected


async def test_a_field_refusal_of_a_move_is_shown_beside_the_field(shop: Shop) -> None:
    order = await an_order(shop)
    refused = await move(shop, order.number, "print_queue", carrier="DPD")
    assert refused.status_code == 422
    assert "Carrier goes with a move to Dispatched: choose Dispatched, or clear it." in refused.text
    assert "when to_stage is" not in refused.text
    assert 'id="carrier-error"' in refused.text and 'value="DPD"' in refused.text


async def test_cancel_is_for_owners_after_a_confirmation(shop: Shop, browser_two) -> None:
    sku = await factories.sku(shop.ws, on_hand=50, reserved=10)
    order = await an_order(shop, line_skus=[sku.id])
    page = await shop.client.get(f"/admin/orders/{order.number}")
    assert "Cancel order" in page.text
    staff = await member(shop.ws, role="staff")
    await log_in(browser_two, staff.email)
    staff_page = await browser_two.get(f"/admin/orders/{order.number}")
    assert staff_page.status_code == 200 and "Cancel order" not in staff_page.text
    assert (await browser_two.get(f"/admin/orders/{order.number}/cancel")).status_code == 403
    refused = await browser_two.post(
        f"/admin/orders/{order.number}/cancel", data={"_csrf_token": csrf_of(staff_page)}
    )
    assert refused.status_code == 403
    assert (await Order.select(Order.stage).where(Order.id == order.id))[0]["stage"] == "artwork"

    confirm = await shop.client.get(f"/admin/orders/{order.number}/cancel")
    assert confirm.status_code == 200 and "cannot change stage again" in confirm.text
    cancelled = await post_form(
        shop.client, f"/admin/orders/{order.number}/cancel", f"/admin/orders/{order.number}/cancel"
    )
    assert cancelled.status_code == 303
    assert (await Order.select(Order.stage).where(Order.id == order.id))[0]["stage"] == "cancelled"
    assert (await Sku.select(Sku.reserved).where(Sku.id == sku.id))[0]["reserved"] == 0
    last = (
        await StageChange.select()
        .where(StageChange.order == order.id)
        .order_by(StageChange.id, ascending=False)
        .first()
    )
    assert (last["to_stage"], last["actor_kind"], last["user"]) == (
        "cancelled",
        "user",
        shop.owner.id,
    )
    again = await post_form(
        shop.client, f"/admin/orders/{order.number}", f"/admin/orders/{order.number}/cancel"
    )
    assert again.status_code == 422
    assert (
        f"Order {order.number} is cancelled; a cancelled order cannot change stage." in again.text
    )


async def test_csrf_missing_is_refused_and_changes_nothing(shop: Shop) -> None:
    customer = await factories.customer(shop.ws)
    order = await factories.order(shop.ws, customer)
    for action, data in (
        ("/admin/orders", two_lines(customer.id)),
        (f"/admin/orders/{order.number}/stage", {"to_stage": "print_queue"}),
        (f"/admin/orders/{order.number}/cancel", {}),
    ):
        answer = await shop.client.post(action, data=data)
        assert answer.status_code == 403, action
        assert "Form refused" in answer.text
    assert await Order.count() == 1
    assert (await Order.select(Order.stage).where(Order.id == order.id))[0]["stage"] == "artwork"


async def test_another_workspaces_order_is_not_found(shop: Shop) -> None:
    other = await factories.workspace()
    theirs = await factories.order(other, await factories.customer(other))
    for path in (
        f"/admin/orders/{theirs.number}", f"/admin/orders/{theirs.id}",
        f"/admin/orders/{theirs.number}/cancel", "/admin/orders/ORD-nonsense",
        "/admin/orders/0", "/admin/orders/99999999999",
    ):  # fmt: skip
        assert (await shop.client.get(path)).status_code == 404, path
    for action, data in (
        (f"/admin/orders/{theirs.number}/stage", {"to_stage": "print_queue"}),
        (f"/admin/orders/{theirs.id}/cancel", {}),
    ):
        answer = await post_form(shop.client, "/admin/orders", action, data)
        assert answer.status_code == 404, action
    refused = await create_order(shop, two_lines((await factories.customer(other)).id))
    assert refused.status_code == 422
    assert "The customer is not one this workspace has." in refused.text
    assert (await Order.select(Order.stage).where(Order.id == theirs.id))[0]["stage"] == "artwork"
    assert await Order.count() == 1


async def test_list_filters_and_board(shop: Shop) -> None:
    acme = await factories.customer(shop.ws, "Acme Tees")
    zed = await factories.customer(shop.ws, "Zed Merch")
    today = clock.now().date()
    late = await factories.order(
        shop.ws, acme, stage="print_queue", due_by=dt.datetime.combine(
            today - dt.timedelta(days=3), dt.time(), tzinfo=dt.UTC
        ), external_ref="WEB-77",
    )  # fmt: skip
    soon = await factories.order(
        shop.ws, zed, stage="artwork",
        due_by=dt.datetime.combine(today + dt.timedelta(days=2), dt.time(), tzinfo=dt.UTC),
    )  # fmt: skip
    done = await factories.order(shop.ws, zed, stage="dispatched")

    def numbers(page: httpx.Response) -> set[str]:
        return set(re.findall(r'href="/admin/orders/(ORD-[\d-]+)"', page.text))

    async def listed(query: str) -> set[str]:
        page = await shop.client.get(f"/admin/orders?{query}")
        assert page.status_code == 200, page.text
        return numbers(page)

    assert await listed("") == {late.number, soon.number, done.number}
    assert await listed("stage=open") == {late.number, soon.number}
    assert await listed("stage=dispatched") == {done.number}
    assert await listed(f"customer={zed.id}") == {soon.number, done.number}
    assert await listed("q=web-7") == {late.number}
    assert await listed("q=zed") == {soon.number, done.number}
    assert await listed("due=overdue") == {late.number}
    assert await listed("due=week") == {soon.number}
    assert await listed("stage=bogus&due=bogus&page=x") == {late.number, soon.number, done.number}
    assert "overdue" in (await shop.client.get("/admin/orders")).text

    board = await shop.client.get("/admin/orders/board")
    assert board.status_code == 200
    assert numbers(board) == {late.number, soon.number}
    assert 'aria-label="Move ' + soon.number + ' to Print queue"' in board.text


async def test_list_pages_are_fifty_and_keep_filters(shop: Shop) -> None:
    customer = await factories.customer(shop.ws)
    for n in range(52):
        await factories.order(shop.ws, customer, created_at=T0 + dt.timedelta(minutes=n))
    first = await shop.client.get("/admin/orders?stage=artwork")
    assert first.text.count('id="order-') == 50
    assert "/admin/orders?stage=artwork&amp;page=2" in first.text
    second = await shop.client.get("/admin/orders?stage=artwork&page=2")
    assert second.text.count('id="order-') == 2


async def test_overview_shows_the_shop_floor(shop: Shop) -> None:
    customer = await factories.customer(shop.ws)
    yesterday = clock.now() - dt.timedelta(days=2)
    await factories.order(shop.ws, customer, stage="print_queue", due_by=yesterday)
    await factories.order(shop.ws, customer, stage="print_queue")
    done = await factories.order(shop.ws, customer, stage="dispatched", due_by=yesterday)
    await factories.invoice(done, status="issued", total=12345)
    await factories.invoice(done, status="paid", total=999)
    await factories.sku(shop.ws, on_hand=5, reorder_point=10)
    await factories.sku(shop.ws, on_hand=500, reorder_point=10)
    await factories.sku(shop.ws, on_hand=0, discontinued=True)
    page = await shop.client.get("/admin/")
    text = re.sub(r"\s+", " ", page.text)
    assert 'Open orders</div> <div class="figure">2 / 500<' in text
    assert '<span class="count">1</span> Overdue</h3>' in text  # "Needs attention" first
    assert 'Low-stock SKUs</div> <div class="figure">1<' in text
    assert "123.45 GBP" in text and "1 issued, not yet paid" in text
    assert re.search(
        r'stage=print_queue"> <span class="muted">Print queue</span> <span class="figure">2<', text
    )
    webhooks = await shop.client.get("/admin/webhooks")  # the webhook figures live there
    assert '/admin/deliveries?failed=24h"' in webhooks.text  # behind "failed attempts"
    retrying = await delivery(shop.ws, await subscription(shop.ws), status="pending")
    behind = await shop.client.get("/admin/deliveries?failed=24h")
    assert f'id="delivery-{retrying}"' in behind.text


# --- statements per page ---------------------------------------------------------------------


async def test_pages_cost_the_same_with_one_row_or_many(shop: Shop, statements) -> None:
    customer = await factories.customer(shop.ws)
    await factories.contact(customer, is_primary=True)
    small = await factories.order(shop.ws, customer)
    counts = {}
    for path in ("/admin/orders", "/admin/orders/board", f"/admin/orders/{small.number}"):
        counts[path] = await statement_count(shop.client, statements, path)

    for n in range(30):
        other = await factories.customer(shop.ws)
        await factories.order(shop.ws, other, stage=("artwork", "print_queue", "qc_pack")[n % 3])
    big = await factories.order(shop.ws, customer, lines=[("x", 1, 100)] * 20)
    for n in range(8):
        await factories.stage_change(big, "artwork", "print_queue", T0 + dt.timedelta(hours=n))
    await factories.invoice(big)
    token = await factories.token(shop.owner, name="shop")
    assert token and await ApiToken.count() == 1
    for path, number in (
        ("/admin/orders", None), ("/admin/orders/board", None),
        (f"/admin/orders/{big.number}", big.number),
    ):  # fmt: skip
        key = f"/admin/orders/{small.number}" if number else path
        assert await statement_count(shop.client, statements, path) == counts[key], path
    assert max(counts.values()) <= 10, counts


@pytest.fixture
async def browser_two(app) -> Any:
    """A second cookie jar (another person's browser)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c
