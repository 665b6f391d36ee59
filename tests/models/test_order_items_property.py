"""Print jobs, property-tested through the API: for random garments, sizes,
upcharges, imprints and plain lines, created and then edited, moved into production or
cancelled, every answer's lines add up to its subtotal (and to the price the garments make),
and every SKU's `reserved` is the sum of the size lines of the orders still holding stock.

Examples: the fuzz tests' profile (tests/fuzzing.py): a fixed, derandomized dozen by default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import httpx
from hypothesis import event, example, given
from hypothesis import strategies as st

from models.actors import OPERATOR
from models.orders.cancelling import cancel_order
from models.tables import Order, OrderLine, Sku
from tests import factories
from tests.api.item_helpers import patch
from tests.api.order_helpers import advance, create
from tests.fuzzing import FUZZ

# The workspace's catalogue: two stocked garments and a tote bag sold as plain SKU lines;
# the garments of UNSTOCKED have no SKU.
CATALOGUE = {
    ("G5000", "Black"): ("S", "M", "L", "XL", "2XL"),
    ("18500", "Navy"): ("M", "L", "XL"),
}
UNSTOCKED = (("Cap", "Red"), ("Polo", "Black"))
UNSTOCKED_SIZES = ("S", "M", "L", "Youth M", "One")
OPEN_STAGES = ("artwork", "print_queue", "in_production", "qc_pack")


def _spellings(text: str) -> st.SearchStrategy[str]:
    return st.sampled_from([text, text.lower(), text.upper()])


@st.composite
def imprints(draw: st.DrawFn) -> dict[str, Any]:
    method = draw(st.sampled_from(["screen", "embroidery", "dtg", "transfer", "vinyl"]))
    body: dict[str, Any] = {
        "location": draw(st.sampled_from(["front", "back", "left_chest", "neck", "other"])),
        "method": method,
        "unit_price_cents": draw(st.integers(0, 2_000)),
        "setup_cents": draw(st.sampled_from([0, 0, 1, 2_500, 100_000_000])),
    }
    if method == "screen":
        body["colours"] = draw(st.integers(1, 12))
    if method == "embroidery":
        body["stitches"] = draw(st.integers(1, 200_000))
    return body


@st.composite
def items(draw: st.DrawFn) -> dict[str, Any]:
    stocked = draw(st.booleans())
    if stocked:
        style, colour = draw(st.sampled_from(sorted(CATALOGUE)))
        labels: tuple[str, ...] = CATALOGUE[(style, colour)]
        style, colour = draw(_spellings(style)), draw(_spellings(colour))
    else:
        style, colour = draw(st.sampled_from(UNSTOCKED))
        labels = UNSTOCKED_SIZES
    chosen = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=len(labels), unique=True))
    sizes = {label: draw(st.integers(0, 40)) for label in chosen}
    if not any(sizes.values()):
        sizes[chosen[0]] = draw(st.integers(1, 40))
    upcharged = draw(st.lists(st.sampled_from(chosen), unique=True, max_size=2))
    return {
        "style": style,
        "colour": colour,
        "sizes": sizes,
        "unit_price_cents": draw(st.integers(0, 100_000_000)),
        "size_upcharges_cents": {label: draw(st.integers(0, 5_000)) for label in upcharged},
        "imprints": draw(st.lists(imprints(), max_size=3)),
    }


@st.composite
def plain_lines(draw: st.DrawFn) -> list[dict[str, Any]]:
    count = draw(st.integers(0, 2))
    return [
        {
            "description": "Extra",
            "quantity": draw(st.integers(1, 10_000)),
            "unit_price_cents": draw(st.integers(0, 100_000)),
            **({"sku": "TOTE-NAT"} if draw(st.booleans()) else {}),
        }
        for _ in range(count)
    ]


@st.composite
def contents(draw: st.DrawFn) -> dict[str, Any]:
    """An order's content: items and/or plain lines, at least one line in all."""
    body = {"items": draw(st.lists(items(), max_size=3)), "lines": draw(plain_lines())}
    if not body["items"] and not body["lines"]:
        body["items"] = [draw(items())]
    return body


# What happens after the first orders are created: edit an order's items or lines (or
# both), move one into production (its stock is consumed), cancel one (released). Edits are
# drawn three times as often as the others.
_EDIT = st.tuples(
    st.just("edit"), st.integers(0, 2), contents(), st.sampled_from(["items", "lines", "both"])
)
steps = st.lists(
    st.one_of(
        _EDIT,
        _EDIT,
        _EDIT,
        st.tuples(st.just("produce"), st.integers(0, 2)),
        st.tuples(st.just("cancel"), st.integers(0, 2)),
    ),
    max_size=6,
)


