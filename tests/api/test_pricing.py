"""The price list and what it prices: `GET`/`PUT /api/v1/pricing` (ETag, If-Match, owners
only, every rule keyed by dot path), items and imprints priced from matrices, setups and
waivers, designs shared across items, garment markups on SKU costs, upcharges, the customer's
discount, typed prices kept and computed ones computed again on edits, tax-inclusive prices,
and `POST /api/v1/prices` answering exactly what the create makes while keeping nothing."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

import httpx

from models.tables import Order, OrderLine, Sku, Workspace
from tests import factories
from tests.api.item_helpers import get, imprint, item, items_body, patch, reserved, stocked
from tests.api.order_helpers import Shop, create, line, shop

SCREEN = {
    "method": "screen",
    "columns": [1, 2, 3, 4],
    "rows": [
        {"min_quantity": 1, "cells": [400, 500, 600, 700]},
        {"min_quantity": 12, "cells": [300, 380, 460, 540]},
        {"min_quantity": 48, "cells": [200, 250, 300, 350]},
    ],
}
SCREEN_ADDITIONAL = {
    "method": "screen",
    "placement": "additional",
    "columns": [1, 2, 3, 4],
    "rows": [
        {"min_quantity": 1, "cells": [300, 350, 400, 450]},
        {"min_quantity": 12, "cells": [200, 250, 300, 350]},
        {"min_quantity": 48, "cells": [150, 180, 210, 240]},
    ],
}
EMBROIDERY = {
    "method": "embroidery",
    "columns": [5000, 10000],
    "rows": [{"min_quantity": 1, "cells": [600, 800]}, {"min_quantity": 24, "cells": [450, 600]}],
    "per_1000_over_cents": 40,
}
DTG = {
    "method": "dtg",
    "columns": [100, 600, 1200],
    "rows": [{"min_quantity": 1, "cells": [500, 800, 1100]}],
}
PRICE_LIST: dict[str, Any] = {
    "matrices": [SCREEN, EMBROIDERY, DTG],
    "setups": {
        "screen": {"per_colour_cents": 2000, "waive_from_quantity": 144},
        "embroidery": {"per_design_cents": 3500},
    },
    "garment_markups": [
        {"min_quantity": 1, "percent": 100},
        {"min_quantity": 24, "percent": 80},
        {"min_quantity": 72, "percent": 50},
    ],
    "size_upcharges_cents": {"2XL": 200, "3XL": 300},
}


async def put_pricing(
    client: httpx.AsyncClient, auth: dict[str, str], document: dict[str, Any], **headers: str
) -> httpx.Response:
    return await client.put("/api/v1/pricing", json=document, headers={**auth, **headers})


async def priced_shop(
    client: httpx.AsyncClient, document: dict[str, Any] | None = None, **fields: Any
) -> Shop:
    """A shop (20 % tax) whose price list is `document` (PRICE_LIST by default)."""
    s = await shop(**fields)
    response = await put_pricing(client, s.auth, PRICE_LIST if document is None else document)
    assert response.status_code == 200, response.text
    return s


async def costed(ws: Workspace, cost: int | None = 250, **costs: int) -> dict[str, Sku]:
    """G5000 Black in S-2XL at `cost` each (a size's own cost in `costs`)."""
    skus = await stocked(ws)
    for size, sku in skus.items():
        sku.cost_cents = costs.get(size, cost)
        await sku.save()
    return skus


async def ordered(
    client: httpx.AsyncClient, s: Shop, *items: dict[str, Any], **fields: Any
) -> dict[str, Any]:
    response = await create(client, s.auth, items_body(s.customer.id, *items, **fields))
    assert response.status_code == 201, response.text
    return response.json()


def prices(body: dict[str, Any]) -> list[tuple[str, int, int, str]]:
    return [
        (ln["description"], ln["quantity"], ln["unit_price_cents"], ln["price_source"])
        for ln in body["lines"]
    ]


def refusal(response: httpx.Response) -> dict[str, list[str]]:
    assert response.status_code == 422, response.text
    assert response.json()["code"] == "validation_failed"
    errors: dict[str, list[str]] = response.json()["errors"]
    return errors


def tee(sizes: dict[str, int], *imprints: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A stocked G5000 Black (see `costed`) without a typed price unless told."""
    body = item(style="G5000", colour="Black", sizes=sizes, imprints=list(imprints), **fields)
    if "unit_price_cents" not in fields:
        del body["unit_price_cents"]
    return body


# --- the document ------------------------------------------------------------------------------


async def test_the_price_list_reads_back_as_saved_with_an_etag(client):
    s = await shop()
    empty = await client.get("/api/v1/pricing", headers=s.auth)
    assert empty.status_code == 200
    no_setups = dict.fromkeys(["screen", "embroidery", "dtg", "transfer", "vinyl"])
    assert empty.json() == {
        "matrices": [],
        "setups": no_setups,
        "garment_markups": [],
        "size_upcharges_cents": {},
    }
    saved = await put_pricing(client, s.auth, PRICE_LIST, **{"If-Match": empty.headers["ETag"]})
    assert saved.status_code == 200, saved.text
    again = await client.get("/api/v1/pricing", headers=s.auth)
    assert again.json() == saved.json()
    assert again.headers["ETag"] == saved.headers["ETag"] != empty.headers["ETag"]
    assert again.json()["matrices"][0] == {
        **SCREEN,
        "placement": "first",
        "per_1000_over_cents": None,
    }
    # Every key is answered; what was not given is null.
    assert again.json()["setups"] == {
        **no_setups,
        "screen": {"per_colour_cents": 2000, "per_design_cents": None, "waive_from_quantity": 144},
        "embroidery": {
            "per_colour_cents": None,
            "per_design_cents": 3500,
            "waive_from_quantity": None,
        },
    }
    unchanged = await client.get(
        "/api/v1/pricing", headers={**s.auth, "If-None-Match": again.headers["ETag"]}
    )
    assert unchanged.status_code == 304
    # An If-Match of the document before the save: refused, nothing changed.
    stale = await put_pricing(
        client, s.auth, {"matrices": []}, **{"If-Match": empty.headers["ETag"]}
    )
    assert stale.status_code == 412
    assert stale.json()["code"] == "precondition_failed"
    assert (await client.get("/api/v1/pricing", headers=s.auth)).json() == saved.json()


async def test_only_an_owners_token_changes_the_price_list(client):
    s = await shop()
    staff = await factories.user(s.ws, role="staff")
    response = await put_pricing(client, await factories.headers(staff), PRICE_LIST)
    assert response.status_code == 403
    assert response.json() == {
        "message": "Only an owner's token can change the price list.",
        "code": "forbidden",
        "details": {},
    }
    assert (await client.get("/api/v1/pricing", headers=s.auth)).json()["matrices"] == []


async def test_another_workspaces_price_list_is_never_seen_or_used(client):
    mine = await priced_shop(client)
    theirs = await shop()
    assert (await client.get("/api/v1/pricing", headers=theirs.auth)).json()["matrices"] == []
    await costed(theirs.ws)
    response = await create(
        client, theirs.auth, items_body(theirs.customer.id, tee({"M": 12}, imprint()))
    )
    assert refusal(response)["items.0.unit_price_cents"] == [
        "The items.0.unit_price_cents field is required: the workspace has no price list yet."
    ]
    assert (await client.get("/api/v1/pricing", headers=mine.auth)).json()["matrices"]


async def test_every_rule_of_the_document_is_named_at_once(client):
    s = await shop()
    bad = copy.deepcopy(PRICE_LIST)
    bad["matrices"][0]["columns"] = [1, 3, 2, 4]
    bad["matrices"][0]["rows"][0]["min_quantity"] = 2
    bad["matrices"][0]["rows"][2]["min_quantity"] = 12
    bad["matrices"][0]["rows"][1]["cells"] = [300, 380]
    bad["matrices"][1]["method"] = "screen"  # a second first-location screen matrix
    bad["matrices"][2]["per_1000_over_cents"] = 50  # on dtg
    bad["setups"]["screen"] = {"per_design_cents": 100}
    bad["garment_markups"][1]["min_quantity"] = 1
    bad["size_upcharges_cents"]["XL"] = -5
    bad["matrices"][0]["rows"][0]["cells"][0] = 100_000_001
    errors = refusal(await put_pricing(client, s.auth, bad))
    # The fields' own problems, and the rules of every part whose fields are all valid (the
    # document's own rules wait for its fields).
    assert sorted(errors) == [
        "matrices.0.rows.0.cells.0",
        "matrices.1.per_1000_over_cents",
        "matrices.2.per_1000_over_cents",
        "setups.screen.per_design_cents",
        "size_upcharges_cents.XL",
    ]
    assert errors["matrices.0.rows.0.cells.0"] == [
        "The matrices.0.rows.0.cells.0 field must not be greater than 100000000."
    ]
    # Once every field is valid on its own, the rules between them, all at once.
    bad["matrices"][1]["per_1000_over_cents"] = None
    bad["matrices"][0]["rows"][0]["cells"][0] = 400
    bad["size_upcharges_cents"]["XL"] = 0
    errors = refusal(await put_pricing(client, s.auth, bad))
    assert errors == {
        "matrices.0.columns": ["The matrices.0.columns field must be in ascending order."],
        "matrices.0.rows.0.min_quantity": [
            "The matrices.0.rows.0.min_quantity field must be 1: the first row prices from "
            "one garment."
        ],
        "matrices.0.rows.2.min_quantity": [
            "The matrices.0.rows.2.min_quantity field must be more than the row before (12)."
        ],
        "matrices.0.rows.1.cells": [
            "The matrices.0.rows.1.cells field must have 4 prices, one per column."
        ],
        "matrices.1.placement": [
            "The matrices.1.placement field repeats a screen matrix for the first location; "
            "one matrix per method and placement."
        ],
        "matrices.2.per_1000_over_cents": [
            "The matrices.2.per_1000_over_cents field is for embroidery matrices only."
        ],
        "setups.screen.per_design_cents": [
            "The setups.screen.per_design_cents field does not apply to screen; use "
            "per_colour_cents."
        ],
        "garment_markups.1.min_quantity": [
            "The garment_markups.1.min_quantity field must be more than the row before (1)."
        ],
    }
    unknown = await put_pricing(client, s.auth, {**PRICE_LIST, "currency": "GBP"})
    assert refusal(unknown) == {"currency": ["currency is not a field of a price list."]}
    wrong = await put_pricing(client, s.auth, {"setups": {"sublimation": {}}})
    assert refusal(wrong) == {"setups.sublimation": ["sublimation is not a field of setups."]}
    assert (await client.get("/api/v1/pricing", headers=s.auth)).json()["matrices"] == []


# --- matrices ------------------------------------------------------------------------------


async def test_a_screen_print_is_priced_by_the_row_of_its_quantity_and_its_colours(client):
    s = await priced_shop(client)
    await costed(s.ws, cost=None)
    # 11 garments: the first row; exactly 12: the 12 row; 2 colours: the second column.
    body = await ordered(
        client,
        s,
        tee({"M": 11}, imprint(colours=2, setup_cents=0), unit_price_cents=1000),
        tee({"M": 12}, imprint(colours=2, setup_cents=0), unit_price_cents=1000),
    )
    assert prices(body) == [
        ("Gildan G5000 Black — M", 11, 1500, "price_list"),
        ("Gildan G5000 Black — M", 12, 1380, "price_list"),
    ]
    first = body["lines"][0]["price_breakdown"]
    assert first == {
        "garment": 1000,
        "garment_source": "typed",
        "cost_cents": None,
        "markup_percent": None,
        "upcharge": 0,
        "imprints": [
            {
                "location": "front",
                "method": "screen",
                "design": None,
                "source": "price_list",
                "quantity": 11,
                "matrix_row": 1,
                "column": 2,
                "cents": 500,
            }
        ],
        "discount_percent": None,
        "setup": None,
    }
    assert body["lines"][1]["price_breakdown"]["imprints"][0]["matrix_row"] == 12
    # The imprint's price was not typed: the item says so with null.
    assert body["items"][0]["imprints"][0]["unit_price_cents"] is None
    assert body["items"][0]["unit_price_cents"] == 1000


async def test_colours_beyond_the_last_column_are_refused_naming_the_matrix(client):
    s = await priced_shop(client)
    response = await create(
        client, s.auth, items_body(s.customer.id, item(imprints=[imprint(colours=5)]))
    )
    assert refusal(response) == {
        "items.0.imprints.0.colours": [
            "The price list's screen print matrix goes up to 4 colours; this imprint has 5. Type "
            "items.0.imprints.0.unit_price_cents, or add a column to the matrix."
        ]
    }
    # Typed, the same imprint is fine: the price list is not asked.
    typed = await ordered(
        client, s, item(imprints=[imprint(colours=5, unit_price_cents=900, setup_cents=0)])
    )
    assert typed["lines"][0]["unit_price_cents"] == 500 + 900
    assert typed["lines"][0]["price_source"] == "typed"


async def test_an_additional_location_uses_its_matrix_or_else_the_first_locations(client):
    s = await priced_shop(client)
    front, back = imprint(setup_cents=0), imprint(location="back", colours=2, setup_cents=0)
    without = await ordered(client, s, item(sizes={"M": 12}, imprints=[front, back]))
    # No additional screen matrix: the back is priced by the first location's (12 row).
    assert [i["cents"] for i in without["lines"][0]["price_breakdown"]["imprints"]] == [300, 380]
    await put_pricing(
        client, s.auth, {**PRICE_LIST, "matrices": [SCREEN, SCREEN_ADDITIONAL, EMBROIDERY, DTG]}
    )
    with_own = await ordered(client, s, item(sizes={"M": 12}, imprints=[front, back]))
    assert [i["cents"] for i in with_own["lines"][0]["price_breakdown"]["imprints"]] == [300, 250]
    assert with_own["lines"][0]["unit_price_cents"] == 500 + 300 + 250


async def test_a_method_without_a_matrix_is_refused_naming_what_is_missing(client):
    s = await priced_shop(client, {**PRICE_LIST, "matrices": [EMBROIDERY]})
    response = await create(
        client,
        s.auth,
        items_body(
            s.customer.id,
            item(imprints=[imprint(method="embroidery", stitches=4000), imprint(location="back")]),
            item(imprints=[imprint(method="vinyl")]),
        ),
    )
    assert refusal(response) == {
        "items.0.imprints.1.unit_price_cents": [
            "The price list has no screen print matrix for an additional location; type "
            "items.0.imprints.1.unit_price_cents, or add the matrix in Settings → Pricing."
        ],
        "items.1.imprints.0.unit_price_cents": [
            "The price list has no vinyl matrix for a location; type "
            "items.1.imprints.0.unit_price_cents, or add the matrix in Settings → Pricing."
        ],
    }
    assert await Order.count() == 0


async def test_embroidery_reads_stitch_ceilings_and_charges_each_started_thousand_over(client):
    s = await priced_shop(client)
    stitched = [
        imprint(method="embroidery", stitches=n, setup_cents=0) for n in (5000, 5001, 10000, 12001)
    ]
    body = await ordered(client, s, *(item(imprints=[i]) for i in stitched))
    cells = [ln["price_breakdown"]["imprints"][0] for ln in body["lines"] if ln["item_id"]]
    assert [(c["column"], c["cents"]) for c in cells[::2]] == [
        (5000, 600),
        (10000, 800),
        (10000, 800),
        (10000, 800 + 3 * 40),  # 2,001 over: three started thousands
    ]
    # Without per_1000_over_cents, beyond the last ceiling is refused.
    capped = {**EMBROIDERY, "per_1000_over_cents": None}
    await put_pricing(client, s.auth, {**PRICE_LIST, "matrices": [SCREEN, capped]})
    response = await create(client, s.auth, items_body(s.customer.id, item(imprints=[stitched[3]])))
    assert refusal(response) == {
        "items.0.imprints.0.stitches": [
            "The price list's embroidery matrix goes up to 10,000 stitches; this imprint has "
            "12,001. Type items.0.imprints.0.unit_price_cents, or add a column to the matrix."
        ]
    }


async def test_dtg_is_priced_by_print_area_and_without_a_size_by_the_first_column(client):
    s = await priced_shop(client)
    areas = [
        imprint(method="dtg"),  # no size: the first column
        imprint(method="dtg", width_mm=100, height_mm=100),  # 100 cm²: exactly the first
        imprint(method="dtg", width_mm=250, height_mm=300),  # 750 cm²: the third
    ]
    body = await ordered(client, s, *(item(sizes={"M": 1}, imprints=[a]) for a in areas))
    cells = [ln["price_breakdown"]["imprints"][0] for ln in body["lines"]]
    assert [(c["column"], c["cents"]) for c in cells] == [(100, 500), (100, 500), (1200, 1100)]
    response = await create(
        client,
        s.auth,
        items_body(
            s.customer.id, item(imprints=[imprint(method="dtg", width_mm=400, height_mm=400)])
        ),
    )
    assert list(refusal(response)) == ["items.0.imprints.0.width_mm"]


# --- setups and designs ---------------------------------------------------------------------


async def test_screen_setups_charge_each_colour_and_are_waived_from_a_quantity(client):
    s = await priced_shop(client)
    body = await ordered(
        client,
        s,
        item(sizes={"M": 10}, imprints=[imprint(colours=3), imprint(location="back", colours=1)]),
        item(sizes={"M": 144}, imprints=[imprint(colours=2)]),  # waived: no setup line
    )
    setups = [ln for ln in body["lines"] if ln["description"].startswith("Setup")]
    assert [(ln["description"], ln["unit_price_cents"], ln["price_source"]) for ln in setups] == [
        ("Setup: front, screen print, 3 colours", 6000, "price_list"),
        ("Setup: back, screen print, 1 colour", 2000, "price_list"),
    ]
    assert setups[0]["price_breakdown"]["setup"] == {
        "location": "front",
        "method": "screen",
        "design": None,
        "source": "price_list",
        "colours": 3,
        "rule_cents": 2000,
        "cents": 6000,
    }
    assert setups[0]["price_breakdown"]["garment"] is None
    # A typed setup is kept as typed; a typed 0 is no setup at all.
    typed = await ordered(
        client,
        s,
        item(imprints=[imprint(setup_cents=1500), imprint(location="back", setup_cents=0)]),
    )
    assert [ln["unit_price_cents"] for ln in typed["lines"] if "Setup" in ln["description"]] == [
        1500
    ]


async def test_a_design_shares_its_price_break_and_one_setup_across_items(client):
    s = await priced_shop(client)
    crest = imprint(colours=2, design="crest-2026")
    body = await ordered(
        client,
        s,
        item(style="Tee", sizes={"M": 30}, imprints=[crest]),
        item(style="Hoodie", sizes={"L": 20}, imprints=[crest]),
        item(style="Cap", sizes={"OS": 5}, imprints=[imprint(colours=2)]),  # no design: alone
    )
    garments = {ln["description"]: ln for ln in body["lines"] if "Setup" not in ln["description"]}
    # 50 garments of the crest: the 48 row for both items; the cap alone: the 1 row.
    assert garments["Tee Navy — M"]["price_breakdown"]["imprints"][0]["matrix_row"] == 48
    assert garments["Tee Navy — M"]["price_breakdown"]["imprints"][0]["quantity"] == 50
    assert garments["Hoodie Navy — L"]["price_breakdown"]["imprints"][0]["cents"] == 250
    assert garments["Cap Navy — OS"]["price_breakdown"]["imprints"][0]["matrix_row"] == 1
    setups = [
        (ln["description"], ln["unit_price_cents"], ln["item_id"])
        for ln in body["lines"]
        if "Setup" in ln["description"]
    ]
    tee_id, _, cap_id = (i["id"] for i in body["items"])
    assert setups == [
        ("Setup: front, screen print, 2 colours (crest-2026)", 4000, tee_id),
        ("Setup: front, screen print, 2 colours", 4000, cap_id),
    ]
    assert [i["imprints"][0]["design"] for i in body["items"]] == ["crest-2026", "crest-2026", None]


async def test_embroidery_setups_are_per_design(client):
    s = await priced_shop(client)
    logo = imprint(method="embroidery", stitches=6000, location="left_chest", design="logo")
    body = await ordered(
        client,
        s,
        item(style="Polo", imprints=[logo]),
        item(style="Jacket", imprints=[logo]),
        item(style="Beanie", imprints=[imprint(method="embroidery", stitches=3000)]),
    )
    setups = [ln["unit_price_cents"] for ln in body["lines"] if "Setup" in ln["description"]]
    assert setups == [3500, 3500]  # one for the logo's two items, one for the beanie


# --- garments: markups, costs, upcharges, discount ------------------------------------------


async def test_a_garment_is_its_skus_cost_marked_up_by_the_row_of_its_quantity(client):
    s = await priced_shop(client)
    await costed(s.ws, cost=251, **{"2XL": 333})
    # 23 garments: 100 % markup; 24: 80 %.
    small = await ordered(client, s, tee({"M": 20, "2XL": 3}))
    assert prices(small) == [
        ("Gildan G5000 Black — M", 20, 502, "price_list"),
        ("Gildan G5000 Black — 2XL", 3, 666 + 200, "price_list"),
    ]
    assert small["lines"][1]["price_breakdown"] | {"imprints": []} == {
        "garment": 666,
        "garment_source": "price_list",
        "cost_cents": 333,
        "markup_percent": 100,
        "upcharge": 200,
        "imprints": [],
        "discount_percent": None,
        "setup": None,
    }
    large = await ordered(client, s, tee({"M": 24}))
    # 251 x 1.8 = 451.8 → 452 (half up).
    assert prices(large) == [("Gildan G5000 Black — M", 24, 452, "price_list")]
    assert large["items"][0]["unit_price_cents"] is None


async def test_a_garment_without_cost_or_stock_is_refused_naming_the_sku(client):
    s = await priced_shop(client)
    await costed(s.ws, cost=250, M=None, L=None)  # type: ignore[arg-type]
    response = await create(
        client,
        s.auth,
        items_body(s.customer.id, tee({"S": 1, "M": 2, "L": 1}), item(unit_price_cents=None)),
    )
    assert refusal(response) == {
        "items.0.unit_price_cents": [
            "SKU G5000-BLACK-M, G5000-BLACK-L have no cost; type items.0.unit_price_cents, or "
            "set the cost on the SKU's page."
        ],
        "items.1.unit_price_cents": [
            "The items.1.unit_price_cents field is required: Crew Tee Navy is not stocked, so "
            "it has no cost to mark up."
        ],
    }
    no_markups = await put_pricing(client, s.auth, {**PRICE_LIST, "garment_markups": []})
    assert no_markups.status_code == 200
    response = await create(client, s.auth, items_body(s.customer.id, tee({"S": 1})))
    assert refusal(response) == {
        "items.0.unit_price_cents": [
            "The items.0.unit_price_cents field is required: the price list has no garment markups."
        ]
    }
    assert await reserved(s.ws) == dict.fromkeys(
        ["G5000-BLACK-S", "G5000-BLACK-M", "G5000-BLACK-L", "G5000-BLACK-XL", "G5000-BLACK-2XL"], 0
    )


async def test_the_shops_upcharges_apply_unless_the_item_has_its_own(client):
    s = await priced_shop(client)
    shops = await ordered(client, s, item(sizes={"L": 1, "2XL": 1, "3XL": 1}))
    assert [ln["unit_price_cents"] for ln in shops["lines"]] == [500, 700, 800]
    # The item's own table wins, whole; it may name sizes not ordered (kept for later).
    own = await ordered(
        client,
        s,
        item(sizes={"L": 1, "2XL": 1, "3XL": 1}, size_upcharges_cents={"2XL": 150, "5XL": 900}),
    )
    assert [ln["unit_price_cents"] for ln in own["lines"]] == [500, 650, 500]
    assert own["items"][0]["size_upcharges_cents"] == {"2XL": 150, "5XL": 900}


async def test_the_customers_discount_applies_to_computed_prices_only(client):
    s = await priced_shop(client)
    await costed(s.ws, cost=255)
    clubs = await factories.price_list(s.ws, "Clubs", "10.00")
    s.customer.price_list = clubs.id
    await s.customer.save()
    body = await ordered(
        client,
        s,
        tee({"M": 10}, imprint(colours=1)),  # computed garment and imprint, computed setup
        item(sizes={"M": 1}, imprints=[imprint(unit_price_cents=400, setup_cents=1000)]),
    )
    computed, setup, typed, typed_setup = body["lines"]
    # Garment 255 x 2 = 510 → 459; imprint 400 → 360; setup 2,000 not discounted.
    assert computed["unit_price_cents"] == 459 + 360
    assert computed["price_breakdown"]["garment"] == 459
    assert computed["price_breakdown"]["imprints"][0]["cents"] == 360
    assert computed["price_breakdown"]["discount_percent"] == "10.00"
    assert setup["unit_price_cents"] == 2000
    assert typed["unit_price_cents"] == 500 + 400
    assert typed["price_breakdown"]["discount_percent"] is None
    assert typed_setup["unit_price_cents"] == 1000


# --- editing -------------------------------------------------------------------------------


async def test_an_edit_computes_computed_prices_again_and_keeps_typed_ones(client):
    s = await priced_shop(client)
    await costed(s.ws, cost=250)
    body = await ordered(
        client,
        s,
        tee({"M": 10}, imprint(colours=1, setup_cents=0)),
        item(
            sizes={"M": 10},
            unit_price_cents=700,
            imprints=[imprint(unit_price_cents=123, setup_cents=0)],
        ),
    )
    assert [ln["unit_price_cents"] for ln in body["lines"]] == [500 + 400, 700 + 123]
    again = copy.deepcopy(body["items"])
    for shown in again:
        shown.pop("id")
        shown.pop("quantity")
        shown.pop("stock")
        for i in shown["imprints"]:
            i.pop("id")
    again[0]["sizes"] = {"M": 30}  # crosses the 24 markup row and the 12 matrix row
    again[1]["sizes"] = {"M": 30}
    response = await patch(client, s.auth, body["id"], {"items": again})
    assert response.status_code == 200, response.text
    edited = response.json()
    # 250 x 1.8 = 450, the 12 row 300; the typed 700 + 123 untouched.
    assert [ln["unit_price_cents"] for ln in edited["lines"]] == [450 + 300, 700 + 123]
    assert [ln["price_source"] for ln in edited["lines"]] == ["price_list", "typed"]
    # An edit of the plain lines alone keeps the items (and computes their prices again).
    assert (await patch(client, s.auth, body["id"], {"lines": [line()]})).status_code == 200
    kept = (await get(client, s.auth, body["id"])).json()
    assert [ln["unit_price_cents"] for ln in kept["lines"]] == [750, 823, 1250]
    # A note changes nothing of the prices, whatever the price list says now.
    await put_pricing(client, s.auth, {**PRICE_LIST, "garment_markups": [
        {"min_quantity": 1, "percent": 10}]})  # fmt: skip
    noted = await patch(client, s.auth, body["id"], {"notes": "rush"})
    assert [ln["unit_price_cents"] for ln in noted.json()["lines"]] == [750, 823, 1250]


async def test_a_workspace_without_a_price_list_prices_untyped_imprints_at_nothing(client):
    s = await shop()
    body = await ordered(client, s, item(imprints=[imprint()]))
    assert body["lines"][0]["unit_price_cents"] == 500
    assert body["lines"][0]["price_source"] == "typed"
    # Kept as typed 0: a price list saved later does not re-price them on an edit.
    assert body["items"][0]["imprints"][0]["unit_price_cents"] == 0
    assert body["items"][0]["imprints"][0]["setup_cents"] == 0
    await put_pricing(client, s.auth, PRICE_LIST)
    edited = await patch(client, s.auth, body["id"], {"lines": [line()]})
    assert edited.json()["lines"][0]["unit_price_cents"] == 500


# --- tax-inclusive prices ------------------------------------------------------------------


async def test_tax_inclusive_prices_make_the_total_the_sum_of_the_lines(client):
    s = await shop()  # 20 % tax
    body = {
        "customer_id": s.customer.id,
        "lines": [line(quantity=3, unit_price_cents=1999)],
        "prices_include_tax": True,
    }
    response = await create(client, s.auth, body)
    assert response.status_code == 201, response.text
    created = response.json()
    # 5,997 gross: tax 5,997 x 20 / 120 = 999.5 → 1,000 (half up); net 4,997.
    assert created["totals"] == {
        "subtotal_cents": 4997,
        "tax_cents": 1000,
        "total_cents": 5997,
        "currency": "GBP",
    }
    assert created["prices_include_tax"] is True
    assert sum(ln["line_total_cents"] for ln in created["lines"]) == 5997
    row = await Order.select(Order.total_cents, Order.prices_include_tax).first()
    assert row == {"total_cents": 5997, "prices_include_tax": True}
    # Switched off by an edit: the same lines are net again.
    net = await patch(client, s.auth, created["id"], {"prices_include_tax": False})
    assert net.json()["totals"]["total_cents"] == 5997 + 1199
    assert net.json()["prices_include_tax"] is False


async def test_the_workspace_default_applies_when_an_order_does_not_say(client):
    s = await shop()
    await Workspace.update({Workspace.prices_include_tax: True}).where(Workspace.id == s.ws.id)
    body = {"customer_id": s.customer.id, "lines": [line(quantity=1, unit_price_cents=1200)]}
    created = (await create(client, s.auth, body)).json()
    assert created["totals"]["total_cents"] == 1200
    assert created["totals"]["tax_cents"] == 200
    explicit = (await create(client, s.auth, {**body, "prices_include_tax": False})).json()
    assert explicit["totals"]["total_cents"] == 1440


# --- the preview -----------------------------------------------------------------------------


async def test_the_preview_answers_what_the_create_makes_and_keeps_nothing(client):
    s = await priced_shop(client)
    await costed(s.ws, cost=250)
    body = items_body(
        s.customer.id,
        tee({"M": 20, "2XL": 4}, imprint(colours=2, design="crest"), imprint(location="back")),
        item(style="Hoodie", sizes={"L": 12}, imprints=[imprint(colours=2, design="crest")]),
        lines=[line()],
        prices_include_tax=True,
    )
    preview = await client.post("/api/v1/prices", json=body, headers=s.auth)
    assert preview.status_code == 200, preview.text
    assert preview.headers["X-RateLimit-Bucket"] == "read"
    assert await Order.count() == 0
    assert await OrderLine.count() == 0
    assert set((await reserved(s.ws)).values()) == {0}
    created = await create(client, s.auth, body)
    assert created.status_code == 201, created.text
    made = created.json()
    assert made["number"].endswith("-0001")  # the preview took no number
    shown = preview.json()
    assert shown["totals"] == made["totals"]
    assert shown["prices_include_tax"] is True
    strip = [{k: v for k, v in ln.items() if k != "item_id"} for ln in made["lines"]]
    assert [{k: v for k, v in ln.items() if k != "item_id"} for ln in shown["lines"]] == strip


async def test_the_preview_refuses_what_the_create_refuses(client):
    s = await priced_shop(client)
    other = await shop()
    response = await client.post(
        "/api/v1/prices",
        json=items_body(other.customer.id, item(imprints=[imprint(colours=9)])),
        headers=s.auth,
    )
    errors = refusal(response)
    assert errors["customer_id"] == ["The selected customer_id is invalid."]
    unknown = await client.post(
        "/api/v1/prices", json={"customer_id": s.customer.id, "itmes": []}, headers=s.auth
    )
    assert "itmes" in refusal(unknown)


async def test_line_totals_add_up_to_the_totals_exactly(client):
    s = await priced_shop(client)
    await costed(s.ws, cost=333)
    await Workspace.update({Workspace.tax_rate: Decimal("17.50")}).where(Workspace.id == s.ws.id)
    for inclusive in (False, True):
        body = await ordered(
            client,
            s,
            tee({"S": 7, "M": 13, "2XL": 5}, imprint(colours=3), imprint(location="back")),
            prices_include_tax=inclusive,
        )
        line_sum = sum(ln["line_total_cents"] for ln in body["lines"])
        totals = body["totals"]
        assert totals["subtotal_cents"] + totals["tax_cents"] == totals["total_cents"]
        assert line_sum == (totals["total_cents"] if inclusive else totals["subtotal_cents"])
