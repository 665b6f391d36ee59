"""Inventory through HTTP: SKU fields (the cost included), stock status rules, `low`, search,
order."""

from __future__ import annotations

import datetime as dt

from models.tables import Sku
from tests import factories

T0 = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.UTC)


async def _list(client, auth, **params):
    response = await client.get("/api/v1/inventory", params=params, headers=auth)
    assert response.status_code == 200, response.text
    return response.json()


async def test_row_has_every_field_with_exact_values(client):
    ws, _, auth = await factories.account()
    await factories.sku(
        ws,
        "GIL-5000-NAVY-XL",
        style="Heavy Cotton Tee",
        brand="Gildan",
        colour="Navy",
        colour_hex="#1F2A44",
        size="XL",
        on_hand=120,
        reserved=30,
        reorder_point=25,
        cost_cents=251,
        updated_at=T0,
    )

    body = await _list(client, auth)

    assert body["data"] == [
        {
            "code": "GIL-5000-NAVY-XL",
            "style": "Heavy Cotton Tee",
            "brand": "Gildan",
            "colour": "Navy",
            "colour_hex": "#1F2A44",
            "size": "XL",
            "on_hand": 120,
            "reserved": 30,
            "available": 90,
            "reorder_point": 25,
            "cost_cents": 251,
            "status": "in_stock",
            "updated_at": "2026-03-01T09:30:00+00:00",
        }
    ]


async def test_cost_is_null_while_unknown(client):
    ws, _, auth = await factories.account()
    await factories.sku(ws, "A-UNKNOWN")
    await factories.sku(ws, "B-FREE", cost_cents=0)
    await factories.sku(ws, "C-DEAR", cost_cents=100_000_000)

    costs = {row["code"]: row["cost_cents"] for row in (await _list(client, auth))["data"]}

    assert costs == {"A-UNKNOWN": None, "B-FREE": 0, "C-DEAR": 100_000_000}


async def test_the_cost_is_documented_as_a_nullable_integer(client):
    response = await client.get("/schema/openapi.json")
    schema = response.json()["components"]["schemas"]["Sku"]
    cost = schema["properties"]["cost_cents"]
    assert cost["description"] == (
        "What the shop pays for one; null when unknown. Price lists mark garments up from it"
    )
    assert {kind.get("type") for kind in cost.get("oneOf", [cost])} == {"integer", "null"}
    assert "cost_cents" in schema["required"]


STATUS_CASES = [
    # on_hand, reserved, reorder_point, discontinued → available, status
    (11, 0, 10, False, 11, "in_stock"),
    (10, 0, 10, False, 10, "low_stock"),
    (15, 14, 10, False, 1, "low_stock"),
    (1, 0, 0, False, 1, "in_stock"),
    (0, 0, 0, False, 0, "out_of_stock"),
    (5, 5, 10, False, 0, "out_of_stock"),
    (3, 8, 10, False, -5, "out_of_stock"),
    (500, 0, 10, True, 500, "discontinued"),
    (0, 0, 10, True, 0, "discontinued"),
    (5, 0, 10, True, 5, "discontinued"),
]


async def test_available_and_status_rules(client):
    ws, _, auth = await factories.account()
    for n, (on_hand, reserved, reorder_point, discontinued, _, _) in enumerate(STATUS_CASES):
        await factories.sku(
            ws,
            f"CASE-{n:02d}",
            on_hand=on_hand,
            reserved=reserved,
            reorder_point=reorder_point,
            discontinued=discontinued,
        )

    rows = (await _list(client, auth))["data"]

    assert [(row["available"], row["status"]) for row in rows] == [
        (available, status) for *_, available, status in STATUS_CASES
    ]


async def _stock_mix(ws):
    """SKU code → (on_hand, reserved, reorder_point, discontinued)."""
    mix = {
        "A-IN": (50, 0, 10, False),
        "B-EDGE": (10, 0, 10, False),
        "C-LOW": (12, 5, 10, False),
        "D-OUT": (0, 0, 10, False),
        "E-NEG": (2, 4, 0, False),
        "F-DISC-LOW": (1, 0, 10, True),
        "G-DISC-IN": (90, 0, 10, True),
    }
    for code, (on_hand, reserved, reorder_point, discontinued) in mix.items():
        await factories.sku(
            ws,
            code,
            on_hand=on_hand,
            reserved=reserved,
            reorder_point=reorder_point,
            discontinued=discontinued,
        )


async def test_low_lists_available_at_or_under_reorder_point_without_discontinued(client):
    ws, _, auth = await factories.account()
    await _stock_mix(ws)

    for value in ("true", "1"):
        body = await _list(client, auth, low=value)
        assert [row["code"] for row in body["data"]] == ["B-EDGE", "C-LOW", "D-OUT", "E-NEG"]
        assert body["total"] == 4
    for value in ("false", "0"):  # false means "no filter", not "not low"
        assert (await _list(client, auth, low=value))["total"] == 7


