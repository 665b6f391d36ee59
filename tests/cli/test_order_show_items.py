"""`pressline order show` of an order of garments: each item with its style,
colour, description, size run, price and upcharges, stock per size when stocked, and its
imprints in people's words; `--json` stays the API's own detail, items included."""

from __future__ import annotations

from typing import Any

import pytest

from tests import factories

pytestmark = pytest.mark.usefixtures("backend")


def garments(customer_id: int) -> dict[str, Any]:
    """A stocked tee printed front and back, and an unstocked embroidered hoodie."""
    return {
        "customer_id": customer_id,
        "items": [
            {
                "style": "Softstyle Tee",
                "colour": "Black",
                "sizes": {"L": 6, "S": 4, "M": 12},
                "unit_price_cents": 310,
                "imprints": [
                    {
                        "location": "front",
                        "method": "screen",
                        "colours": 2,
                        "colour_names": ["White", "PMS 186 C"],
                        "width_mm": 280,
                        "height_mm": 200,
                        "unit_price_cents": 180,
                        "setup_cents": 3000,
                    },
                    {"location": "back", "method": "dtg", "unit_price_cents": 250},
                ],
            },
            {
                "style": "Premium Hoodie",
                "colour": "Navy",
                "description": "Club hoodie",
                "sizes": {"M": 5, "2XL": 2, "XS": 0},
                "unit_price_cents": 1450,
                "size_upcharges_cents": {"2XL": 200},
                "imprints": [
                    {
                        "location": "left_chest",
                        "method": "embroidery",
                        "stitches": 8500,
                        "colour_names": ["Gold"],
                        "notes": "Crest in gold thread\nCentre 9 cm from the seam",
                        "unit_price_cents": 350,
                        "setup_cents": 2500,
                    }
                ],
            },
        ],
    }


async def stocked_tee(ws: Any) -> None:
    """Softstyle Tee in Black, S M L; M has less on hand than the order reserves."""
    for size, on_hand in (("S", 40), ("M", 10), ("L", 25)):
        await factories.sku(
            ws,
            f"SST-BLK-{size}",
            style="Softstyle Tee",
            colour="Black",
            brand="Gildan",
            size=size,
            on_hand=on_hand,
        )


async def test_show_prints_each_garment_with_sizes_stock_and_imprints(pressline, client):
    ws, _, auth = await factories.account(plan="premium")
    acme = await factories.customer(ws, "Acme Tees")
    await stocked_tee(ws)
    created = await client.post("/api/v1/orders", json=garments(acme.id), headers=auth)
    assert created.status_code == 201, created.text
    number = created.json()["number"]

    run = await pressline(f"order show {number}")
    assert run.code == 0, run.err
    shown = run.out.splitlines()
    start = next(n for n, text in enumerate(shown) if text.startswith("  garment 1:"))
    assert shown[start : start + 11] == [
        "  garment 1: 22 x Gildan Softstyle Tee Black (style Softstyle Tee, colour Black),"
        " 3.10 GBP each",
        "    sizes: S 4, M 12, L 6",
        "    stock S [SST-BLK-S]: 40 on hand, 4 reserved, 36 available",
        "    stock M [SST-BLK-M]: 10 on hand, 12 reserved, -2 available, short 2",
        "    stock L [SST-BLK-L]: 25 on hand, 6 reserved, 19 available",
        "    Front: Screen print, 2 colours (White, PMS 186 C), 280 x 200 mm;"
        " 1.80 GBP a garment, setup 30.00 GBP",
        "    Back: DTG; 2.50 GBP a garment",
        "  garment 2: 7 x Club hoodie (style Premium Hoodie, colour Navy), 14.50 GBP each",
        "    sizes: M 5, 2XL 2, XS 0",
        "    upcharges: 2XL +2.00 GBP",
        "    Left chest: Embroidery (Gold), 8,500 stitches; 3.50 GBP a garment, setup 25.00 GBP;"
        " notes: Crest in gold thread / Centre 9 cm from the seam",
    ]
    # the lines the garments expand to follow, as before
    assert shown[start + 11] == ("  4 x Gildan Softstyle Tee Black — S [SST-BLK-S] @ 7.40 GBP"), (
        shown[start + 11 :]
    )

    as_json = await pressline(f"order show {number} --json")
    detail = (await client.get(f"/api/v1/orders/{created.json()['id']}", headers=auth)).json()
    assert as_json.data == detail
    tee, hoodie = as_json.data["items"]
    assert tee["stock"]["M"] == {"sku": "SST-BLK-M", "on_hand": 10, "reserved": 12, "available": -2}
    assert hoodie["stock"] is None and hoodie["imprints"][0]["stitches"] == 8500


async def test_show_of_an_order_of_plain_lines_prints_no_garment(pressline):
    ws = await factories.workspace()
    plain = await factories.order(ws, await factories.customer(ws, "Brewers Guild"))
    run = await pressline(f"order show {plain.number}")
    assert run.code == 0, run.err
    assert "garment" not in run.out
    assert run.out.splitlines()[2].startswith("  ")  # the first line item follows the totals
    assert (await pressline(f"order show {plain.number} --json")).data["items"] == []
