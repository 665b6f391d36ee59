"""Orders through HTTP: every field of list rows and detail, filters and ordering."""

from __future__ import annotations

import datetime as dt
import re

from models.tables import Order
from tests import factories

T0 = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.UTC)
UTC_FORM = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$")
STAGES = ("artwork", "print_queue", "in_production", "qc_pack", "dispatched", "cancelled")


async def _list(client, auth, **params):
    response = await client.get("/api/v1/orders", params=params, headers=auth)
    assert response.status_code == 200, response.text
    return response.json()


async def _detail(client, auth, order_id):
    response = await client.get(f"/api/v1/orders/{order_id}", headers=auth)
    assert response.status_code == 200, response.text
    return response.json()


async def _full_order(ws, c):
    """A dispatched order with every optional field set, a SKU line and a plain line."""
    tee = await factories.sku(ws, "TEE-BLK-M")
    return await factories.order(
        ws,
        c,
        stage="dispatched",
        lines=[("Front print", 10, 1250), ("Setup fee", 1, 2000)],
        line_skus=[tee.id, None],
        created_at=T0,
        updated_at=T0 + dt.timedelta(days=3),
        substage="packed",
        due_by=dt.datetime(2026, 7, 14, 23, 0, tzinfo=dt.UTC),
        dispatched_at=T0 + dt.timedelta(days=2, seconds=59, microseconds=999_999),
        carrier="DPD",
        tracking_number="1Z999",
        external_ref="shop-1001",
    )


def _expected_row(o, c):
    return {
        "id": o.id,
        "number": o.number,
        "stage": "dispatched",
        "substage": "packed",
        "due_by": "2026-07-15T00:00:00+01:00",
        "dispatched_at": "2026-03-03T09:30:59+00:00",
        "carrier": "DPD",
        "tracking_number": "1Z999",
        "external_ref": "shop-1001",
        "totals": {
            "subtotal_cents": 14500,
            "tax_cents": 2900,
            "total_cents": 17400,
            "currency": "EUR",
        },
        "customer": {"id": c.id, "name": "Acme Tees", "slug": "acme-tees"},
        "lines": [
            {
                "description": "Front print",
                "quantity": 10,
                "unit_price_cents": 1250,
                "line_total_cents": 12500,
                "sku": "TEE-BLK-M",
                "price_source": "typed",
                "price_breakdown": None,
            },
            {
                "description": "Setup fee",
                "quantity": 1,
                "unit_price_cents": 2000,
                "line_total_cents": 2000,
                "sku": None,
                "price_source": "typed",
                "price_breakdown": None,
            },
        ],
        "created_at": "2026-03-01T09:30:00+00:00",
        "updated_at": "2026-03-04T09:30:00+00:00",
    }


async def test_list_row_has_every_field_with_exact_values(client):
    ws, _, auth = await factories.account(currency="EUR")
    c = await factories.customer(ws, "Acme Tees", slug="acme-tees")
    o = await _full_order(ws, c)

    body = await _list(client, auth)

    assert body["data"] == [_expected_row(o, c)]


