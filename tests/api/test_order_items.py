"""POST /api/v1/orders with `items`: each garment expanded into ordinary lines
(size order, descriptions, prices with upcharges and imprints, setup lines), totals and tax,
`item_id` on lines, the detail's `items` and `revision`, stocked sizes resolved to SKUs and
reserved (or refused, naming the sizes the workspace has), and the validation of every field,
keyed by dot paths with the spec's 422 body."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from models.tables import Order, OrderLine, Sku, StockMovement
from tests import factories
from tests.api.item_helpers import (
    get,
    imprint,
    item,
    items_body,
    movements,
    reserved,
    stocked,
)
from tests.api.order_helpers import advance, create, line, order_body, shop, snapshot

# --- expansion, prices, totals, the detail ----------------------------------------------------


async def test_a_stocked_item_becomes_size_lines_in_sku_order_then_setup_lines(client):
    s = await shop()
    # Inserted out of size order: the lines follow XS S M L XL 2XL…, not the SKUs' ids.
    skus = await stocked(s.ws, sizes=("2XL", "S", "XL", "M", "L"))
    garment = item(
        style="G5000",
        colour="Black",
        # As sent: XL first, M at 0 (no line), 2XL with an upcharge.
        sizes={"XL": 2, "S": 3, "M": 0, "2XL": 1, "L": 4},
        unit_price_cents=500,
        size_upcharges_cents={"2XL": 200},
        imprints=[
            imprint(
                location="front",
                method="screen",
                colours=3,
                colour_names=["White", "PMS 186 C", "Black"],
                width_mm=280,
                height_mm=300,
                notes="Centre 8 cm below collar",
                unit_price_cents=150,
                setup_cents=2500,
            ),
            imprint(
                location="left_sleeve",
                method="embroidery",
                colours=None,
                stitches=5000,
                unit_price_cents=100,
            ),
            imprint(
                location="back", method="dtg", colours=None, unit_price_cents=50, setup_cents=1000
            ),
        ],
    )
    response = await create(client, s.auth, items_body(s.customer.id, garment))
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["revision"] == 1
    [shown] = response.json()["items"]
    item_id = shown["id"]
    assert isinstance(item_id, int)
    # Per garment: 500 + 150 + 100 + 50 = 800; the 2XL adds its 200.
    name = "Gildan G5000 Black"
    assert [
        (ln["description"], ln["quantity"], ln["unit_price_cents"], ln["line_total_cents"],
         ln["sku"], ln["item_id"])
        for ln in body["lines"]
    ] == [
        (f"{name} — S", 3, 800, 2400, "G5000-BLACK-S", item_id),
        (f"{name} — L", 4, 800, 3200, "G5000-BLACK-L", item_id),
        (f"{name} — XL", 2, 800, 1600, "G5000-BLACK-XL", item_id),
        (f"{name} — 2XL", 1, 1000, 1000, "G5000-BLACK-2XL", item_id),
        ("Setup: front, screen print, 3 colours", 1, 2500, 2500, None, item_id),
        ("Setup: back, DTG", 1, 1000, 1000, None, item_id),
    ]  # fmt: skip
    assert body["totals"] == {
        "subtotal_cents": 11700,
        "tax_cents": 2340,
        "total_cents": 14040,
        "currency": "GBP",
    }
    imprint_ids = [i.pop("id") for i in shown["imprints"]]
    assert all(isinstance(i, int) for i in imprint_ids)
    assert len(set(imprint_ids)) == 3
    stock = shown.pop("stock")
    assert shown == {
        "id": item_id,
        "style": "G5000",
        "colour": "Black",
        "description": name,
        "sizes": {"S": 3, "M": 0, "L": 4, "XL": 2, "2XL": 1},
        "unit_price_cents": 500,
        "size_upcharges_cents": {"2XL": 200},
        "imprints": [
            {
                "location": "front",
                "method": "screen",
                "colours": 3,
                "colour_names": ["White", "PMS 186 C", "Black"],
                "stitches": None,
                "width_mm": 280,
                "height_mm": 300,
                "notes": "Centre 8 cm below collar",
                "unit_price_cents": 150,
                "setup_cents": 2500,
                "design": None,
            },
            {
                "location": "left_sleeve",
                "method": "embroidery",
                "colours": None,
                "colour_names": [],
                "stitches": 5000,
                "width_mm": None,
                "height_mm": None,
                "notes": "",
                "unit_price_cents": 100,
                "setup_cents": 0,
                "design": None,
            },
            {
                "location": "back",
                "method": "dtg",
                "colours": None,
                "colour_names": [],
                "stitches": None,
                "width_mm": None,
                "height_mm": None,
                "notes": "",
                "unit_price_cents": 50,
                "setup_cents": 1000,
                "design": None,
            },
        ],
        "quantity": 10,
    }
    # Each ordered size: its SKU and levels after this order's reservation (100 on hand).
    ordered = {"S": 3, "L": 4, "XL": 2, "2XL": 1}
    assert {size: stock[size] for size in ordered} == {
        size: {
            "sku": skus[size].code,
            "on_hand": 100,
            "reserved": quantity,
            "available": 100 - quantity,
        }
        for size, quantity in ordered.items()
    }
    # The 201 is what GET answers.
    detail = await get(client, s.auth, body["id"])
    assert detail.status_code == 200
    assert detail.json() == body


async def test_each_ordered_size_reserves_its_sku_with_a_movement(client):
    s = await shop()
    skus = await stocked(s.ws, sizes=("S", "M", "L", "XL", "2XL"))
    await factories.sku(s.ws, "OTHER", style="Other", colour="Black", on_hand=5)
    sizes = {"S": 3, "M": 0, "L": 4, "XL": 2, "2XL": 1}
    response = await create(client, s.auth, items_body(s.customer.id, item(style="G5000",
                            colour="Black", sizes=sizes)))  # fmt: skip
    assert response.status_code == 201, response.text
    order_id = response.json()["id"]
    assert await reserved(s.ws) == {
        "G5000-BLACK-S": 3,
        "G5000-BLACK-M": 0,
        "G5000-BLACK-L": 4,
        "G5000-BLACK-XL": 2,
        "G5000-BLACK-2XL": 1,
        "OTHER": 0,
    }
    rows = await movements(order_id)
    assert sorted((r["kind"], r["sku"], r["reserved"], r["on_hand"]) for r in rows) == sorted(
        ("reservation", skus[size].code, quantity, 0)
        for size, quantity in sizes.items()
        if quantity
    )
    inventory = await client.get(
        "/api/v1/inventory", params={"search": "G5000-BLACK-L"}, headers=s.auth
    )
    assert inventory.json()["data"][0]["reserved"] == 4


async def test_an_unstocked_item_keeps_the_sizes_as_sent_and_carries_no_sku(client):
    s = await shop(tax_rate=Decimal("0.00"))
    # The workspace stocks the style in another colour and the colour in another style.
    await stocked(s.ws, style="3001", colour="White", sizes=("S", "M"))
    await stocked(s.ws, style="G5000", colour="Heather Navy", sizes=("M",))
    garment = item(
        style="3001",
        colour="Heather Navy",
        sizes={"YXL": 2, "XL": 1, "Kids 7": 0, "XS": 5, "one size": 1},
        unit_price_cents=700,
        size_upcharges_cents={"XL": 100},
        imprints=[imprint(location="neck", method="transfer", colours=None, setup_cents=0)],
    )
    response = await create(client, s.auth, items_body(s.customer.id, garment))
    assert response.status_code == 201, response.text
    body = response.json()
    [shown] = body["items"]
    assert [(ln["description"], ln["quantity"], ln["unit_price_cents"], ln["sku"])
            for ln in body["lines"]] == [
        ("3001 Heather Navy — YXL", 2, 700, None),
        ("3001 Heather Navy — XL", 1, 800, None),
        ("3001 Heather Navy — XS", 5, 700, None),
        ("3001 Heather Navy — one size", 1, 700, None),
    ]  # fmt: skip
    assert {ln["item_id"] for ln in body["lines"]} == {shown["id"]}
    assert shown["description"] == "3001 Heather Navy"
    assert shown["sizes"] == {"YXL": 2, "XL": 1, "Kids 7": 0, "XS": 5, "one size": 1}
    assert list(shown["sizes"]) == ["YXL", "XL", "Kids 7", "XS", "one size"]
    assert shown["quantity"] == 9
    assert shown["stock"] is None
    assert body["totals"]["subtotal_cents"] == 2 * 700 + 800 + 5 * 700 + 700
    assert set((await reserved(s.ws)).values()) == {0}
    assert await StockMovement.count() == 0


async def test_a_given_description_names_the_lines(client):
    s = await shop()
    await stocked(s.ws)
    garment = item(style="G5000", colour="Black", description="Staff tee", sizes={"M": 1})
    response = await create(client, s.auth, items_body(s.customer.id, garment))
    assert response.status_code == 201, response.text
    assert [ln["description"] for ln in response.json()["lines"]] == ["Staff tee — M"]
    assert response.json()["items"][0]["description"] == "Staff tee"


async def test_setup_lines_name_location_and_method_and_colours_only_for_screen(client):
    s = await shop()
    prints = [
        imprint(location="left_chest", method="embroidery", colours=None, stitches=8000,
                setup_cents=3000),
        imprint(location="back", method="screen", colours=1, setup_cents=1500),
        imprint(location="right_sleeve", method="vinyl", colours=None, setup_cents=1),
        imprint(location="front", method="screen", colours=12, setup_cents=0),
        imprint(location="pocket", method="screen", colours=4, setup_cents=2000),
    ]  # fmt: skip
    response = await create(
        client, s.auth, items_body(s.customer.id, item(sizes={"M": 1}, imprints=prints))
    )
    assert response.status_code == 201, response.text
    assert [
        (ln["description"], ln["quantity"], ln["unit_price_cents"])
        for ln in response.json()["lines"][1:]
    ] == [
        ("Setup: left chest, embroidery", 1, 3000),
        ("Setup: back, screen print, 1 colour", 1, 1500),
        ("Setup: right sleeve, vinyl", 1, 1),
        ("Setup: pocket, screen print, 4 colours", 1, 2000),
    ]


async def test_items_expand_in_order_before_the_plain_lines(client):
    s = await shop()
    await stocked(s.ws, style="18500", colour="Sport Grey", sizes=("M", "L"), brand="")
    body = order_body(
        s.customer.id,
        lines=[line(description="Rush fee", quantity=1, unit_price_cents=2000)],
        items=[
            item(style="Cap", colour="Red", sizes={"One": 50}, unit_price_cents=300,
                 imprints=[imprint(setup_cents=900)]),
            item(style="18500", colour="Sport Grey", sizes={"L": 1, "M": 2},
                 unit_price_cents=1800),
        ],
    )  # fmt: skip
    response = await create(client, s.auth, body)
    assert response.status_code == 201, response.text
    got = response.json()
    first, second = (i["id"] for i in got["items"])
    assert first != second
    # A stocked style without a brand: "{style} {colour}".
    assert [(ln["description"], ln.get("item_id")) for ln in got["lines"]] == [
        ("Cap Red — One", first),
        ("Setup: front, screen print, 1 colour", first),
        ("18500 Sport Grey — M", second),
        ("18500 Sport Grey — L", second),
        ("Rush fee", None),
    ]
    assert "item_id" not in got["lines"][-1]
    assert [i["style"] for i in got["items"]] == ["Cap", "18500"]
    assert got["totals"]["subtotal_cents"] == 50 * 300 + 900 + 3 * 1800 + 2000
    rows = await OrderLine.select(OrderLine.position, OrderLine.item).where(
        OrderLine.order == got["id"]
    ).order_by(OrderLine.position)  # fmt: skip
    assert [row["item"] for row in rows] == [first, first, second, second, None]


async def test_items_without_lines_and_with_an_empty_lines_list_are_accepted(client):
    s = await shop()
    for body in (
        items_body(s.customer.id, item()),
        items_body(s.customer.id, item(), lines=[]),
        items_body(s.customer.id, item(), lines=None),
    ):
        response = await create(client, s.auth, body)
        assert response.status_code == 201, response.text
        assert len(response.json()["lines"]) == 2


async def test_an_order_of_plain_lines_has_no_items_and_revision_1(client):
    s = await shop()
    response = await create(client, s.auth, order_body(s.customer.id))
    assert response.status_code == 201, response.text
    assert response.json()["items"] == []
    assert response.json()["revision"] == 1
    # Only lines made from an item carry `item_id`.
    assert ["item_id" in ln for ln in response.json()["lines"]] == [False]


async def test_list_rows_keep_their_shape_and_show_the_expanded_lines(client):
    s = await shop()
    created = await create(client, s.auth, items_body(s.customer.id, item(), lines=[line()]))
    assert created.status_code == 201, created.text
    listed = await client.get("/api/v1/orders", headers=s.auth)
    [row] = listed.json()["data"]
    assert "items" not in row
    assert "revision" not in row
    assert row["lines"] == created.json()["lines"]
    assert row["totals"] == created.json()["totals"]


async def test_the_largest_item_order_is_stored_and_summed_exactly(client):
    """50 garments of 30 sizes of 10,000 at the top prices with 10 imprints each: 2,000 lines,
    every amount exact, no 500 (any total that fits is kept)."""
    s = await shop(tax_rate=Decimal("999.99"))
    top = 100_000_000
    garment = item(
        style="Big",
        colour="Order",
        description="d" * 200,
        sizes={f"S{n:02d}" + "x" * 17: 10_000 for n in range(30)},
        unit_price_cents=top,
        size_upcharges_cents={f"S{n:02d}" + "x" * 17: top for n in range(30)},
        imprints=[
            imprint(location="other", method="screen", colours=12, colour_names=["c" * 50] * 12,
                    width_mm=2000, height_mm=2000, notes="n" * 500, unit_price_cents=top,
                    setup_cents=top)
            for _ in range(10)
        ],
    )  # fmt: skip
    response = await create(client, s.auth, items_body(s.customer.id, *[garment] * 50))
    assert response.status_code == 201, response.text
    per_garment = top + top + 10 * top
    subtotal = 50 * (30 * 10_000 * per_garment + 10 * top)
    tax = subtotal * 99999 // 10000  # exact: subtotal is a multiple of 10000
    assert response.json()["totals"]["subtotal_cents"] == subtotal
    assert response.json()["totals"]["tax_cents"] == tax
    assert response.json()["totals"]["total_cents"] == subtotal + tax
    assert len(response.json()["lines"]) == 50 * 40
    assert await OrderLine.count() == 2000


async def test_a_retried_item_create_reserves_once_and_replays_the_first_body(client):
    s = await shop()
    await stocked(s.ws)
    body = items_body(s.customer.id, item(style="G5000", colour="Black", sizes={"M": 3}))
    first = await create(client, s.auth, body, **{"Idempotency-Key": "items-1"})
    assert first.status_code == 201, first.text
    retry = await create(client, s.auth, body, **{"Idempotency-Key": "items-1"})
    assert retry.status_code == 201
    assert retry.content == first.content
    assert retry.headers["idempotent-replayed"] == "true"
    assert await Order.count() == 1
    assert (await reserved(s.ws))["G5000-BLACK-M"] == 3
    assert len(await movements(first.json()["id"])) == 1


async def test_an_item_order_dispatches_with_its_stock_consumed_and_invoiced_at_its_total(client):
    s = await shop()
    await stocked(s.ws, on_hand=10)
    garment = item(style="G5000", colour="Black", sizes={"M": 3, "L": 2},
                   imprints=[imprint(unit_price_cents=100, setup_cents=1500)])  # fmt: skip
    created = await create(client, s.auth, items_body(s.customer.id, garment))
    assert created.status_code == 201, created.text
    order_id = created.json()["id"]
    for stage in ("print_queue", "in_production", "qc_pack", "dispatched"):
        moved = await advance(client, s.auth, order_id, stage)
        assert moved.status_code == 200, moved.text
    [invoice] = moved.json()["invoices"]
    assert invoice["total"] == created.json()["totals"]["total_cents"]
    levels = await Sku.select(Sku.code, Sku.on_hand, Sku.reserved).where(
        Sku.code.is_in(["G5000-BLACK-M", "G5000-BLACK-L"])
    )
    assert sorted((r["code"], r["on_hand"], r["reserved"]) for r in levels) == [
        ("G5000-BLACK-L", 8, 0),
        ("G5000-BLACK-M", 7, 0),
    ]
    assert moved.json()["items"][0]["stock"]["M"] == {
        "sku": "G5000-BLACK-M", "on_hand": 7, "reserved": 0, "available": 7,
    }  # fmt: skip


# --- stocked sizes -----------------------------------------------------------------------------


async def test_a_size_the_workspace_does_not_stock_is_refused_naming_the_sizes_it_has(client):
    s = await shop()
    await stocked(s.ws, sizes=("2XL", "M", "S", "XL", "L"))
    before = await snapshot()
    garment = item(style="G5000", colour="Black", sizes={"M": 2, "XXL": 1, "3XL": 0})
    response = await create(client, s.auth, items_body(s.customer.id, item(), garment))
    assert response.status_code == 422, response.text
    message = "The workspace has no G5000 Black in size XXL; it has S, M, L, XL, 2XL."
    assert response.json() == {
        "message": message,
        "code": "validation_failed",
        "errors": {"items.1.sizes.XXL": [message]},
        "details": {},
    }
    assert await snapshot() == before
    assert await StockMovement.count() == 0


async def test_every_unstocked_size_of_every_item_is_reported_at_once(client):
    s = await shop()
    await stocked(s.ws)
    await stocked(s.ws, style="18500", colour="Navy", sizes=("M", "L"), brand="Gildan")
    response = await create(
        client,
        s.auth,
        items_body(
            s.customer.id,
            item(style="G5000", colour="Black", sizes={"XS": 1, "M": 1, "5XL": 2}),
            item(style="18500", colour="Navy", sizes={"S": 1}),
        ),
    )
    assert response.status_code == 422
    assert response.json()["errors"] == {
        "items.0.sizes.XS": [
            "The workspace has no G5000 Black in size XS; it has S, M, L, XL, 2XL."
        ],
        "items.0.sizes.5XL": [
            "The workspace has no G5000 Black in size 5XL; it has S, M, L, XL, 2XL."
        ],
        "items.1.sizes.S": ["The workspace has no 18500 Navy in size S; it has M, L."],
    }
    assert response.json()["message"].endswith("(and 2 more errors)")
    assert await Order.count() == 0


async def test_style_and_colour_match_the_skus_case_insensitively(client):
    s = await shop()
    skus = await stocked(s.ws, style="G5000", colour="Black", sizes=("S", "M", "L"))
    garment = item(style="g5000", colour="BLACK", sizes={"L": 2, "S": 1})
    response = await create(client, s.auth, items_body(s.customer.id, garment))
    assert response.status_code == 201, response.text
    body = response.json()
    assert [(ln["sku"], ln["quantity"]) for ln in body["lines"]] == [
        (skus["S"].code, 1),
        (skus["L"].code, 2),
    ]
    assert body["items"][0]["stock"] is not None
    assert (await reserved(s.ws))[skus["L"].code] == 2
    # And a size the SKUs lack is still refused under another spelling of the style.
    refused = await create(
        client, s.auth, items_body(s.customer.id, item(style="G5000", colour="black",
                                                        sizes={"XL": 1}))
    )  # fmt: skip
    assert refused.status_code == 422
    assert list(refused.json()["errors"]) == ["items.0.sizes.XL"]
    assert refused.json()["errors"]["items.0.sizes.XL"][0].endswith("; it has S, M, L.")


async def test_another_workspaces_skus_do_not_make_an_item_stocked(client):
    s = await shop()
    other = await shop()
    await stocked(other.ws, sizes=("M",))
    garment = item(style="G5000", colour="Black", sizes={"XXL": 3})
    response = await create(client, s.auth, items_body(s.customer.id, garment))
    assert response.status_code == 201, response.text
    assert response.json()["lines"][0]["sku"] is None
    assert response.json()["items"][0]["stock"] is None
    assert (await reserved(other.ws)) == {"G5000-BLACK-M": 0}


async def test_stocked_sizes_may_go_short(client):
    s = await shop()
    skus = await stocked(s.ws, sizes=("M",), on_hand=2)
    response = await create(
        client, s.auth, items_body(s.customer.id, item(style="G5000", colour="Black",
                                                       sizes={"M": 5}))
    )  # fmt: skip
    assert response.status_code == 201, response.text
    assert response.json()["items"][0]["stock"]["M"] == {
        "sku": skus["M"].code,
        "on_hand": 2,
        "reserved": 5,
        "available": -3,
    }


# --- validation --------------------------------------------------------------------------------

REQUIRED = "The {} field is required."
INTEGER = "The {} field must be an integer."
STRING = "The {} field must be a string."
LOCATIONS = "front, back, left_chest, right_chest, left_sleeve, right_sleeve, neck, pocket, other"
METHODS = "screen, embroidery, dtg, transfer, vinyl"
_REMOVE = object()


def _with(path: str, value: Any) -> dict[str, Any]:
    """A valid items body (customer filled in later; two imprints on the first item) with one
    field set or removed."""
    body: dict[str, Any] = {
        "customer_id": "CUSTOMER",
        "items": [
            item(
                size_upcharges_cents={},
                imprints=[imprint(), imprint(location="back", colours=2, colour_names=["White"])],
            )
        ],
    }
    target: Any = body
    *parents, last = path.split(".")
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    key: Any = int(last) if isinstance(target, list) else last
    if value is _REMOVE:
        del target[key]
    else:
        target[key] = value
    return body


CASES: list[tuple[str, Any, str, list[str]]] = [
    # items
    ("items", "tees", "items", ["The items field must be an array."]),
    ("items", {"0": item()}, "items", ["The items field must be an array."]),
    ("items", [item()] * 51, "items", ["The items field must not have more than 50 items."]),
    ("items.0", "tee", "items.0", ["The items.0 field must be an object."]),
    ("items.0", None, "items.0", ["The items.0 field must be an object."]),
    # style, colour, description
    ("items.0.style", _REMOVE, "items.0.style", [REQUIRED.format("items.0.style")]),
    ("items.0.style", None, "items.0.style", [REQUIRED.format("items.0.style")]),
    ("items.0.style", 5000, "items.0.style", [STRING.format("items.0.style")]),
    ("items.0.style", " ", "items.0.style", ["The items.0.style field must not be blank."]),
    ("items.0.style", "s" * 101, "items.0.style",
     ["The items.0.style field must not be greater than 100 characters."]),
    ("items.0.style", "G\x005000", "items.0.style",
     ["The items.0.style field must be one line of text, without control characters."]),
    ("items.0.colour", _REMOVE, "items.0.colour", [REQUIRED.format("items.0.colour")]),
    ("items.0.colour", "c" * 51, "items.0.colour",
     ["The items.0.colour field must not be greater than 50 characters."]),
    ("items.0.description", "d" * 201, "items.0.description",
     ["The items.0.description field must not be greater than 200 characters."]),
    ("items.0.description", ["Tee"], "items.0.description",
     [STRING.format("items.0.description")]),
    # unit price and upcharges
    ("items.0.unit_price_cents", _REMOVE, "items.0.unit_price_cents",
     ["The items.0.unit_price_cents field is required: the workspace has no price list yet."]),
    ("items.0.unit_price_cents", "500", "items.0.unit_price_cents",
     [INTEGER.format("items.0.unit_price_cents")]),
    ("items.0.unit_price_cents", 5.5, "items.0.unit_price_cents",
     [INTEGER.format("items.0.unit_price_cents")]),
    ("items.0.unit_price_cents", -1, "items.0.unit_price_cents",
     ["The items.0.unit_price_cents field must be at least 0."]),
    ("items.0.unit_price_cents", 100_000_001, "items.0.unit_price_cents",
     ["The items.0.unit_price_cents field must not be greater than 100000000."]),
    ("items.0.unit_price_cents", 2**70, "items.0.unit_price_cents",
     ["The items.0.unit_price_cents field must not be greater than 100000000."]),
    ("items.0.size_upcharges_cents.L", 100_000_001, "items.0.size_upcharges_cents.L",
     ["The items.0.size_upcharges_cents.L field must not be greater than 100000000."]),
    ("items.0.size_upcharges_cents.L", -200, "items.0.size_upcharges_cents.L",
     ["The items.0.size_upcharges_cents.L field must be at least 0."]),
    ("items.0.size_upcharges_cents.L", "2.00", "items.0.size_upcharges_cents.L",
     [INTEGER.format("items.0.size_upcharges_cents.L")]),
    ("items.0.size_upcharges_cents", [200], "items.0.size_upcharges_cents",
     ["The items.0.size_upcharges_cents field must be an object."]),
    # sizes
    ("items.0.sizes", _REMOVE, "items.0.sizes", [REQUIRED.format("items.0.sizes")]),
    ("items.0.sizes", ["M", "L"], "items.0.sizes", ["The items.0.sizes field must be an object."]),
    ("items.0.sizes", {}, "items.0.sizes", ["The items.0.sizes field must have at least 1 size."]),
    ("items.0.size_upcharges_cents", {f"S{n}": 1 for n in range(31)},
     "items.0.size_upcharges_cents",
     ["The items.0.size_upcharges_cents field must not have more than 30 upcharges."]),
    ("items.0.sizes", {f"S{n}": 1 for n in range(31)}, "items.0.sizes",
     ["The items.0.sizes field must not have more than 30 sizes."]),
    ("items.0.sizes", {"M": 0, "L": 0}, "items.0.sizes",
     ["The items.0.sizes field needs at least one size above 0."]),
    ("items.0.sizes.M", 10_001, "items.0.sizes.M",
     ["The items.0.sizes.M field must not be greater than 10000."]),
    ("items.0.sizes.M", 2**70, "items.0.sizes.M",
     ["The items.0.sizes.M field must not be greater than 10000."]),
    ("items.0.sizes.M", -1, "items.0.sizes.M", ["The items.0.sizes.M field must be at least 0."]),
    ("items.0.sizes.M", "2", "items.0.sizes.M", [INTEGER.format("items.0.sizes.M")]),
    ("items.0.sizes.M", 2.0, "items.0.sizes.M", [INTEGER.format("items.0.sizes.M")]),
    ("items.0.sizes.M", None, "items.0.sizes.M", [INTEGER.format("items.0.sizes.M")]),
    # imprints
    ("items.0.imprints", {"front": 1}, "items.0.imprints",
     ["The items.0.imprints field must be an array."]),
    ("items.0.imprints", [imprint()] * 11, "items.0.imprints",
     ["The items.0.imprints field must not have more than 10 imprints."]),
    ("items.0.imprints.1", "front", "items.0.imprints.1",
     ["The items.0.imprints.1 field must be an object."]),
    ("items.0.imprints.1.location", _REMOVE, "items.0.imprints.1.location",
     [REQUIRED.format("items.0.imprints.1.location")]),
    ("items.0.imprints.1.location", "chest", "items.0.imprints.1.location",
     [f"The selected items.0.imprints.1.location is invalid; use one of: {LOCATIONS}."]),
    ("items.0.imprints.1.location", "FRONT", "items.0.imprints.1.location",
     [f"The selected items.0.imprints.1.location is invalid; use one of: {LOCATIONS}."]),
    ("items.0.imprints.1.location", 1, "items.0.imprints.1.location",
     [f"The selected items.0.imprints.1.location is invalid; use one of: {LOCATIONS}."]),
    ("items.0.imprints.1.method", "screenprint", "items.0.imprints.1.method",
     [f"The selected items.0.imprints.1.method is invalid; use one of: {METHODS}."]),
    ("items.0.imprints.1.method", _REMOVE, "items.0.imprints.1.method",
     [REQUIRED.format("items.0.imprints.1.method")]),
    ("items.0.imprints.1.colours", _REMOVE, "items.0.imprints.1.colours",
     ["The items.0.imprints.1.colours field is required for screen printing."]),
    ("items.0.imprints.1.colours", None, "items.0.imprints.1.colours",
     ["The items.0.imprints.1.colours field is required for screen printing."]),
    ("items.0.imprints.1.colours", 0, "items.0.imprints.1.colours",
     ["The items.0.imprints.1.colours field must be at least 1."]),
    ("items.0.imprints.1.colours", 13, "items.0.imprints.1.colours",
     ["The items.0.imprints.1.colours field must not be greater than 12."]),
    ("items.0.imprints.1.colours", "2", "items.0.imprints.1.colours",
     [INTEGER.format("items.0.imprints.1.colours")]),
    ("items.0.imprints.1.colour_names", ["c"] * 13, "items.0.imprints.1.colour_names",
     ["The items.0.imprints.1.colour_names field must not have more than 12 colour_names."]),
    ("items.0.imprints.1.colour_names", "White", "items.0.imprints.1.colour_names",
     ["The items.0.imprints.1.colour_names field must be an array."]),
    ("items.0.imprints.1.colour_names.0", "c" * 51, "items.0.imprints.1.colour_names.0",
     ["The items.0.imprints.1.colour_names.0 field must not be greater than 50 characters."]),
    ("items.0.imprints.1.stitches", 0, "items.0.imprints.1.stitches",
     ["The items.0.imprints.1.stitches field must be at least 1."]),
    ("items.0.imprints.1.stitches", 200_001, "items.0.imprints.1.stitches",
     ["The items.0.imprints.1.stitches field must not be greater than 200000."]),
    ("items.0.imprints.1.width_mm", 0, "items.0.imprints.1.width_mm",
     ["The items.0.imprints.1.width_mm field must be at least 1."]),
    ("items.0.imprints.1.height_mm", 2001, "items.0.imprints.1.height_mm",
     ["The items.0.imprints.1.height_mm field must not be greater than 2000."]),
    ("items.0.imprints.1.notes", "n" * 501, "items.0.imprints.1.notes",
     ["The items.0.imprints.1.notes field must not be greater than 500 characters."]),
    ("items.0.imprints.1.unit_price_cents", -1, "items.0.imprints.1.unit_price_cents",
     ["The items.0.imprints.1.unit_price_cents field must be at least 0."]),
    ("items.0.imprints.1.setup_cents", 100_000_001, "items.0.imprints.1.setup_cents",
     ["The items.0.imprints.1.setup_cents field must not be greater than 100000000."]),
]  # fmt: skip


@pytest.mark.parametrize(("path", "value", "key", "messages"), CASES)
async def test_each_item_rule(client, path, value, key, messages):
    s = await shop()
    body = _with(path, value)
    body["customer_id"] = s.customer.id
    response = await create(client, s.auth, body)
    assert response.status_code == 422, response.text
    assert response.json() == {
        "message": messages[0],
        "code": "validation_failed",
        "errors": {key: messages},
        "details": {},
    }
    assert await Order.count() == 0


# A size's label is checked under the size's own key; its message speaks of "the name".
LABEL_CASES: list[tuple[dict[str, Any], dict[str, list[str]]]] = [
    ({"": 1}, {"items.0.sizes.": ["The name must be at least 1 character.",
                                  "The name must not be blank."]}),
    ({" ": 1}, {"items.0.sizes. ": ["The name must not be blank."]}),
    ({"x" * 21: 1}, {f"items.0.sizes.{'x' * 21}": [
        "The name must not be greater than 20 characters."]}),
    ({"M\x00": 1}, {"items.0.sizes.M\x00": [
        "The name must be one line of text, without control characters."]}),
    ({"M": 1, "x" * 21: "2"}, {f"items.0.sizes.{'x' * 21}": [
        "The name must not be greater than 20 characters.",
        "The items.0.sizes.xxxxxxxxxxxxxxxxxxxxx field must be an integer."]}),
]  # fmt: skip


@pytest.mark.parametrize(("sizes", "errors"), LABEL_CASES)
async def test_size_labels_are_1_to_20_characters_of_one_line(client, sizes, errors):
    s = await shop()
    response = await create(client, s.auth, items_body(s.customer.id, item(sizes=sizes)))
    assert response.status_code == 422, response.text
    assert response.json()["errors"] == errors
    assert await Order.count() == 0


async def test_size_bounds_are_inclusive(client):
    s = await shop()
    run = {f"S{n:02d}" + "x" * 17: 0 for n in range(29)} | {"A": 10_000}
    assert len(run) == 30
    garment = item(
        sizes=run,
        imprints=[
            imprint(
                colours=12,
                stitches=200_000,
                width_mm=1,
                height_mm=2000,
                colour_names=["c" * 50] * 12,
            )
        ],
    )
    response = await create(client, s.auth, items_body(s.customer.id, garment))
    assert response.status_code == 201, response.text
    assert len(response.json()["items"][0]["sizes"]) == 30
    assert [ln["quantity"] for ln in response.json()["lines"]] == [10_000]
    fifty = await create(client, s.auth, items_body(s.customer.id, *[item()] * 50))
    assert fifty.status_code == 201, fifty.text
    assert len(fifty.json()["items"]) == 50
    ten = await create(client, s.auth, items_body(s.customer.id, item(imprints=[imprint()] * 10)))
    assert ten.status_code == 201, ten.text
    assert len(ten.json()["items"][0]["imprints"]) == 10


async def test_embroidery_needs_stitches_and_every_imprint_rule_is_reported_at_once(client):
    s = await shop()
    garment = item(
        sizes={"M": 0},
        imprints=[
            imprint(),
            imprint(colours=None),
            imprint(method="embroidery", colours=None),
            imprint(method="dtg", colours=None),
        ],
    )
    response = await create(client, s.auth, items_body(s.customer.id, item(), garment))
    assert response.status_code == 422
    assert response.json()["errors"] == {
        "items.1.sizes": ["The items.1.sizes field needs at least one size above 0."],
        "items.1.imprints.1.colours": [
            "The items.1.imprints.1.colours field is required for screen printing."
        ],
        "items.1.imprints.2.stitches": [
            "The items.1.imprints.2.stitches field is required for embroidery."
        ],
    }
    assert response.json()["message"] == (
        "The items.1.sizes field needs at least one size above 0. (and 2 more errors)"
    )


async def test_field_errors_of_items_and_lines_come_together(client):
    s = await shop()
    body = {
        "customer_id": s.customer.id,
        "lines": [line(quantity=0)],
        "items": [item(unit_price_cents="5"), item(style=None, sizes={"M": -1})],
    }
    response = await create(client, s.auth, body)
    assert response.status_code == 422
    assert set(response.json()["errors"]) == {
        "lines.0.quantity",
        "items.0.unit_price_cents",
        "items.1.style",
        "items.1.sizes.M",
    }


@pytest.mark.parametrize(
    "extra",
    [{}, {"items": []}, {"items": None}, {"lines": []}, {"items": [], "lines": []}],
    ids=["neither", "no items", "null items", "no lines", "both empty"],
)
async def test_an_order_needs_lines_or_items(client, extra):
    s = await shop()
    response = await create(client, s.auth, {"customer_id": s.customer.id, **extra})
    assert response.status_code == 422, response.text
    errors = response.json()["errors"]
    assert list(errors) == ["lines"]
    assert errors["lines"][0] in (
        "The lines field is required.",
        "The lines field must have at least 1 line.",
    )
    assert await Order.count() == 0


async def test_huge_and_malformed_numbers_in_items_are_field_errors(client):
    s = await shop()
    raw = json.dumps({"customer_id": s.customer.id, "items": ["ITEM"]}).replace(
        '"ITEM"',
        '{"style": "Tee", "colour": "Red", "unit_price_cents": 1e400,'
        ' "sizes": {"M": -1e400, "L": 99999999999999999999999999},'
        ' "imprints": [{"location": "front", "method": "screen", "colours": 1.5}]}',
    )
    response = await client.post(
        "/api/v1/orders",
        content=raw.encode(),
        headers={**s.auth, "Content-Type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert response.json()["errors"] == {
        "items.0.unit_price_cents": [INTEGER.format("items.0.unit_price_cents")],
        "items.0.sizes.M": [INTEGER.format("items.0.sizes.M")],
        "items.0.sizes.L": ["The items.0.sizes.L field must not be greater than 10000."],
        "items.0.imprints.0.colours": [INTEGER.format("items.0.imprints.0.colours")],
    }


async def test_a_refused_item_create_writes_nothing(client):
    s = await shop()
    await stocked(s.ws)
    before = await snapshot()
    stock_before = await Sku.select(Sku.code, Sku.reserved).order_by(Sku.id)
    for body in (
        items_body(s.customer.id, item(style="G5000", colour="Black", sizes={"M": 1, "3XL": 1})),
        items_body(s.customer.id, item(style="G5000", colour="Black", sizes={"M": 1}),
                   item(imprints=[imprint(colours=None)])),
        items_body(999_999, item(style="G5000", colour="Black", sizes={"M": 1})),
    ):  # fmt: skip
        response = await create(client, s.auth, body)
        assert response.status_code == 422, response.text
    assert await snapshot() == before
    assert await Sku.select(Sku.code, Sku.reserved).order_by(Sku.id) == stock_before
    assert await StockMovement.count() == 0
