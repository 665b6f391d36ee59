"""Prices, property-tested through the API: for random price lists (matrices, setups,
markups, upcharges), customers' discounts and orders of typed and untyped prices, designs
shared across items and net or gross prices, `POST /prices` answers exactly what
`POST /orders` then makes (or refuses the same way), the line totals add up to the subtotal
(net prices) or to the total (gross prices), and no computed price is negative.

Examples: the fuzz tests' profile (tests/fuzzing.py): a fixed, derandomized dozen by default.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx
from hypothesis import event, given
from hypothesis import strategies as st

from models.tables import Order
from tests import factories
from tests.fuzzing import FUZZ

METHODS = ("screen", "embroidery", "dtg", "transfer", "vinyl")
SIZES = ("S", "M", "L", "XL", "2XL")
COLUMN_VALUES = {"screen": (1, 12), "embroidery": (1000, 30000), "dtg": (10, 2000)}


def _ascending(draw: st.DrawFn, low: int, high: int, size: int) -> list[int]:
    return sorted(draw(st.sets(st.integers(low, high), min_size=size, max_size=size)))


@st.composite
def matrices(draw: st.DrawFn) -> list[dict[str, Any]]:
    chosen = draw(
        st.lists(
            st.tuples(st.sampled_from(METHODS), st.sampled_from(["first", "additional"])),
            unique=True,
            max_size=4,
        )
    )
    found = []
    for method, placement in chosen:
        low, high = COLUMN_VALUES.get(method, COLUMN_VALUES["dtg"])
        columns = _ascending(draw, low, high, draw(st.integers(1, 4)))
        minimums = [1, *_ascending(draw, 2, 600, draw(st.integers(0, 4)))]
        matrix: dict[str, Any] = {
            "method": method,
            "placement": placement,
            "columns": columns,
            "rows": [
                {
                    "min_quantity": m,
                    "cells": draw(
                        st.lists(st.integers(0, 5000), min_size=len(columns), max_size=len(columns))
                    ),
                }
                for m in minimums
            ],
        }
        if method == "embroidery" and draw(st.booleans()):
            matrix["per_1000_over_cents"] = draw(st.integers(0, 200))
        found.append(matrix)
    return found


@st.composite
def price_lists(draw: st.DrawFn) -> dict[str, Any]:
    setups: dict[str, Any] = {}
    for method in draw(st.lists(st.sampled_from(METHODS), unique=True)):
        rule = "per_colour_cents" if method == "screen" else "per_design_cents"
        setups[method] = {rule: draw(st.integers(0, 5000))}
        if draw(st.booleans()):
            setups[method]["waive_from_quantity"] = draw(st.integers(1, 300))
    markup_rows = [1, *_ascending(draw, 2, 500, draw(st.integers(0, 3)))]
    return {
        "matrices": draw(matrices()),
        "setups": setups,
        "garment_markups": [
            {"min_quantity": m, "percent": draw(st.integers(0, 300))} for m in markup_rows
        ]
        if draw(st.booleans())
        else [],
        "size_upcharges_cents": {
            size: draw(st.integers(0, 1000))
            for size in draw(st.lists(st.sampled_from(SIZES), unique=True, max_size=3))
        },
    }


@st.composite
def imprints(draw: st.DrawFn) -> dict[str, Any]:
    method = draw(st.sampled_from(METHODS))
    body: dict[str, Any] = {
        "location": draw(st.sampled_from(["front", "back", "left_chest"])),
        "method": method,
    }
    if method == "screen":
        body["colours"] = draw(st.integers(1, 8))
    elif method == "embroidery":
        body["stitches"] = draw(st.integers(1, 30000))
    elif draw(st.booleans()):
        body["width_mm"], body["height_mm"] = draw(st.integers(1, 500)), draw(st.integers(1, 500))
    if draw(st.booleans()):
        body["unit_price_cents"] = draw(st.integers(0, 3000))
    if draw(st.booleans()):
        body["setup_cents"] = draw(st.integers(0, 5000))
    if draw(st.booleans()):
        body["design"] = draw(st.sampled_from(["crest", "logo"]))
    return body


@st.composite
def items(draw: st.DrawFn) -> dict[str, Any]:
    stocked = draw(st.booleans())
    chosen = draw(st.lists(st.sampled_from(SIZES), min_size=1, unique=True))
    sizes = {size: draw(st.integers(1, 150)) for size in chosen}
    body: dict[str, Any] = {
        "style": "G5000" if stocked else "Cap",
        "colour": "Black",
        "sizes": sizes,
        "imprints": draw(st.lists(imprints(), max_size=3)),
    }
    if not stocked or draw(st.booleans()):
        body["unit_price_cents"] = draw(st.integers(0, 5000))
    if draw(st.booleans()):
        body["size_upcharges_cents"] = {draw(st.sampled_from(SIZES)): draw(st.integers(0, 500))}
    return body


async def _shop(rate: Decimal, discount: str) -> tuple[Any, Any, Any]:
    ws, _, auth = await factories.account(tax_rate=rate)
    prices = await factories.price_list(ws, "Clubs", discount)
    customer = await factories.customer(ws, "Prop Club", price_list=prices.id)
    for n, size in enumerate(SIZES):
        await factories.sku(
            ws, f"G5000-BLACK-{size}", style="G5000", colour="Black", size=size,
            on_hand=1_000_000, cost_cents=None if n == 4 and discount == "0.00" else 200 + n * 37,
        )  # fmt: skip
    return ws, auth, customer


@FUZZ
@given(
    document=price_lists(),
    order_items=st.lists(items(), min_size=1, max_size=4),
    inclusive=st.booleans(),
    rate=st.sampled_from([Decimal("0.00"), Decimal("20.00"), Decimal("17.50")]),
    discount=st.sampled_from(["0.00", "10.00", "12.50"]),
)
async def test_the_preview_is_the_create_and_the_lines_add_up(
    client: httpx.AsyncClient,
    document: dict[str, Any],
    order_items: list[dict[str, Any]],
    inclusive: bool,
    rate: Decimal,
    discount: str,
) -> None:
    ws, auth, customer = await _shop(rate, discount)
    saved = await client.put("/api/v1/pricing", json=document, headers=auth)
    assert saved.status_code == 200, saved.text
    body = {"customer_id": customer.id, "items": order_items, "prices_include_tax": inclusive}
    preview = await client.post("/api/v1/prices", json=body, headers=auth)
    created = await client.post("/api/v1/orders", json=body, headers=auth)
    event(f"preview: {preview.status_code}")
    if preview.status_code == 422:
        assert created.status_code == 422
        assert created.json() == preview.json()
        assert await Order.count().where(Order.workspace == ws.id) == 0
        return
    assert preview.status_code == 200, preview.text
    assert created.status_code == 201, created.text
    shown, made = preview.json(), created.json()
    assert shown["totals"] == made["totals"]
    assert [_without_item(line) for line in shown["lines"]] == [
        _without_item(line) for line in made["lines"]
    ]
    totals = made["totals"]
    line_sum = sum(line["line_total_cents"] for line in made["lines"])
    assert line_sum == (totals["total_cents"] if inclusive else totals["subtotal_cents"])
    assert totals["subtotal_cents"] + totals["tax_cents"] == totals["total_cents"]
    for line in made["lines"]:
        assert line["unit_price_cents"] >= 0
        assert line["line_total_cents"] == line["quantity"] * line["unit_price_cents"]
        parts = line["price_breakdown"]
        assert all(i["cents"] >= 0 for i in parts["imprints"])
        assert parts["setup"] is None or parts["setup"]["cents"] > 0
        assert parts["garment"] is None or parts["garment"] >= 0
    # Nothing of the preview was kept: the one order is the create's.
    assert await Order.count().where(Order.workspace == ws.id) == 1


def _without_item(line: dict[str, Any]) -> dict[str, Any]:
    """A line without the id of the item it was made from (the preview's items are not
    kept, so their ids are not the create's)."""
    return {key: value for key, value in line.items() if key != "item_id"}