async def test_optional_fields_are_null_when_unset(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    await factories.order(ws, c)

    row = (await _list(client, auth))["data"][0]

    for field in ("substage", "due_by", "dispatched_at", "carrier", "tracking_number"):
        assert row[field] is None, field
    assert row["external_ref"] is None
    assert row["lines"][0]["sku"] is None
    assert UTC_FORM.match(row["created_at"]) and UTC_FORM.match(row["updated_at"])


async def test_detail_adds_history_invoices_and_artwork(client):
    ws, _, auth = await factories.account(currency="EUR")
    c = await factories.customer(ws, "Acme Tees", slug="acme-tees")
    o = await _full_order(ws, c)
    for step, (from_stage, to_stage) in enumerate(
        [
            ("artwork", "print_queue"),
            ("print_queue", "in_production"),
            ("in_production", "dispatched"),
        ],
        start=1,
    ):
        await factories.stage_change(o, from_stage, to_stage, T0 + dt.timedelta(hours=step))
    paid = await factories.invoice(o, status="paid", total=17400)
    void = await factories.invoice(o, status="void", total=100)
    await factories.set_artwork(
        o, status="approved", version=3, approved_at=dt.datetime(2026, 3, 1, 12, 0, 5, 123, dt.UTC)
    )

    detail = await _detail(client, auth, o.id)

    assert detail == {
        **_expected_row(o, c),
        "stage_history": [
            {"from": None, "to": "artwork", "at": "2026-03-01T09:30:00+00:00"},
            {"from": "artwork", "to": "print_queue", "at": "2026-03-01T10:30:00+00:00"},
            {"from": "print_queue", "to": "in_production", "at": "2026-03-01T11:30:00+00:00"},
            {"from": "in_production", "to": "dispatched", "at": "2026-03-01T12:30:00+00:00"},
        ],
        "invoices": [
            {
                "id": paid.id,
                "number": paid.number,
                "status": "paid",
                "total": 17400,
                "currency": "EUR",
                "issued_at": paid.issued_at.astimezone(dt.UTC).isoformat(timespec="seconds"),
                "paid_at": paid.paid_at.astimezone(dt.UTC).isoformat(timespec="seconds"),
            },
            {
                "id": void.id,
                "number": void.number,
                "status": "void",
                "total": 100,
                "currency": "EUR",
                "issued_at": void.issued_at.astimezone(dt.UTC).isoformat(timespec="seconds"),
                "paid_at": None,
            },
        ],
        "artwork": {
            "status": "approved",
            "version": 3,
            "approved_at": "2026-03-01T12:00:05+00:00",
            "approved_by": None,
            "approval_source": None,
            "approval_note": None,
            "proofs": [],
        },
        "items": [],  # an order of plain lines
        "revision": 1,
        "ship_to": None,  # none given, and the customer has no default address (§19)
        "prices_include_tax": False,
    }
    assert re.match(r"^INV-2026-\d{4,}$", paid.number)
    for invoice in detail["invoices"]:
        assert UTC_FORM.match(invoice["issued_at"])


async def test_new_order_detail_defaults(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    o = await factories.order(ws, c, created_at=T0)

    detail = await _detail(client, auth, o.id)

    assert detail["stage_history"] == [
        {"from": None, "to": "artwork", "at": "2026-03-01T09:30:00+00:00"}
    ]
    assert detail["invoices"] == []
    assert detail["artwork"] == {
        "status": "awaiting_proof",
        "version": 0,
        "approved_at": None,
        "approved_by": None,
        "approval_source": None,
        "approval_note": None,
        "proofs": [],
    }


async def test_artwork_defaults_when_the_order_has_no_artwork_row(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    o = await factories.order(ws, c, artwork=False)

    detail = await _detail(client, auth, o.id)

    assert detail["artwork"] == {
        "status": "awaiting_proof",
        "version": 0,
        "approved_at": None,
        "approved_by": None,
        "approval_source": None,
        "approval_note": None,
        "proofs": [],
    }


async def test_list_rows_do_not_carry_detail_fields(client):
    ws, _, auth = await factories.account()
    await factories.order(ws, await factories.customer(ws))

    row = (await _list(client, auth))["data"][0]

    assert {"stage_history", "invoices", "artwork", "notes"}.isdisjoint(row)


async def test_notes_are_never_returned(client):
    ws, _, auth = await factories.account()
    o = await factories.order(ws, await factories.customer(ws), notes="internal: pays late")

    detail = await client.get(f"/api/v1/orders/{o.id}", headers=auth)
    listing = await client.get("/api/v1/orders", headers=auth)

    assert "pays late" not in detail.text
    assert "pays late" not in listing.text


DUE_BY_CASES = [
    (
        "Europe/London",
        dt.datetime(2026, 7, 14, 23, 0, tzinfo=dt.UTC),
        "2026-07-15T00:00:00+01:00",
    ),
    (
        "Europe/London",
        dt.datetime(2026, 1, 15, 0, 0, tzinfo=dt.UTC),
        "2026-01-15T00:00:00+00:00",
    ),
    (
        "America/New_York",
        dt.datetime(2026, 7, 15, 4, 0, tzinfo=dt.UTC),
        "2026-07-15T00:00:00-04:00",
    ),
    (
        "Asia/Kolkata",
        dt.datetime(2026, 7, 14, 18, 30, tzinfo=dt.UTC),
        "2026-07-15T00:00:00+05:30",
    ),
    ("UTC", dt.datetime(2026, 7, 15, 0, 0, tzinfo=dt.UTC), "2026-07-15T00:00:00+00:00"),
]


async def test_due_by_has_the_workspace_offset(client):
    for timezone, stored_utc, shown in DUE_BY_CASES:
        ws, _, auth = await factories.account(timezone=timezone)
        o = await factories.order(ws, await factories.customer(ws), due_by=stored_utc)
        assert (await _list(client, auth))["data"][0]["due_by"] == shown, timezone
        assert (await _detail(client, auth, o.id))["due_by"] == shown, timezone


async def test_newest_first_then_highest_id(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    middle = await factories.order(ws, c, created_at=T0)
    oldest = await factories.order(ws, c, created_at=T0 - dt.timedelta(seconds=1))
    newest = await factories.order(ws, c, created_at=T0 + dt.timedelta(microseconds=1))
    tie = await factories.order(ws, c, created_at=T0)

    ids = [row["id"] for row in (await _list(client, auth))["data"]]

    assert ids == [newest.id, tie.id, middle.id, oldest.id]


async def test_stage_filter_selects_each_stage(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    by_stage = {stage: (await factories.order(ws, c, stage=stage)).id for stage in STAGES}

    for stage, order_id in by_stage.items():
        body = await _list(client, auth, stage=stage)
        assert [row["id"] for row in body["data"]] == [order_id], stage
        assert body["total"] == 1


async def test_invalid_stage_is_422(client):
    _, _, auth = await factories.account()

    for stage in ("bogus", "ARTWORK", "", "dispatched ", "cancelled,dispatched"):
        response = await client.get("/api/v1/orders", params={"stage": stage}, headers=auth)
        assert response.status_code == 422, stage
        body = response.json()
        assert list(body["errors"]) == ["stage"]
        assert body["message"] == body["errors"]["stage"][0]


async def test_customer_filter_by_slug(client):
    ws, _, auth = await factories.account()
    acme = await factories.customer(ws, slug="acme")
    other = await factories.customer(ws, slug="acme-2")
    mine = await factories.order(ws, acme, stage="print_queue")
    await factories.order(ws, acme, stage="artwork")
    await factories.order(ws, other, stage="print_queue")

    only_acme = await _list(client, auth, customer="acme")
    combined = await _list(client, auth, customer="acme", stage="print_queue")

    assert only_acme["total"] == 2
    assert {row["customer"]["slug"] for row in only_acme["data"]} == {"acme"}
    assert [row["id"] for row in combined["data"]] == [mine.id]


async def test_unknown_customer_slug_gives_an_empty_list(client):
    ws, _, auth = await factories.account()
    await factories.order(ws, await factories.customer(ws, slug="acme"))

    for slug in ("nobody", "ACME", "acm", "%", "_cme", "x" * 5000, "acme\x00", ""):
        body = await _list(client, auth, customer=slug)
        assert (body["data"], body["total"], body["last_page"]) == ([], 0, 1), slug


async def test_updated_since_is_inclusive(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    old = await factories.order(ws, c, created_at=T0)
    edge = await factories.order(ws, c, created_at=T0)
    await Order.update({Order.updated_at: T0 + dt.timedelta(hours=1)}).where(Order.id == edge.id)

    body = await _list(client, auth, updated_since="2026-03-01T10:30:00+00:00")
    later = await _list(client, auth, updated_since="2026-03-01T10:30:00.000001+00:00")

    assert [row["id"] for row in body["data"]] == [edge.id]
    assert later["data"] == []
    assert old.id != edge.id


async def test_order_numbers_are_not_accepted_in_the_path(client):
    ws, _, auth = await factories.account()
    o = await factories.order(ws, await factories.customer(ws))

    response = await client.get(f"/api/v1/orders/{o.number}", headers=auth)

    assert response.status_code == 404
    assert response.json() == {"message": "Not found", "code": "not_found", "details": {}}


async def test_unknown_order_is_404(client):
    ws, _, auth = await factories.account()
    o = await factories.order(ws, await factories.customer(ws))

    response = await client.get(f"/api/v1/orders/{o.id + 1}", headers=auth)

    assert response.status_code == 404
    assert response.json() == {"message": "Order not found", "code": "not_found", "details": {}}


async def test_the_list_finds_an_order_by_its_external_ref(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    await factories.order(ws, c, external_ref="shop-1001")
    wanted = await factories.order(ws, c, external_ref="shop-1002")
    await factories.order(ws, c)
    other_ws, _, _ = await factories.account()
    await factories.order(other_ws, await factories.customer(other_ws), external_ref="shop-1002")

    found = await client.get("/api/v1/orders?external_ref=shop-1002", headers=auth)
    assert found.status_code == 200, found.text
    assert [row["id"] for row in found.json()["data"]] == [wanted.id]
    assert found.json()["total"] == 1
    for missing in ("shop-9", "SHOP-1002", "shop-1002%00"):
        none = await client.get(f"/api/v1/orders?external_ref={missing}", headers=auth)
        assert (none.status_code, none.json()["data"]) == (200, []), missing
    too_long = await client.get(f"/api/v1/orders?external_ref={'x' * 101}", headers=auth)
    assert too_long.status_code == 422
    assert list(too_long.json()["errors"]) == ["external_ref"]