async def test_other_low_values_are_422(client):
    _, _, auth = await factories.account()

    for value in ("yes", "no", "", "2", "-1", "truthy", "on", " true", "TRUE", "False"):
        response = await client.get("/api/v1/inventory", params={"low": value}, headers=auth)
        assert response.status_code == 422, value
        message = "The selected low is invalid; use one of: true, false, 1, 0."
        assert response.json() == {
            "message": message,
            "code": "validation_failed",
            "errors": {"low": [message]},
            "details": {},
        }


async def test_ordered_by_code(client):
    ws, _, auth = await factories.account()
    for code in ["TEE-M", "HOOD-L", "CAP-1", "TEE-L", "HOOD-S"]:
        await factories.sku(ws, code)

    codes = [row["code"] for row in (await _list(client, auth))["data"]]

    assert codes == ["CAP-1", "HOOD-L", "HOOD-S", "TEE-L", "TEE-M"]


SEARCHES = [
    ("tee", ["TEE-BLK-M", "TEE_BLK_L"]),
    ("BLK", ["HOOD-BLK-S", "TEE-BLK-M", "TEE_BLK_L"]),
    ("tee_", ["TEE_BLK_L"]),
    ("_", ["TEE_BLK_L"]),
    ("%", ["PCT%100"]),
    ("'", []),
    ("navy", []),  # search matches the code only, not the colour
    ("x" * 500, []),
    ("\x00", []),
]


async def test_search_matches_the_code_case_insensitively_and_literally(client):
    ws, _, auth = await factories.account()
    await factories.sku(ws, "TEE-BLK-M", colour="Navy")
    await factories.sku(ws, "TEE_BLK_L")
    await factories.sku(ws, "HOOD-BLK-S")
    await factories.sku(ws, "PCT%100")

    for search, expected in SEARCHES:
        body = await _list(client, auth, search=search)
        assert [row["code"] for row in body["data"]] == expected, search


async def test_filters_combine(client):
    ws, _, auth = await factories.account()
    await factories.sku(ws, "TEE-LOW", on_hand=1, updated_at=T0)
    await factories.sku(ws, "TEE-LOW-NEW", on_hand=1, updated_at=T0 + dt.timedelta(hours=1))
    await factories.sku(ws, "TEE-IN-NEW", on_hand=99, updated_at=T0 + dt.timedelta(hours=1))
    await factories.sku(ws, "CAP-LOW-NEW", on_hand=1, updated_at=T0 + dt.timedelta(hours=1))

    body = await _list(client, auth, search="tee", low="1", updated_since="2026-03-01T10:30:00Z")

    assert [row["code"] for row in body["data"]] == ["TEE-LOW-NEW"]


async def test_updated_since_follows_stock_changes(client):
    ws, _, auth = await factories.account()
    still = await factories.sku(ws, "STILL", updated_at=T0)
    moved = await factories.sku(ws, "MOVED", updated_at=T0)
    await Sku.update({Sku.reserved: 5, Sku.updated_at: T0 + dt.timedelta(minutes=5)}).where(
        Sku.id == moved.id
    )

    body = await _list(client, auth, updated_since="2026-03-01T09:35:00")

    assert [(row["code"], row["reserved"]) for row in body["data"]] == [("MOVED", 5)]
    assert still.id != moved.id


async def test_codes_with_slashes_and_dots_are_listed_found_and_ordered(client):
    """The API has no path holding a code (spec 4.8: the list only; an order line names its
    SKU in the body): a code with `/` or `..` is listed, found by `search` and reserved by an
    order line like any other."""
    ws, _, auth = await factories.account()
    for code in ("TEE/BLK/M", "../up", "A%2FB"):
        await factories.sku(ws, code, on_hand=5)
    for search, found in (("/", ["../up", "TEE/BLK/M"]), ("..", ["../up"]), ("%2F", ["A%2FB"])):
        answer = await client.get("/api/v1/inventory", params={"search": search}, headers=auth)
        assert answer.status_code == 200
        assert sorted(row["code"] for row in answer.json()["data"]) == found, search
    customer = await factories.customer(ws)
    line = {"description": "Tee", "quantity": 2, "unit_price_cents": 900, "sku": "../up"}
    created = await client.post(
        "/api/v1/orders", json={"customer_id": customer.id, "lines": [line]}, headers=auth
    )
    assert created.status_code == 201, created.text
    assert created.json()["lines"][0]["sku"] == "../up"
    reserved = await Sku.select(Sku.code, Sku.reserved).where(Sku.reserved > 0)
    assert reserved == [{"code": "../up", "reserved": 2}]
