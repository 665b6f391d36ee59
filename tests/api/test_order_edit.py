"""PATCH /api/v1/orders/{id}: due date, notes and external_ref; lines and
items replaced and priced again; reservations moved with "order edited" stock movements;
`revision`; which stages allow what; `If-Match` (412) and `If-None-Match` (304) with the
order's ETag; `Idempotency-Key` replays; tenancy; the write limit; validation."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from typing import Any

import pytest

from models.actors import OPERATOR
from models.orders.cancelling import cancel_order
from models.tables import IdempotencyKey, Order, OrderLine, Sku, StockMovement, WebhookEvent
from tests import factories
from tests.api.item_helpers import (
    get,
    imprint,
    item,
    items_body,
    line_quantities,
    movements,
    net_reserved,
    patch,
    reserved,
    stocked,
)
from tests.api.order_helpers import (
    Shop,
    advance,
    create,
    line,
    more_callers,
    order_body,
    shop,
    snapshot,
    subscription,
)

KEY = "Idempotency-Key"


async def new_order(client, s: Shop, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = await create(client, s.auth, body or order_body(s.customer.id))
    assert response.status_code == 201, response.text
    return response.json()


async def move(client, s: Shop, order_id: int, *stages: str) -> None:
    for stage in stages:
        response = await advance(client, s.auth, order_id, stage)
        assert response.status_code == 200, response.text


def tee(**sizes: int) -> dict[str, Any]:
    """The stocked G5000 Black (helpers.stocked) in these sizes, 500 each."""
    return item(style="G5000", colour="Black", sizes=sizes, unit_price_cents=500)


async def state(order_id: int) -> dict[str, Any]:
    """What an edit may change, as stored."""
    row = await Order.select(
        Order.revision, Order.notes, Order.external_ref, Order.due_by, Order.subtotal_cents,
        Order.tax_cents, Order.total_cents, Order.updated_at,
    ).where(Order.id == order_id).first()  # fmt: skip
    assert row is not None
    lines = await OrderLine.select(
        OrderLine.description, OrderLine.quantity, OrderLine.unit_price_cents, OrderLine.sku,
        OrderLine.item,
    ).where(OrderLine.order == order_id).order_by(OrderLine.position)  # fmt: skip
    return {**row, "lines": lines, "movements": await movements(order_id)}


# --- due date, notes, external_ref -----------------------------------------------------------


async def test_due_by_notes_and_external_ref_change_and_the_detail_is_answered(client):
    s = await shop()
    order = await new_order(client, s)
    before = await state(order["id"])
    response = await patch(
        client,
        s.auth,
        order["id"],
        {"due_by": "2026-08-01", "notes": "Call first\r\nthen ship", "external_ref": "web-9"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["due_by"] == "2026-08-01T00:00:00+01:00"
    assert body["external_ref"] == "web-9"
    assert "notes" not in body
    assert body["revision"] == 2
    assert body["lines"] == order["lines"]
    assert body["totals"] == order["totals"]
    after = await state(order["id"])
    assert after["notes"] == "Call first\nthen ship"
    assert after["lines"] == before["lines"]
    assert after["updated_at"] > before["updated_at"]
    # The answer is the detail GET gives (ETag and body).
    detail = await get(client, s.auth, order["id"])
    assert detail.json() == body
    # null clears due_by and external_ref; fields not sent stay.
    cleared = await patch(client, s.auth, order["id"], {"due_by": None, "external_ref": None})
    assert cleared.status_code == 200, cleared.text
    assert (cleared.json()["due_by"], cleared.json()["external_ref"]) == (None, None)
    assert cleared.json()["revision"] == 3
    assert (await state(order["id"]))["notes"] == "Call first\nthen ship"


async def test_a_taken_external_ref_is_refused_naming_the_order(client):
    s = await shop()
    other = await shop()
    first = await new_order(client, s, order_body(s.customer.id, external_ref="web-1"))
    second = await new_order(client, s, order_body(s.customer.id, external_ref="web-2"))
    await new_order(client, other, order_body(other.customer.id, external_ref="web-3"))
    response = await patch(client, s.auth, second["id"], {"external_ref": "web-1"})
    assert response.status_code == 422
    message = f"The external_ref has already been taken by order {first['id']}."
    assert response.json() == {
        "message": message,
        "code": "external_ref_taken",
        "errors": {"external_ref": [message]},
        "details": {"order_id": first["id"]},
    }
    assert (await state(second["id"]))["external_ref"] == "web-2"
    # Its own value again, and a value another workspace uses, are fine.
    for ref in ("web-2", "web-3"):
        response = await patch(client, s.auth, second["id"], {"external_ref": ref})
        assert response.status_code == 200, response.text
        assert response.json()["external_ref"] == ref


# --- lines and items ---------------------------------------------------------------------------


async def test_lines_replace_the_plain_lines_and_keep_the_items(client):
    s = await shop()
    order = await new_order(
        client,
        s,
        order_body(s.customer.id, items=[item(imprints=[imprint(setup_cents=900)])],
                   lines=[line(description="Rush", quantity=1, unit_price_cents=2500)]),
    )  # fmt: skip
    response = await patch(
        client,
        s.auth,
        order["id"],
        {"lines": [line(description="Fold and bag", quantity=3, unit_price_cents=40),
                   line(description="Labels", quantity=3, unit_price_cents=10)]},
    )  # fmt: skip
    assert response.status_code == 200, response.text
    body = response.json()
    [kept] = body["items"]
    assert kept["id"] == order["items"][0]["id"]
    assert kept == order["items"][0]
    assert [(ln["description"], ln["quantity"], ln.get("item_id")) for ln in body["lines"]] == [
        ("Crew Tee Navy — M", 2, kept["id"]),
        ("Crew Tee Navy — L", 1, kept["id"]),
        ("Setup: front, screen print, 1 colour", 1, kept["id"]),
        ("Fold and bag", 3, None),
        ("Labels", 3, None),
    ]
    subtotal = 3 * 500 + 900 + 120 + 30
    assert body["totals"] == {
        "subtotal_cents": subtotal,
        "tax_cents": round(subtotal * 0.2),
        "total_cents": subtotal + round(subtotal * 0.2),
        "currency": "GBP",
    }
    assert body["revision"] == 2


async def test_items_replace_the_items_keep_the_lines_and_are_priced_again(client):
    s = await shop(tax_rate=Decimal("17.50"))
    order = await new_order(
        client,
        s,
        order_body(s.customer.id, items=[item(), item(style="Polo")],
                   lines=[line(description="Rush", quantity=1, unit_price_cents=2500)]),
    )  # fmt: skip
    new_items = [
        item(style="Hoodie", colour="Grey", sizes={"XL": 2, "S": 1}, unit_price_cents=2000,
             size_upcharges_cents={"XL": 300},
             imprints=[imprint(location="left_chest", method="embroidery", colours=None,
                               stitches=9000, unit_price_cents=350, setup_cents=1200)]),
    ]  # fmt: skip
    response = await patch(client, s.auth, order["id"], {"items": new_items})
    assert response.status_code == 200, response.text
    body = response.json()
    [hoodie] = body["items"]
    assert hoodie["style"] == "Hoodie"
    assert hoodie["imprints"][0]["stitches"] == 9000
    assert [
        (ln["description"], ln["quantity"], ln["unit_price_cents"], ln.get("item_id"))
        for ln in body["lines"]
    ] == [
        ("Hoodie Grey — XL", 2, 2650, hoodie["id"]),
        ("Hoodie Grey — S", 1, 2350, hoodie["id"]),
        ("Setup: left chest, embroidery", 1, 1200, hoodie["id"]),
        ("Rush", 1, 2500, None),
    ]
    subtotal = 2 * 2650 + 2350 + 1200 + 2500
    tax = int(Decimal(subtotal) * Decimal("0.175") + Decimal("0.5"))
    assert body["totals"] == {
        "subtotal_cents": subtotal,
        "tax_cents": tax,
        "total_cents": subtotal + tax,
        "currency": "GBP",
    }
    stored = await Order.select(Order.subtotal_cents, Order.total_cents).where(
        Order.id == order["id"]
    ).first()  # fmt: skip
    assert stored == {"subtotal_cents": subtotal, "total_cents": subtotal + tax}
    # The old items' lines are gone.
    assert await OrderLine.count().where(OrderLine.order == order["id"]) == 4


async def test_both_replaced_and_an_order_of_items_can_become_plain_lines(client):
    s = await shop()
    order = await new_order(client, s, items_body(s.customer.id, item()))
    plain = await patch(client, s.auth, order["id"], {"items": [], "lines": [line()]})
    assert plain.status_code == 200, plain.text
    assert plain.json()["items"] == []
    assert [(ln["description"], ln.get("item_id")) for ln in plain.json()["lines"]] == [
        ("Front print", None)
    ]
    assert plain.json()["totals"]["subtotal_cents"] == 12500
    back = await patch(client, s.auth, order["id"], {"items": [item()], "lines": []})
    assert back.status_code == 200, back.text
    assert [ln["description"] for ln in back.json()["lines"]] == [
        "Crew Tee Navy — M",
        "Crew Tee Navy — L",
    ]
    assert back.json()["revision"] == 3


@pytest.mark.parametrize(
    ("start", "edit"),
    [
        ("lines", {"lines": []}),
        ("items", {"items": []}),
        ("both", {"items": [], "lines": []}),
    ],
)
async def test_an_edit_leaving_no_line_is_refused(client, start, edit):
    s = await shop()
    body = {
        "lines": order_body(s.customer.id),
        "items": items_body(s.customer.id, item()),
        "both": order_body(s.customer.id, items=[item()]),
    }[start]
    order = await new_order(client, s, body)
    before = await state(order["id"])
    response = await patch(client, s.auth, order["id"], edit)
    assert response.status_code == 422, response.text
    assert list(response.json()["errors"]) == ["lines"]
    assert await state(order["id"]) == before


# --- reservations follow ----------------------------------------------------------------------


async def test_reservations_grow_shrink_and_follow_a_removed_garment(client):
    s = await shop()
    tees = await stocked(s.ws)
    hoods = await stocked(s.ws, style="18500", colour="Navy", sizes=("M", "L"), prefix="HD")
    order = await new_order(
        client,
        s,
        items_body(
            s.customer.id,
            tee(S=3, M=2, L=1),
            item(style="18500", colour="Navy", sizes={"M": 4}, unit_price_cents=1500),
        ),
    )
    order_id = order["id"]
    assert await reserved(s.ws) == {
        **{sku.code: 0 for sku in [*tees.values(), *hoods.values()]},
        "G5000-BLACK-S": 3, "G5000-BLACK-M": 2, "G5000-BLACK-L": 1, "HD-M": 4,
    }  # fmt: skip
    created = await movements(order_id)
    # Grow S, shrink M, drop L, add XL; keep the hoodie.
    response = await patch(
        client,
        s.auth,
        order_id,
        {"items": [tee(S=5, M=1, L=0, XL=2),
                   item(style="18500", colour="Navy", sizes={"M": 4}, unit_price_cents=1500)]},
    )  # fmt: skip
    assert response.status_code == 200, response.text
    assert await reserved(s.ws) == {
        **{sku.code: 0 for sku in [*tees.values(), *hoods.values()]},
        "G5000-BLACK-S": 5, "G5000-BLACK-M": 1, "G5000-BLACK-XL": 2, "HD-M": 4,
    }  # fmt: skip
    edited = (await movements(order_id))[len(created) :]
    assert {row["reason"] for row in edited} == {"order edited"}
    assert {row["on_hand"] for row in edited} == {0}
    assert net_reserved(edited) == {
        "G5000-BLACK-S": 2,
        "G5000-BLACK-M": -1,
        "G5000-BLACK-L": -1,
        "G5000-BLACK-XL": 2,
    }
    # One row per SKU whose reservation moved: growth is a reservation, a shrink a release.
    assert sorted((r["kind"], r["sku"], r["reserved"]) for r in edited) == [
        ("release", "G5000-BLACK-L", -1),
        ("release", "G5000-BLACK-M", -1),
        ("reservation", "G5000-BLACK-S", 2),
        ("reservation", "G5000-BLACK-XL", 2),
    ]
    stock = response.json()["items"][0]["stock"]
    assert stock["S"] == {"sku": "G5000-BLACK-S", "on_hand": 100, "reserved": 5, "available": 95}
    assert stock["XL"]["reserved"] == 2
    # Remove the tee: everything it held is released; the hoodie's reservation stays.
    seen = len(await movements(order_id))
    response = await patch(
        client,
        s.auth,
        order_id,
        {"items": [item(style="18500", colour="Navy", sizes={"M": 4}, unit_price_cents=1500)]},
    )
    assert response.status_code == 200, response.text
    assert {code: q for code, q in (await reserved(s.ws)).items() if q} == {"HD-M": 4}
    removed = (await movements(order_id))[seen:]
    assert net_reserved(removed) == {"G5000-BLACK-S": -5, "G5000-BLACK-M": -1,
                                     "G5000-BLACK-XL": -2}  # fmt: skip
    assert {(row["kind"], row["reason"]) for row in removed} == {("release", "order edited")}
    assert response.json()["revision"] == 3
    # What the SKUs hold is what the order's lines say.
    assert await line_quantities(order_id) == {"HD-M": 4}


async def test_plain_sku_lines_move_their_reservations_too(client):
    s = await shop()
    await factories.sku(s.ws, "CAP-RED", on_hand=10)
    await factories.sku(s.ws, "CAP-BLUE", on_hand=10)
    order = await new_order(
        client, s, order_body(s.customer.id, lines=[line(sku="CAP-RED", quantity=6)])
    )
    response = await patch(
        client,
        s.auth,
        order["id"],
        {"lines": [line(sku="CAP-BLUE", quantity=2), line(sku="CAP-RED", quantity=1)]},
    )
    assert response.status_code == 200, response.text
    assert await reserved(s.ws) == {"CAP-RED": 1, "CAP-BLUE": 2}
    edited = [r for r in await movements(order["id"]) if r["reason"] == "order edited"]
    assert net_reserved(edited) == {"CAP-RED": -5, "CAP-BLUE": 2}
    unknown = await patch(client, s.auth, order["id"], {"lines": [line(sku="NOPE")]})
    assert unknown.status_code == 422
    assert unknown.json()["errors"] == {"lines.0.sku": ["The selected lines.0.sku is invalid."]}


async def test_an_edit_that_changes_no_quantity_moves_no_stock(client):
    s = await shop()
    await stocked(s.ws)
    order = await new_order(client, s, items_body(s.customer.id, tee(M=2, L=1)))
    before = await movements(order["id"])
    # Same sizes, another price and description: lines change, stock does not.
    changed = {**tee(L=1, M=2), "unit_price_cents": 650, "description": "Team tee"}
    response = await patch(client, s.auth, order["id"], {"items": [changed]})
    assert response.status_code == 200, response.text
    assert [ln["description"] for ln in response.json()["lines"]] == [
        "Team tee — M",
        "Team tee — L",
    ]
    assert response.json()["totals"]["subtotal_cents"] == 3 * 650
    assert await movements(order["id"]) == before
    assert {c: q for c, q in (await reserved(s.ws)).items() if q} == {
        "G5000-BLACK-M": 2,
        "G5000-BLACK-L": 1,
    }


async def test_an_unstocked_size_in_an_edit_is_refused_and_nothing_moves(client):
    s = await shop()
    await stocked(s.ws)
    order = await new_order(client, s, items_body(s.customer.id, tee(M=2)))
    before = await state(order["id"])
    levels = await reserved(s.ws)
    response = await patch(client, s.auth, order["id"], {"items": [tee(M=5, XXL=1)]})
    assert response.status_code == 422
    message = "The workspace has no G5000 Black in size XXL; it has S, M, L, XL, 2XL."
    assert response.json() == {
        "message": message,
        "code": "validation_failed",
        "errors": {"items.0.sizes.XXL": [message]},
        "details": {},
    }
    assert await state(order["id"]) == before
    assert await reserved(s.ws) == levels


async def test_an_edit_reserving_past_the_stock_column_is_refused_and_nothing_moves(client):
    s = await shop()
    skus = await stocked(s.ws, sizes=("M", "L"))
    await factories.sku(s.ws, "BULK", on_hand=0, reserved=0)
    order = await new_order(
        client, s, order_body(s.customer.id, items=[tee(M=2, L=1)], lines=[line(sku="BULK")])
    )
    await Sku.update({Sku.reserved: 2**31 - 5}).where(Sku.id == skus["M"].id)
    await Sku.update({Sku.reserved: 2**31 - 5}).where(Sku.code == "BULK")
    before = await state(order["id"])
    levels = await reserved(s.ws)
    response = await patch(
        client,
        s.auth,
        order["id"],
        {"items": [tee(M=10, L=1)], "lines": [line(sku="BULK", quantity=20)]},
    )
    assert response.status_code == 422, response.text
    assert response.json()["errors"] == {
        "items.0.sizes": ["The items.0.sizes reservation would exceed the SKU's stock limits."],
        "lines.0.sku": ["The lines.0.sku reservation would exceed the SKU's stock limits."],
    }
    assert await state(order["id"]) == before
    assert await reserved(s.ws) == levels
    # Shrinking what is held is always possible.
    shrunk = await patch(client, s.auth, order["id"], {"items": [tee(M=1)], "lines": [line()]})
    assert shrunk.status_code == 200, shrunk.text
    assert (await reserved(s.ws))["G5000-BLACK-M"] == 2**31 - 6


# --- revision ----------------------------------------------------------------------------------


async def test_revision_grows_by_one_per_change_and_not_without_one(client):
    s = await shop()
    order = await new_order(client, s, items_body(s.customer.id, item()))
    assert order["revision"] == 1
    revisions = []
    for edit in (
        {"items": [item(sizes={"M": 5})]},
        {"lines": [line()]},
        {"items": [item()], "lines": []},
        {"due_by": "2026-12-01"},
    ):
        response = await patch(client, s.auth, order["id"], edit)
        assert response.status_code == 200, response.text
        revisions.append(response.json()["revision"])
    assert revisions == [2, 3, 4, 5]
    # An empty PATCH changes nothing: same revision, same body, same updated_at.
    current = await get(client, s.auth, order["id"])
    empty = await patch(client, s.auth, order["id"], {})
    assert empty.status_code == 200, empty.text
    assert empty.json() == current.json()
    assert (await Order.select(Order.revision).where(Order.id == order["id"]).first()) == {
        "revision": 5
    }


# --- order.updated ---------------------------------------------------------------------------


async def updates(order_id: int) -> list[dict[str, Any]]:
    rows = (
        await WebhookEvent.select(WebhookEvent.body)
        .where(WebhookEvent.order == order_id, WebhookEvent.name == "order.updated")
        .order_by(WebhookEvent.id)
    )
    return [json.loads(row["body"]) for row in rows]


async def test_each_edit_records_one_order_updated_event_naming_what_was_given(client):
    s = await shop()
    await subscription(s.ws)
    await stocked(s.ws)
    order = await new_order(client, s, items_body(s.customer.id, tee(M=2)))
    response = await patch(
        client, s.auth, order["id"], {"items": [tee(M=3)], "due_by": "2026-10-01"}
    )
    assert response.status_code == 200, response.text
    [event] = await updates(order["id"])
    assert event["event"] == "order.updated"
    assert (event["order_id"], event["order_number"], event["revision"]) == (
        order["id"], order["number"], 2,
    )  # fmt: skip
    assert event["changed"] == ["due_by", "items"]
    assert event["total_cents"] == response.json()["totals"]["total_cents"]
    # Refusals, a replay and an empty PATCH record nothing more.
    for edit, headers in (
        ({"items": [tee(XXL=1)]}, {}),
        ({"notes": "x"}, {"If-Match": '"stale"'}),
        ({"notes": "y"}, {KEY: "once"}),
        ({"notes": "y"}, {KEY: "once"}),
        ({}, {}),
    ):
        await patch(client, s.auth, order["id"], edit, **headers)
    assert [e["changed"] for e in await updates(order["id"])] == [["due_by", "items"], ["notes"]]


# --- stages ------------------------------------------------------------------------------------


async def test_content_is_editable_in_print_queue(client):
    s = await shop()
    order = await new_order(client, s)
    await move(client, s, order["id"], "print_queue")
    response = await patch(client, s.auth, order["id"], {"items": [item()]})
    assert response.status_code == 200, response.text
    assert response.json()["stage"] == "print_queue"


@pytest.mark.parametrize("stage", ["in_production", "qc_pack"])
async def test_after_print_queue_lines_and_items_are_refused_but_due_by_and_notes_change(
    client, stage
):
    s = await shop()
    await stocked(s.ws)
    order = await new_order(client, s, items_body(s.customer.id, tee(M=2)))
    await move(client, s, order["id"], "print_queue", "in_production")
    if stage == "qc_pack":
        await move(client, s, order["id"], "qc_pack")
    number = order["number"]
    before = await state(order["id"])
    levels = await reserved(s.ws)
    for edit in (
        {"lines": [line()]},
        {"items": [tee(M=3)]},
        {"items": []},
        {"due_by": "2026-09-01", "items": [tee(M=1)]},
    ):
        response = await patch(client, s.auth, order["id"], edit)
        assert response.status_code == 422, response.text
        assert response.json()["message"] == (
            f"Order {number} is {stage}; its lines can no longer change."
        )
        assert not response.json().get("errors")
    assert await state(order["id"]) == before
    assert await reserved(s.ws) == levels
    response = await patch(
        client, s.auth, order["id"], {"due_by": "2026-09-01", "notes": "Ship Friday"}
    )
    assert response.status_code == 200, response.text
    assert response.json()["due_by"] == "2026-09-01T00:00:00+01:00"
    assert response.json()["lines"] == order["lines"]
    after = await state(order["id"])
    assert after["notes"] == "Ship Friday"
    assert (after["lines"], after["movements"]) == (before["lines"], before["movements"])


@pytest.mark.parametrize("terminal", ["dispatched", "cancelled"])
async def test_nothing_changes_once_dispatched_or_cancelled(client, terminal):
    s = await shop()
    order = await new_order(client, s)
    if terminal == "dispatched":
        await move(client, s, order["id"], "dispatched")
    else:
        await cancel_order(workspace_id=s.ws.id, order_id=order["id"], actor=OPERATOR)
    before = await state(order["id"])
    for edit in ({"due_by": "2026-09-01"}, {"notes": "late"}, {"lines": [line()]}):
        response = await patch(client, s.auth, order["id"], edit)
        assert response.status_code == 422, response.text
        assert response.json()["message"].startswith(f"Order {order['number']} is {terminal}; ")
    assert await state(order["id"]) == before


# --- ETag, If-Match, If-None-Match -------------------------------------------------------------


async def test_get_answers_304_to_the_current_etag_and_200_after_a_change(client):
    s = await shop()
    order = await new_order(client, s)
    first = await get(client, s.auth, order["id"])
    etag = first.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"')
    again = await get(client, s.auth, order["id"], **{"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == etag
    other = await get(client, s.auth, order["id"], **{"If-None-Match": '"something-else"'})
    assert other.status_code == 200
    assert other.json() == first.json()
    assert (await patch(client, s.auth, order["id"], {"notes": "x"})).status_code == 200
    changed = await get(client, s.auth, order["id"], **{"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["etag"] != etag
    assert changed.json()["revision"] == 2


async def test_if_match_with_a_stale_etag_is_412_and_with_the_current_200(client):
    s = await shop()
    await stocked(s.ws)
    order = await new_order(client, s, items_body(s.customer.id, tee(M=2)))
    stale = (await get(client, s.auth, order["id"])).headers["etag"]
    assert (await patch(client, s.auth, order["id"], {"notes": "first"})).status_code == 200
    before = await state(order["id"])
    levels = await reserved(s.ws)
    refused = await patch(client, s.auth, order["id"], {"items": [tee(M=9)]}, **{"If-Match": stale})
    assert refused.status_code == 412, refused.text
    assert refused.json() == {
        "message": "The order changed since you read it (its ETag is no longer the one in "
        "If-Match); read it again and retry.",
        "code": "precondition_failed",
        "details": {},
    }
    assert await state(order["id"]) == before
    assert await reserved(s.ws) == levels
    current = (await get(client, s.auth, order["id"])).headers["etag"]
    accepted = await patch(
        client, s.auth, order["id"], {"items": [tee(M=9)]}, **{"If-Match": current}
    )
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["revision"] == 3
    assert (await reserved(s.ws))["G5000-BLACK-M"] == 9
    # The PATCH answers the new tag, good for the next If-Match; `*` matches any tag.
    etag = accepted.headers["etag"]
    assert etag == (await get(client, s.auth, order["id"])).headers["etag"]
    chained = await patch(client, s.auth, order["id"], {"notes": "next"}, **{"If-Match": etag})
    assert chained.status_code == 200, chained.text
    assert chained.json()["revision"] == 4
    anything = await patch(client, s.auth, order["id"], {"notes": "any"}, **{"If-Match": "*"})
    assert anything.status_code == 200, anything.text
    # A list naming the current tag among others matches too (RFC 9110 13.1.1).
    current = (await get(client, s.auth, order["id"])).headers["etag"]
    listed = await patch(
        client, s.auth, order["id"], {"notes": "listed"}, **{"If-Match": f"{stale}, {current}"}
    )
    assert listed.status_code == 200, listed.text
    assert listed.json()["revision"] == 6


async def test_of_two_simultaneous_edits_from_one_read_one_wins_and_one_is_412(client):
    s = await shop()
    await stocked(s.ws)
    order = await new_order(client, s, items_body(s.customer.id, tee(M=2)))
    etag = (await get(client, s.auth, order["id"])).headers["etag"]
    other = (await more_callers(s.ws, 1))[0]
    answers = await asyncio.gather(
        patch(client, s.auth, order["id"], {"items": [tee(M=5)]}, **{"If-Match": etag}),
        patch(client, other, order["id"], {"items": [tee(S=7)]}, **{"If-Match": etag}),
    )
    assert sorted(r.status_code for r in answers) == [200, 412], [r.text for r in answers]
    [won] = [r.json() for r in answers if r.status_code == 200]
    assert won["revision"] == 2
    held = {code: q for code, q in (await reserved(s.ws)).items() if q}
    assert held == await line_quantities(order["id"])
    assert held in ({"G5000-BLACK-M": 5}, {"G5000-BLACK-S": 7})


async def test_simultaneous_edits_of_orders_sharing_skus_keep_reserved_exact(client):
    s = await shop()
    await stocked(s.ws)
    callers = [s.auth, *await more_callers(s.ws, 3)]
    body = items_body(s.customer.id, tee(S=1, M=1))
    orders = [await new_order(client, s, body) for _ in range(4)]
    edits = [
        {"items": [tee(S=4, M=2, XL=1)]},
        {"items": [tee(M=6, L=2)]},
        {"items": [tee(S=1, L=1, XL=3)], "lines": [line()]},
        {"items": [], "lines": [line()]},
    ]
    answers = await asyncio.gather(
        *(
            patch(client, auth, order["id"], edit)
            for auth, order, edit in zip(callers, orders, edits, strict=True)
        )
    )
    assert [r.status_code for r in answers] == [200] * 4, [r.text for r in answers]
    held: dict[str, int] = {}
    for order in orders:
        for code, quantity in (await line_quantities(order["id"])).items():
            held[code] = held.get(code, 0) + quantity
    assert {code: q for code, q in (await reserved(s.ws)).items() if q} == held
    assert held == {"G5000-BLACK-S": 5, "G5000-BLACK-M": 8, "G5000-BLACK-L": 3,
                    "G5000-BLACK-XL": 4}  # fmt: skip


async def test_if_match_compares_strongly_so_a_weak_tag_never_matches(client):
    """RFC 9110 13.1.1: If-Match uses the strong comparison; W/"…" of the current tag is a
    different validator and must be refused."""
    s = await shop()
    order = await new_order(client, s)
    etag = (await get(client, s.auth, order["id"])).headers["etag"]
    weak = await patch(client, s.auth, order["id"], {"notes": "weak"}, **{"If-Match": f"W/{etag}"})
    assert weak.status_code == 412, weak.text
    assert (await state(order["id"]))["revision"] == 1
    # If-None-Match compares weakly: the weak form of the current tag is a 304.
    cached = await get(client, s.auth, order["id"], **{"If-None-Match": f"W/{etag}"})
    assert cached.status_code == 304


# --- Idempotency-Key -----------------------------------------------------------------------------


async def test_a_retried_patch_replays_the_first_answer_and_changes_nothing_twice(client):
    s = await shop()
    await stocked(s.ws)
    order = await new_order(client, s, items_body(s.customer.id, tee(M=2)))
    edit = {"items": [tee(M=4)], "notes": "more"}
    first = await patch(client, s.auth, order["id"], edit, **{KEY: "edit-1"})
    assert first.status_code == 200, first.text
    assert "idempotent-replayed" not in first.headers
    after_first = await state(order["id"])
    rows = await snapshot()
    retry = await patch(client, s.auth, order["id"], edit, **{KEY: "edit-1"})
    assert retry.status_code == 200
    assert retry.content == first.content
    assert retry.headers["idempotent-replayed"] == "true"
    assert await state(order["id"]) == after_first
    assert await snapshot() == rows
    assert after_first["revision"] == 2
    assert (await reserved(s.ws))["G5000-BLACK-M"] == 4
    # The same key with another body is refused; the key is per request, not per order.
    other = await patch(client, s.auth, order["id"], {"notes": "less"}, **{KEY: "edit-1"})
    assert other.status_code == 422
    assert KEY in other.json()["errors"]
    assert await state(order["id"]) == after_first
    assert await IdempotencyKey.count() == 1


# --- tenancy, limits, validation ---------------------------------------------------------------


async def test_another_workspaces_order_is_404_and_untouched(client):
    s = await shop()
    other = await shop()
    theirs = await new_order(client, other, items_body(other.customer.id, item()))
    before = await state(theirs["id"])
    for order_id in (theirs["id"], 999_999):
        for edit in ({"notes": "mine"}, {"items": [item(sizes={"M": 99})]}, {}):
            response = await patch(client, s.auth, order_id, edit)
            assert response.status_code == 404, response.text
            assert response.json() == {
                "message": "Order not found",
                "code": "not_found",
                "details": {},
            }
        looked = await get(client, s.auth, order_id)
        assert looked.status_code == 404
    assert await state(theirs["id"]) == before


async def test_patch_counts_against_the_write_limit(client):
    s = await shop()
    order = await new_order(client, s)
    caller = await factories.caller(s.ws)
    answers = [await patch(client, caller, order["id"], {"notes": f"n{n}"}) for n in range(21)]
    assert [r.status_code for r in answers] == [200] * 20 + [429]
    assert {r.headers["X-RateLimit-Limit"] for r in answers} == {"20"}
    assert [int(r.headers["X-RateLimit-Remaining"]) for r in answers[:20]] == list(
        range(19, -1, -1)
    )
    assert 1 <= int(answers[-1].headers["Retry-After"]) <= 60
    # Reads are counted apart.
    assert (await get(client, caller, order["id"])).status_code == 200


@pytest.mark.parametrize(
    ("edit", "errors"),
    [
        (
            {"items": [item(imprints=[imprint(), imprint(colours=None)])]},
            {"items.0.imprints.1.colours": [
                "The items.0.imprints.1.colours field is required for screen printing."]},
        ),
        (
            {"items": [item(), item(imprints=[imprint(method="embroidery", colours=None)])]},
            {"items.1.imprints.0.stitches": [
                "The items.1.imprints.0.stitches field is required for embroidery."]},
        ),
        (
            {"items": [item(sizes={"M": 10_001})], "lines": [line(quantity=0)]},
            {"lines.0.quantity": ["The lines.0.quantity field must be at least 1."],
             "items.0.sizes.M": ["The items.0.sizes.M field must not be greater than 10000."]},
        ),
        (
            {"due_by": "2026-02-30", "notes": 5, "external_ref": ""},
            {"due_by": ["The due_by field must be a valid date in the format YYYY-MM-DD."],
             "notes": ["The notes field must be a string."],
             "external_ref": ["The external_ref field must not be blank."]},
        ),
        ({"items": "tees"}, {"items": ["The items field must be an array."]}),
        ({"lines": None}, {"lines": ["The lines field must be an array."]}),
        ({"items": [item()] * 51},
         {"items": ["The items field must not have more than 50 items."]}),
    ],
)  # fmt: skip
async def test_patch_fields_are_validated_like_create(client, edit, errors):
    s = await shop()
    order = await new_order(client, s)
    before = await state(order["id"])
    response = await patch(client, s.auth, order["id"], edit)
    assert response.status_code == 422, response.text
    assert response.json()["errors"] == errors
    assert await state(order["id"]) == before


@pytest.mark.parametrize("raw", [b"{", b"[]", b'"notes"', b"\xff\xfe"])
async def test_a_malformed_patch_body_is_a_body_error(client, raw):
    s = await shop()
    order = await new_order(client, s)
    response = await client.patch(
        f"/api/v1/orders/{order['id']}",
        content=raw,
        headers={**s.auth, "Content-Type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert list(response.json()["errors"]) == ["body"]


async def test_a_refused_edit_writes_nothing(client):
    s = await shop()
    await stocked(s.ws)
    order = await new_order(client, s, items_body(s.customer.id, tee(M=2)))
    rows = await snapshot()
    count = await StockMovement.count()
    for edit in (
        {"items": [tee(M=1, XXL=1)]},
        {"items": [tee(M=3)], "lines": [line(sku="NOPE")]},
        {"items": [tee(M=3)], "external_ref": "x" * 101},
    ):
        response = await patch(client, s.auth, order["id"], edit)
        assert response.status_code == 422, response.text
    assert await snapshot() == rows
    assert await StockMovement.count() == count


async def test_another_orders_reservation_leaves_the_etag_and_if_match_good(client):
    """The tag is the order's: the live SKU levels beside its stocked sizes are shown, but a
    reservation by another order changes them without changing this order."""
    s = await shop()
    await stocked(s.ws)
    order = await new_order(client, s, items_body(s.customer.id, tee(M=2)))
    read = await get(client, s.auth, order["id"])
    tag = read.headers["etag"]
    assert read.json()["items"][0]["stock"]["M"]["reserved"] == 2

    await new_order(client, s, items_body(s.customer.id, tee(M=5)))

    again = await get(client, s.auth, order["id"])
    assert again.json()["items"][0]["stock"]["M"]["reserved"] == 7  # the levels moved
    assert again.headers["etag"] == tag
    assert (await get(client, s.auth, order["id"], **{"If-None-Match": tag})).status_code == 304
    kept = await patch(client, s.auth, order["id"], {"notes": "rush"}, **{"If-Match": tag})
    assert kept.status_code == 200, kept.text
    assert kept.headers["etag"] != tag