def _tee(sizes: dict[str, int], *prints: dict[str, Any]) -> dict[str, Any]:
    return {
        "style": "G5000",
        "colour": "black",
        "sizes": sizes,
        "unit_price_cents": 450,
        "size_upcharges_cents": {"2XL": 150} if "2XL" in sizes else {},
        "imprints": list(prints),
    }


_SCREEN = {"location": "front", "method": "screen", "colours": 2, "unit_price_cents": 120,
           "setup_cents": 2500}  # fmt: skip
_TOTE = {"description": "Tote", "quantity": 7, "unit_price_cents": 300, "sku": "TOTE-NAT"}
# Always tried first: two orders of the same SKUs; one grows, shrinks and drops a size, the
# other is produced; the first then loses its garment to a plain line, and is cancelled.
SCENARIO = {
    "first": [
        {"items": [_tee({"S": 3, "M": 2, "2XL": 1}, _SCREEN)], "lines": []},
        {"items": [_tee({"M": 4})], "lines": [_TOTE]},
    ],
    "later": [
        ("edit", 0, {"items": [_tee({"S": 5, "M": 1, "XL": 2}, _SCREEN)], "lines": []}, "items"),
        ("produce", 1),
        ("edit", 0, {"items": [], "lines": [_TOTE]}, "both"),
        ("edit", 1, {"items": [_tee({"M": 1})], "lines": []}, "items"),
        ("cancel", 0),
    ],
    "rate": Decimal("20.00"),
    "exempt": False,
}


@dataclass
class Shop:
    ws: Any
    auth: dict[str, str]
    customer_id: int
    rate: Decimal
    exempt: bool
    stages: dict[int, str] = field(default_factory=dict)


