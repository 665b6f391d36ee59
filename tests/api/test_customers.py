"""Customers through HTTP: every field of the list row and detail, search, order, filters."""

from __future__ import annotations

import datetime as dt

import pytest

from models import db
from models.tables import Customer
from tests import factories

T0 = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.UTC)


async def _list(client, auth, **params):
    response = await client.get("/api/v1/customers", params=params, headers=auth)
    assert response.status_code == 200, response.text
    return response.json()


async def test_list_row_has_every_field_with_exact_values(client):
    ws, _, auth = await factories.account()
    trade = await factories.price_list(ws, "Trade", "12.50")
    c = await factories.customer(
        ws, "Acme Tees", slug="acme-tees", price_list=trade.id, external_ref="shop-42"
    )
    await factories.contact(c, email="other@acme.example")
    await factories.contact(c, email="jo@acme.example", is_primary=True)
    await Customer.update({Customer.updated_at: T0}).where(Customer.id == c.id)
    for stage in ("artwork", "print_queue", "in_production", "qc_pack", "dispatched", "cancelled"):
        await factories.order(ws, c, stage=stage)

    body = await _list(client, auth)

    assert body["data"] == [
        {
            "id": c.id,
            "name": "Acme Tees",
            "slug": "acme-tees",
            "external_ref": "shop-42",
            "email": "jo@acme.example",
            "price_list": "Trade",
            "discount": "12.50",
            "orders_count": 6,
            "open_orders": 4,
            "updated_at": "2026-03-01T09:30:00+00:00",
        }
    ]


@pytest.mark.parametrize(
    ("stored", "shown"), [("7.5", "7.50"), ("0", "0.00"), ("100", "100.00"), ("33.33", "33.33")]
)
async def test_discount_is_a_two_decimal_string_equal_to_the_detail(client, stored, shown):
    ws, _, auth = await factories.account()
    pl = await factories.price_list(ws, "List", stored)
    c = await factories.customer(ws, price_list=pl.id)

    row = (await _list(client, auth))["data"][0]
    detail = (await client.get(f"/api/v1/customers/{c.id}", headers=auth)).json()

    assert row["discount"] == shown
    assert detail["price_list"] == {"name": "List", "discount_percent": shown}


async def test_list_row_email_is_the_primary_contacts_and_null_without_one(client):
    ws, _, auth = await factories.account()
    nobody = await factories.customer(ws, "A No Contacts")
    no_primary = await factories.customer(ws, "B No Primary")
    await factories.contact(no_primary, email="someone@b.example")
    primary = await factories.customer(ws, "C Primary")
    await factories.contact(primary, email="first@c.example")
    await factories.contact(primary, email="boss@c.example", is_primary=True)
    theirs = await factories.customer(await factories.workspace(), "D Elsewhere")
    await factories.contact(theirs, email="theirs@d.example", is_primary=True)

    rows = (await _list(client, auth))["data"]

    assert [(row["id"], row["email"], row["external_ref"]) for row in rows] == [
        (nobody.id, None, None),
        (no_primary.id, None, None),
        (primary.id, "boss@c.example", None),
    ]


async def test_without_a_price_list_discount_is_zero_and_price_list_null(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws, "Plain Ltd")

    row = (await _list(client, auth))["data"][0]
    detail = (await client.get(f"/api/v1/customers/{c.id}", headers=auth)).json()

    assert (row["price_list"], row["discount"], row["orders_count"], row["open_orders"]) == (
        None,
        "0.00",
        0,
        0,
    )
    assert detail["price_list"] is None


async def test_detail_has_every_field_with_exact_values(client):
    ws, _, auth = await factories.account()
    trade = await factories.price_list(ws, "Trade", "12.50")
    c = await factories.customer(
        ws,
        "Acme Tees",
        slug="acme-tees",
        price_list=trade.id,
        payment_terms="net_15",
        default_carrier="Royal Mail",
    )
    await Customer.update({Customer.updated_at: T0}).where(Customer.id == c.id)
    second = await factories.contact(c, name="Bo", email="bo@acme.test", phone="", is_primary=False)
    primary = await factories.contact(
        c, name="Al", email="al@acme.test", phone="+44 1632 960000", is_primary=True
    )
    third = await factories.contact(c, name="Cy", email="cy@acme.test", phone="0", is_primary=False)

    response = await client.get(f"/api/v1/customers/{c.id}", headers=auth)

    assert response.status_code == 200, response.text
    assert response.json() == {
        "id": c.id,
        "name": "Acme Tees",
        "slug": "acme-tees",
        "external_ref": None,
        "lifetime_value_cents": 0,
        "price_list": {"name": "Trade", "discount_percent": "12.50"},
        "payment_terms": "net_15",
        "default_carrier": "Royal Mail",
        "tax_exempt": False,
        "contacts": [
            {
                "id": primary.id,
                "name": "Al",
                "email": "al@acme.test",
                "phone": "+44 1632 960000",
                "is_primary": True,
            },
            {
                "id": second.id,
                "name": "Bo",
                "email": "bo@acme.test",
                "phone": "",
                "is_primary": False,
            },
            {
                "id": third.id,
                "name": "Cy",
                "email": "cy@acme.test",
                "phone": "0",
                "is_primary": False,
            },
        ],
        "addresses": [],
        "updated_at": "2026-03-01T09:30:00+00:00",
    }
    assert primary.id > second.id  # primary first although added later; then by creation
    assert third.id > second.id


