"""Editing garments as people and integrations do: a default description follows the style
and colour (an integration echoing the order back keeps it a default), size labels are one
size whatever their case or spaces, and a PATCH of the plain lines alone leaves the garments
exactly as they were (no SKU matched since, no price computed again)."""

from __future__ import annotations

from typing import Any

from models.tables import OrderItem, OrderLine
from tests.api.item_helpers import get, item, items_body, patch, reserved, stocked
from tests.api.order_helpers import create, line, shop


def _echoed(detail: dict[str, Any]) -> list[dict[str, Any]]:
    """The detail's items as an integration sends them back (read-only keys left out)."""
    items = []
    for shown in detail["items"]:
        body = {k: v for k, v in shown.items() if k not in ("id", "quantity", "stock")}
        body["imprints"] = [{k: v for k, v in i.items() if k != "id"} for i in shown["imprints"]]
        items.append(body)
    return items


async def test_a_default_description_follows_the_colour_and_a_typed_one_stays(client):
    s = await shop()
    created = await create(
        client,
        s.auth,
        items_body(
            s.customer.id,
            item(colour="White"),
            item(style="Polo", colour="White", description="Club polo, white collar"),
        ),
    )
    assert created.status_code == 201, created.text
    order = created.json()
    assert [i["description"] for i in order["items"]] == [
        "Crew Tee White",
        "Club polo, white collar",
    ]
    sent = _echoed(order)
    sent[0]["colour"] = sent[1]["colour"] = "Navy"
    edited = await patch(client, s.auth, order["id"], {"items": sent})
    assert edited.status_code == 200, edited.text
    body = edited.json()
    assert [i["description"] for i in body["items"]] == ["Crew Tee Navy", "Club polo, white collar"]
    assert [ln["description"] for ln in body["lines"]] == [
        "Crew Tee Navy — M",
        "Crew Tee Navy — L",
        "Club polo, white collar — M",
        "Club polo, white collar — L",
    ]
    stored = await OrderItem.select(OrderItem.description).order_by(OrderItem.position)
    assert [row["description"] for row in stored] == ["Crew Tee Navy", "Club polo, white collar"]


async def test_a_stocked_default_follows_its_brand_style_and_colour(client):
    s = await shop()
    await stocked(s.ws, colour="White", sizes=("M", "L"))
    await stocked(s.ws, colour="Navy", sizes=("M", "L"), brand="Gildan")
    order = (
        await create(client, s.auth, items_body(s.customer.id, item(style="G5000", colour="White")))
    ).json()
    assert order["items"][0]["description"] == "Gildan G5000 White"
    sent = _echoed(order)
    sent[0]["colour"] = "Navy"
    body = (await patch(client, s.auth, order["id"], {"items": sent})).json()
    assert body["items"][0]["description"] == "Gildan G5000 Navy"
    assert body["lines"][0]["sku"] == "G5000-NAVY-M"


async def test_sizes_equal_but_for_case_or_spaces_are_one_size(client):
    s = await shop()
    twice = await create(
        client, s.auth, items_body(s.customer.id, item(sizes={"M": 2, "m": 1, "L ": 1, "L": 3}))
    )
    assert twice.status_code == 422, twice.text
    assert twice.json()["errors"] == {
        "items.0.sizes": [
            'The items.0.sizes field names one size twice: "M" and "m"; "L " and "L" (sizes '
            "are the same whatever their case or surrounding spaces)."
        ]
    }
    upcharged = await create(
        client,
        s.auth,
        items_body(s.customer.id, item(size_upcharges_cents={"2XL": 100, "2xl": 200})),
    )
    assert list(upcharged.json()["errors"]) == ["items.0.size_upcharges_cents"]
    # Spaces around a label are not part of it: " M " is the SKU's M; "2xl" upcharges 2XL.
    await stocked(s.ws, sizes=("M", "2XL"))
    made = await create(
        client,
        s.auth,
        items_body(
            s.customer.id,
            item(style="G5000", colour="Black", sizes={" M ": 2, "2XL": 1},
                 size_upcharges_cents={"2xl": 200}),
        ),
    )  # fmt: skip
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["items"][0]["sizes"] == {"M": 2, "2XL": 1}
    assert [(ln["sku"], ln["unit_price_cents"]) for ln in body["lines"]] == [
        ("G5000-BLACK-M", 500),
        ("G5000-BLACK-2XL", 700),
    ]
    assert (await reserved(s.ws))["G5000-BLACK-M"] == 2


async def test_a_patch_of_plain_lines_leaves_the_garments_exactly_as_they_were(client):
    s = await shop()
    made = await create(
        client,
        s.auth,
        items_body(s.customer.id, item(style="Tee", colour="Black"), lines=[line()]),
    )
    assert made.status_code == 201, made.text
    order = made.json()
    # SKUs of the garment's style and colour arrive after the order was taken.
    await stocked(s.ws, style="Tee", colour="Black", sizes=("M", "L"))
    before = await OrderLine.select(
        OrderLine.description, OrderLine.sku, OrderLine.unit_price_cents, OrderLine.item
    ).where(OrderLine.item.is_not_null())
    edited = await patch(client, s.auth, order["id"], {"lines": [line(quantity=3)]})
    assert edited.status_code == 200, edited.text
    after = await OrderLine.select(
        OrderLine.description, OrderLine.sku, OrderLine.unit_price_cents, OrderLine.item
    ).where(OrderLine.item.is_not_null())
    assert after == before
    assert all(row["sku"] is None for row in after)
    assert set((await reserved(s.ws)).values()) == {0}
    shown = (await get(client, s.auth, order["id"])).json()
    assert shown["items"] == order["items"]
    assert [ln["quantity"] for ln in shown["lines"]] == [2, 1, 3]