def _round(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def expected_subtotal(body: dict[str, Any]) -> int:
    """The price the contract gives the content, worked out here from the request alone."""
    total = 0
    for item in body.get("items") or []:
        per_garment = item["unit_price_cents"] + sum(
            imprint["unit_price_cents"] for imprint in item["imprints"]
        )
        for label, quantity in item["sizes"].items():
            total += quantity * (per_garment + item["size_upcharges_cents"].get(label, 0))
        total += sum(imprint["setup_cents"] for imprint in item["imprints"])
    total += sum(line["quantity"] * line["unit_price_cents"] for line in body.get("lines") or [])
    return total


def _line_count(body: dict[str, Any]) -> int:
    """Lines the contract makes of a request: one per size above 0 and per imprint with a
    setup, plus the plain lines."""
    sizes = sum(
        1 for item in body.get("items") or [] for quantity in item["sizes"].values() if quantity
    )
    setups = sum(
        1
        for item in body.get("items") or []
        for imprint in item["imprints"]
        if imprint["setup_cents"]
    )
    return sizes + setups + len(body.get("lines") or [])


def check_totals(shop: Shop, answer: dict[str, Any], sent: dict[str, Any] | None) -> None:
    lines = answer["lines"]
    for line in lines:
        assert line["line_total_cents"] == line["quantity"] * line["unit_price_cents"], line
    subtotal = answer["totals"]["subtotal_cents"]
    assert sum(line["line_total_cents"] for line in lines) == subtotal
    if sent is not None:
        assert subtotal == expected_subtotal(sent)
        assert len(lines) == _line_count(sent)
    tax = 0 if shop.exempt else _round(Decimal(subtotal) * shop.rate / 100)
    assert answer["totals"]["tax_cents"] == tax
    assert answer["totals"]["total_cents"] == subtotal + tax
    garments = {item["id"]: item["quantity"] for item in answer["items"]}
    for item in answer["items"]:
        assert item["quantity"] == sum(item["sizes"].values())
    # Each item's size lines hold its garments.
    per_item: dict[int, int] = dict.fromkeys(garments, 0)
    for line in lines:
        if line.get("item_id") is not None and not line["description"].startswith("Setup: "):
            per_item[line["item_id"]] += line["quantity"]
    assert per_item == garments


_HELD = """
    SELECT l.sku AS sku, SUM(l.quantity) AS held
    FROM order_lines l JOIN orders o ON o.id = l."order"
    WHERE o.workspace = {} AND l.sku IS NOT NULL AND NOT o.stock_consumed
        AND o.stage IN ('artwork', 'print_queue', 'in_production', 'qc_pack')
    GROUP BY l.sku
"""


async def check_reservations(shop: Shop) -> None:
    """skus.reserved = SUM of the size (and SKU) lines of the open orders not yet consumed."""
    held = {row["sku"]: int(row["held"]) for row in await OrderLine.raw(_HELD, shop.ws.id)}
    levels = await Sku.select(Sku.id, Sku.reserved).where(Sku.workspace == shop.ws.id)
    assert {row["id"]: row["reserved"] for row in levels} == {
        row["id"]: held.get(row["id"], 0) for row in levels
    }


async def open_shop(rate: Decimal, exempt: bool) -> Shop:
    ws, _, auth = await factories.account(tax_rate=rate)
    customer = await factories.customer(ws, "Prop Tees", tax_exempt=exempt)
    for (style, colour), sizes in CATALOGUE.items():
        for size in sizes:
            await factories.sku(
                ws,
                f"{style}-{colour}-{size}".upper(),
                style=style,
                colour=colour,
                size=size,
                on_hand=1_000_000,
            )
    await factories.sku(
        ws, "TOTE-NAT", style="Tote", colour="Natural", size="One", on_hand=1_000_000
    )
    return Shop(ws, auth, customer.id, rate, exempt)


@FUZZ
@example(**SCENARIO)
@given(
    first=st.lists(contents(), min_size=1, max_size=3),
    later=steps,
    rate=st.sampled_from([Decimal("0.00"), Decimal("20.00"), Decimal("12.50"), Decimal("17.50")]),
    exempt=st.booleans(),
)
async def test_lines_add_up_and_reservations_match_the_open_orders(
    client: httpx.AsyncClient,
    first: list[dict[str, Any]],
    later: list[tuple[Any, ...]],
    rate: Decimal,
    exempt: bool,
) -> None:
    shop = await open_shop(rate, exempt)
    ids: list[int] = []
    for body in first:
        response = await create(client, shop.auth, {"customer_id": shop.customer_id, **body})
        assert response.status_code == 201, response.text
        check_totals(shop, response.json(), body)
        ids.append(response.json()["id"])
        shop.stages[response.json()["id"]] = "artwork"
    await check_reservations(shop)
    for step in later:
        order_id = ids[step[1] % len(ids)]
        stage = shop.stages[order_id]
        if step[0] == "edit":
            await _edit(client, shop, order_id, step[2], step[3])
        elif step[0] == "produce":
            response = await advance(client, shop.auth, order_id, "in_production")
            event(f"produce: {response.status_code}")
            if stage in ("artwork", "print_queue", "qc_pack"):
                assert response.status_code == 200, response.text
                shop.stages[order_id] = "in_production"
            else:
                assert response.status_code == 422, response.text
        elif stage in OPEN_STAGES:
            await cancel_order(workspace_id=shop.ws.id, order_id=order_id, actor=OPERATOR)
            shop.stages[order_id] = "cancelled"
        await check_reservations(shop)
        row = await Order.select(Order.subtotal_cents).where(Order.id == order_id).first()
        stored = await OrderLine.select(OrderLine.line_total_cents).where(
            OrderLine.order == order_id
        )
        assert row is not None
        assert sum(line["line_total_cents"] for line in stored) == row["subtotal_cents"]


async def _edit(
    client: httpx.AsyncClient, shop: Shop, order_id: int, content: dict[str, Any], which: str
) -> None:
    """PATCH `which` of `content` (items, lines or both); what is not sent is kept, so the
    answer's subtotal is the kept lines' plus the price of what was sent."""
    edit = {kind: value for kind, value in content.items() if which in ("both", kind)}
    kept_kind = {"items": "lines", "lines": "items"}.get(which)
    kept = await _lines_of(order_id, kept_kind) if kept_kind else []
    response = await patch(client, shop.auth, order_id, edit)
    event(f"edit {which}: {response.status_code}")
    if shop.stages[order_id] not in ("artwork", "print_queue"):
        assert response.status_code == 422, response.text
        return
    if not (edit.get("items") or edit.get("lines") or kept):
        assert response.status_code == 422, response.text  # no line would be left
        return
    assert response.status_code == 200, response.text
    answer = response.json()
    check_totals(shop, answer, None)
    sent = len(answer["lines"]) - len(kept)
    expected = expected_subtotal(edit) + sum(total for total in kept)
    assert answer["totals"]["subtotal_cents"] == expected
    assert sent == _line_count(edit)


async def _lines_of(order_id: int, kind: str) -> list[int]:
    """The line totals of the order's item lines (`items`) or plain lines (`lines`)."""
    made_from_items = OrderLine.item.is_not_null() if kind == "items" else OrderLine.item.is_null()
    rows = await OrderLine.select(OrderLine.line_total_cents).where(
        OrderLine.order == order_id, made_from_items
    )
    return [row["line_total_cents"] for row in rows]