async def test_lifetime_value_sums_paid_invoices_only(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    other = await factories.customer(ws)
    o1 = await factories.order(ws, c)
    o2 = await factories.order(ws, c)
    await factories.invoice(o1, status="paid", total=1000)
    await factories.invoice(o2, status="paid", total=2550)
    await factories.invoice(o1, status="issued", total=99_999)
    await factories.invoice(o1, status="void", total=5_000)
    await factories.invoice(o2, status="draft", total=7_000)
    await factories.invoice(await factories.order(ws, other), status="paid", total=123_456)

    detail = (await client.get(f"/api/v1/customers/{c.id}", headers=auth)).json()
    no_invoices = await factories.customer(ws)
    empty = (await client.get(f"/api/v1/customers/{no_invoices.id}", headers=auth)).json()

    assert detail["lifetime_value_cents"] == 3550
    assert empty["lifetime_value_cents"] == 0
    assert empty["contacts"] == []


async def test_lifetime_value_beyond_32_bits(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    o = await factories.order(ws, c)
    await factories.invoice(o, status="paid", total=3_000_000_000)
    await factories.invoice(o, status="paid", total=3_000_000_000)

    detail = (await client.get(f"/api/v1/customers/{c.id}", headers=auth)).json()

    assert detail["lifetime_value_cents"] == 6_000_000_000


async def test_payment_terms_codes_are_returned_as_stored(client):
    ws, _, auth = await factories.account()
    for payment_terms in ("prepaid", "on_receipt", "net_7", "net_15", "net_30", "net_60"):
        c = await factories.customer(ws, payment_terms=payment_terms)
        detail = (await client.get(f"/api/v1/customers/{c.id}", headers=auth)).json()
        assert detail["payment_terms"] == payment_terms


async def test_unknown_customer_is_404(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)

    response = await client.get(f"/api/v1/customers/{c.id + 1}", headers=auth)

    assert response.status_code == 404
    assert response.json() == {"message": "Customer not found", "code": "not_found", "details": {}}


async def test_ordered_by_name_then_id(client):
    ws, _, auth = await factories.account()
    gamma = await factories.customer(ws, "Gamma Prints")
    beta_1 = await factories.customer(ws, "Beta Wear")
    alpha = await factories.customer(ws, "Alpha Tees")
    beta_2 = await factories.customer(ws, "Beta Wear")

    ids = [row["id"] for row in (await _list(client, auth))["data"]]

    assert ids == [alpha.id, beta_1.id, beta_2.id, gamma.id]


# --- search --------------------------------------------------------------------------------

SEARCH_NAMES = [
    "Acme Tees",
    "ACME Hoodies",
    "Northern Acme Ltd",
    "100% Cotton Co",
    "1000 Tees",
    "Stitch_Works",
    "StitchXWorks",
    "O'Brien & Sons",
    'The "Quoted" Shop',
    "Back\\Slash",
]


SEARCHES = [
    ("acme", ["ACME Hoodies", "Acme Tees", "Northern Acme Ltd"]),
    ("ACME T", ["Acme Tees"]),
    ("rn ac", ["Northern Acme Ltd"]),
    ("100%", ["100% Cotton Co"]),
    ("%", ["100% Cotton Co"]),
    ("h_w", ["Stitch_Works"]),
    ("_", ["Stitch_Works"]),
    ("o'brien", ["O'Brien & Sons"]),
    ("'", ["O'Brien & Sons"]),
    ('"quoted"', ['The "Quoted" Shop']),
    ("k\\s", ["Back\\Slash"]),
    ("\\", ["Back\\Slash"]),
    ("'; DROP TABLE customers; --", []),
    ("x" * 500, []),
    ("acme\x00", []),
    ("nobody", []),
]


async def test_search_is_case_insensitive_and_literal(client):
    ws, _, auth = await factories.account()
    for name in SEARCH_NAMES:
        await factories.customer(ws, name)

    for search, expected in SEARCHES:
        body = await _list(client, auth, search=search)
        assert sorted(row["name"] for row in body["data"]) == sorted(expected), search
        assert body["total"] == len(expected), search


async def test_empty_search_lists_everything(client):
    ws, _, auth = await factories.account()
    await factories.customer(ws, "One")
    await factories.customer(ws, "Two")

    assert (await _list(client, auth, search=""))["total"] == 2


# --- updated_since -------------------------------------------------------------------------


async def test_updated_since_is_inclusive_and_combines_with_search(client):
    ws, _, auth = await factories.account()
    times = {
        "Old Acme": T0,
        "Edge Acme": T0 + dt.timedelta(hours=1),
        "New Other": T0 + dt.timedelta(hours=2),
    }
    for name, at in times.items():
        c = await factories.customer(ws, name)
        await Customer.update({Customer.updated_at: at}).where(Customer.id == c.id)

    since = await _list(client, auth, updated_since="2026-03-01T10:30:00+00:00")
    both = await _list(client, auth, updated_since="2026-03-01T10:30:00Z", search="acme")

    assert [row["name"] for row in since["data"]] == ["Edge Acme", "New Other"]
    assert [row["name"] for row in both["data"]] == ["Edge Acme"]


async def test_search_matches_non_ascii_text(client):
    ws, _, auth = await factories.account()
    await factories.customer(ws, "Café Crème Ltd")
    await factories.customer(ws, "Cafe Plain")

    body = await _list(client, auth, search="é cr")

    assert [row["name"] for row in body["data"]] == ["Café Crème Ltd"]


async def test_search_folds_non_ascii_capitals_on_postgresql(client):
    if not db.is_postgres():
        pytest.skip("SQLite's LOWER() folds ASCII letters only (documented in docs/api.md)")
    ws, _, auth = await factories.account()
    await factories.customer(ws, "École Tees")

    body = await _list(client, auth, search="école")

    assert [row["name"] for row in body["data"]] == ["École Tees"]
