"""POST /api/v1/orders: the created order, numbering, totals and tax, stock reservation, the
plan limit, the domain's field checks, and that a refused create writes nothing."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import Any

import pytest

from models import clock, db, stock
from models.actors import OPERATOR
from models.orders.lines import NewLine, compute_totals
from models.tables import (
    ApiToken,
    Artwork,
    Customer,
    NumberSequence,
    Order,
    OrderLine,
    Sku,
    StageChange,
    WebhookDelivery,
    WebhookEvent,
)
from tests import factories
from tests.api.order_helpers import create, line, order_body, shop, snapshot, subscription


async def test_create_answers_201_with_location_and_the_detail_body(client):
    s = await shop()
    before = clock.now().replace(microsecond=0)
    response = await create(
        client,
        s.auth,
        order_body(
            s.customer.id,
            lines=[line(), line(description="Back print", quantity=5, unit_price_cents=999)],
            due_by="2026-07-01",
            notes="Ring before delivery",
            external_ref="shop-1001",
        ),
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert response.headers["location"] == f"http://testserver/api/v1/orders/{body['id']}"
    assert body["number"] == f"ORD-{clock.now().year}-0001"
    assert body["stage"] == "artwork"
    assert body["substage"] is None
    assert body["due_by"] == "2026-07-01T00:00:00+01:00"  # midnight in Europe/London (BST)
    assert body["external_ref"] == "shop-1001"
    assert body["customer"] == {"id": s.customer.id, "name": "Acme Tees", "slug": s.customer.slug}
    assert body["lines"] == [
        {
            "description": "Front print",
            "quantity": 10,
            "unit_price_cents": 1250,
            "line_total_cents": 12500,
            "sku": None,
            "price_source": "typed",
            "price_breakdown": None,
        },
        {
            "description": "Back print",
            "quantity": 5,
            "unit_price_cents": 999,
            "line_total_cents": 4995,
            "sku": None,
            "price_source": "typed",
            "price_breakdown": None,
        },
    ]
    assert body["totals"] == {
        "subtotal_cents": 17495,
        "tax_cents": 3499,
        "total_cents": 20994,
        "currency": "GBP",
    }
    assert [(h["from"], h["to"]) for h in body["stage_history"]] == [(None, "artwork")]
    assert dt.datetime.fromisoformat(body["stage_history"][0]["at"]) >= before
    assert body["invoices"] == []
    assert body["artwork"] == {
        "status": "awaiting_proof",
        "version": 0,
        "approved_at": None,
        "approved_by": None,
        "approval_source": None,
        "approval_note": None,
        "proofs": [],
    }
    assert "notes" not in body
    # The Location answers the same representation.
    detail = await client.get(response.headers["location"], headers=s.auth)
    assert detail.json() == body
    row = await Order.objects().get(Order.id == body["id"])
    assert row.notes == "Ring before delivery"
    history = await StageChange.select().where(StageChange.order == body["id"])
    token = await ApiToken.select(ApiToken.id).where(ApiToken.user == s.user.id).first()
    assert [
        (h["from_stage"], h["to_stage"], h["actor_kind"], h["user"], h["token"]) for h in history
    ] == [(None, "artwork", "token", s.user.id, token["id"])]
    assert await Artwork.count().where(Artwork.order == body["id"]) == 1
    # One order.created event (docs/webhooks.md).
    events = await WebhookEvent.select(WebhookEvent.name, WebhookEvent.order)
    assert events == [{"name": "order.created", "order": body["id"]}]


async def test_the_created_body_is_byte_for_byte_the_detail_get_answers(client):
    """The 201 body is shaped from what the create wrote, not re-read: it must still be
    exactly what GET /orders/{id} answers, for every kind of field."""
    s = await shop(timezone="Pacific/Auckland", tax_rate=Decimal("12.50"), currency="NZD")
    exempt = await factories.customer(s.ws, "Zoë's Café", tax_exempt=True)
    await factories.sku(s.ws, "TEE-BLK-M")
    await factories.sku(s.ws, "HOOD-GRY-L")
    for customer, extra in (
        (s.customer, {"due_by": "2026-12-31", "external_ref": "ref-ü-1", "notes": "n"}),
        (exempt, {"due_by": None, "external_ref": None}),
    ):
        lines = [
            line(sku="HOOD-GRY-L", description="Hoodie \u2013 \u201cfront\u201d", quantity=3),
            line(unit_price_cents=0),
            line(sku="TEE-BLK-M", quantity=10_000, unit_price_cents=100_000_000),
            line(sku="HOOD-GRY-L", quantity=1, unit_price_cents=1),
        ]
        response = await create(client, s.auth, order_body(customer.id, lines=lines, **extra))
        assert response.status_code == 201, response.text
        detail = await client.get(response.headers["location"], headers=s.auth)
        assert detail.status_code == 200
        assert response.content == detail.content


async def test_create_records_order_created_once_with_its_delivery(client):
    s = await shop()
    sub = await subscription(s.ws)
    created = await create(client, s.auth, order_body(s.customer.id, external_ref="shop-77"))
    assert created.status_code == 201
    events = await WebhookEvent.select(WebhookEvent.id, WebhookEvent.name, WebhookEvent.body)
    assert [event["name"] for event in events] == ["order.created"]
    body = json.loads(events[0]["body"])
    order = created.json()
    assert {key: body[key] for key in ("order_id", "order_number", "customer_id", "stage")} == {
        "order_id": order["id"],
        "order_number": order["number"],
        "customer_id": s.customer.id,
        "stage": "artwork",
    }
    assert (body["revision"], body["external_ref"], body["total_cents"]) == (
        1,
        "shop-77",
        order["totals"]["total_cents"],
    )
    deliveries = await WebhookDelivery.select(WebhookDelivery.subscription).where(
        WebhookDelivery.event == events[0]["id"]
    )
    assert deliveries == [{"subscription": sub.id}]


async def test_numbers_are_consecutive_per_workspace_and_padded(client):
    a = await shop()
    b = await shop()
    year = clock.now().year
    numbers = []
    for s in (a, a, b, a):
        response = await create(client, s.auth, order_body(s.customer.id))
        assert response.status_code == 201, response.text
        numbers.append(response.json()["number"])
    assert numbers == [
        f"ORD-{year}-0001",
        f"ORD-{year}-0002",
        f"ORD-{year}-0001",
        f"ORD-{year}-0003",
    ]
    # Past 9999 the sequence keeps growing (the padding is a minimum width).
    await NumberSequence.update({NumberSequence.last_value: 9999}).where(
        NumberSequence.workspace == a.ws.id, NumberSequence.kind == "order"
    )
    response = await create(client, a.auth, order_body(a.customer.id))
    assert response.json()["number"] == f"ORD-{year}-10000"


@pytest.mark.parametrize(
    ("utc_now", "timezone", "year"),
    [
        # Already 2027 in Auckland (UTC+13), still 2026 in UTC.
        (dt.datetime(2026, 12, 31, 12, 30, tzinfo=dt.UTC), "Pacific/Auckland", 2027),
        # Already 2027 in UTC, still 2026 in New York (UTC-5).
        (dt.datetime(2027, 1, 1, 3, 0, tzinfo=dt.UTC), "America/New_York", 2026),
        (dt.datetime(2027, 1, 1, 3, 0, tzinfo=dt.UTC), "UTC", 2027),
    ],
)
async def test_the_number_year_is_the_workspace_local_year(
    client, monkeypatch, utc_now, timezone, year
):
    s = await shop(timezone=timezone)
    monkeypatch.setattr(clock, "now", lambda: utc_now)
    response = await create(client, s.auth, order_body(s.customer.id))
    assert response.status_code == 201, response.text
    assert response.json()["number"] == f"ORD-{year}-0001"
    row = await Order.objects().get(Order.id == response.json()["id"])
    assert (row.number_year, row.number_seq) == (year, 1)


@pytest.mark.parametrize(
    ("rate", "lines", "tax"),
    [
        ("20.00", [(10, 1250)], 2500),
        # 0.5 rounds up (a banker's rounding would give 0, truncation 0).
        ("50.00", [(1, 1)], 1),
        # 2.5 rounds up to 3 (banker's rounding gives 2).
        ("50.00", [(1, 5)], 3),
        # 12.5% of 4 = 0.5 → 1; tax is on the subtotal, not per line (per line it would be 0).
        ("12.50", [(1, 2), (1, 2)], 1),
        # 17.5% of 1001 = 175.175 → 175.
        ("17.50", [(1, 1001)], 175),
        # 0.49 rounds down.
        ("7.00", [(1, 7)], 0),
        ("0.00", [(3, 333)], 0),
    ],
)
async def test_tax_is_half_up_on_the_subtotal(client, rate, lines, tax):
    s = await shop(tax_rate=Decimal(rate))
    body = order_body(s.customer.id, lines=[line(quantity=q, unit_price_cents=p) for q, p in lines])
    response = await create(client, s.auth, body)
    assert response.status_code == 201, response.text
    subtotal = sum(q * p for q, p in lines)
    assert response.json()["totals"] == {
        "subtotal_cents": subtotal,
        "tax_cents": tax,
        "total_cents": subtotal + tax,
        "currency": "GBP",
    }


async def test_tax_exempt_customers_pay_no_tax(client):
    s = await shop(currency="EUR")
    exempt = await factories.customer(s.ws, "Charity Shirts", tax_exempt=True)
    response = await create(client, s.auth, order_body(exempt.id))
    assert response.status_code == 201, response.text
    assert response.json()["totals"] == {
        "subtotal_cents": 12500,
        "tax_cents": 0,
        "total_cents": 12500,
        "currency": "EUR",
    }


async def test_the_largest_order_fits_and_is_summed_exactly(client):
    s = await shop(tax_rate=Decimal("999.99"))
    biggest = line(description="x" * 255, quantity=10_000, unit_price_cents=100_000_000)
    response = await create(
        client, s.auth, order_body(s.customer.id, lines=[biggest] * 500, notes="n" * 2000)
    )
    assert response.status_code == 201, response.text
    subtotal = 500 * 10_000 * 100_000_000
    tax = subtotal * 99999 // 10000  # exact: subtotal is a multiple of 10000
    assert response.json()["totals"]["subtotal_cents"] == subtotal
    assert response.json()["totals"]["tax_cents"] == tax
    assert response.json()["totals"]["total_cents"] == subtotal + tax
    assert await OrderLine.count() == 500


def test_totals_beyond_64_bits_are_a_field_error_not_a_crash():
    from models.errors import InvalidFields

    huge = NewLine(description="x", quantity=2**40, unit_price_cents=2**40)
    with pytest.raises(InvalidFields) as caught:
        compute_totals([huge], Decimal("0"), tax_exempt=False)
    assert list(caught.value.errors) == ["lines"]
    # The subtotal fits, but subtotal + tax does not.
    near = NewLine(description="x", quantity=1, unit_price_cents=2**63 - 10)
    with pytest.raises(InvalidFields):
        compute_totals([near], Decimal("20"), tax_exempt=False)
    assert compute_totals([near], Decimal("20"), tax_exempt=True).total_cents == 2**63 - 10


async def test_sku_lines_reserve_stock_and_bump_the_sku(client):
    s = await shop()
    tee = await factories.sku(s.ws, "TEE-BLK-M", on_hand=5, reserved=1)
    hoodie = await factories.sku(s.ws, "HOOD-GRY-L", on_hand=100)
    untouched = await factories.sku(s.ws, "CAP-RED", on_hand=7)
    stamp = (await Sku.select(Sku.updated_at).where(Sku.id == untouched.id).first())["updated_at"]
    body = order_body(
        s.customer.id,
        lines=[
            line(sku="TEE-BLK-M", quantity=4),
            line(description="No stock line"),
            line(sku="HOOD-GRY-L", quantity=3),
            line(sku="TEE-BLK-M", quantity=6),
        ],
    )
    response = await create(client, s.auth, body)
    assert response.status_code == 201, response.text
    assert [item["sku"] for item in response.json()["lines"]] == [
        "TEE-BLK-M",
        None,
        "HOOD-GRY-L",
        "TEE-BLK-M",
    ]
    levels = {
        row["id"]: row
        for row in await Sku.select(Sku.id, Sku.on_hand, Sku.reserved, Sku.updated_at)
    }
    # Shortages are allowed: TEE has 5 on hand and 11 reserved (available -6).
    assert (levels[tee.id]["on_hand"], levels[tee.id]["reserved"]) == (5, 11)
    assert (levels[hoodie.id]["on_hand"], levels[hoodie.id]["reserved"]) == (100, 3)
    assert (levels[untouched.id]["on_hand"], levels[untouched.id]["reserved"]) == (7, 0)
    assert levels[untouched.id]["updated_at"] == stamp
    created = dt.datetime.fromisoformat(response.json()["created_at"])
    assert levels[tee.id]["updated_at"] >= created
    inventory = await client.get("/api/v1/inventory", params={"search": "TEE"}, headers=s.auth)
    assert inventory.json()["data"][0]["available"] == -6


async def test_discontinued_skus_may_be_ordered(client):
    s = await shop()
    old = await factories.sku(s.ws, "OLD-TEE", on_hand=0, discontinued=True)
    response = await create(client, s.auth, order_body(s.customer.id, lines=[line(sku="OLD-TEE")]))
    assert response.status_code == 201, response.text
    row = await Sku.select(Sku.reserved).where(Sku.id == old.id).first()
    assert row["reserved"] == 10


async def test_a_reservation_past_the_stock_column_is_refused(client):
    s = await shop()
    await factories.sku(s.ws, "BULK", on_hand=0, reserved=2**31 - 15)
    ok = line(sku="BULK", quantity=5)
    response = await create(client, s.auth, order_body(s.customer.id, lines=[ok, ok, ok, ok]))
    assert response.status_code == 422
    assert response.json()["errors"] == {
        f"lines.{i}.sku": [f"The lines.{i}.sku reservation would exceed the SKU's stock limits."]
        for i in range(4)
    }
    assert await Order.count() == 0
    assert (
        await create(client, s.auth, order_body(s.customer.id, lines=[ok, ok]))
    ).status_code == 201


async def test_create_moves_the_customers_updated_at(client):
    s = await shop()
    old = clock.now() - dt.timedelta(days=3)
    await Customer.update({Customer.updated_at: old}).where(Customer.id == s.customer.id)
    assert (await create(client, s.auth, order_body(s.customer.id))).status_code == 201
    row = await Customer.select(Customer.updated_at).where(Customer.id == s.customer.id).first()
    assert row["updated_at"] > old


# --- the checks that need the database ------------------------------------------------------


async def test_a_customer_of_another_workspace_is_a_customer_id_error(client):
    s = await shop()
    other = await shop()
    for customer_id in (other.customer.id, 999_999, 2**40):
        response = await create(client, s.auth, order_body(customer_id))
        assert response.status_code == 422, response.text
        assert response.json() == {
            "message": "The selected customer_id is invalid.",
            "code": "validation_failed",
            "errors": {"customer_id": ["The selected customer_id is invalid."]},
            "details": {},
        }
    assert await Order.count() == 0


async def test_unknown_and_foreign_skus_are_errors_on_their_line(client):
    s = await shop()
    other = await shop()
    await factories.sku(s.ws, "MINE")
    await factories.sku(other.ws, "THEIRS")
    body = order_body(
        s.customer.id, lines=[line(sku="MINE"), line(sku="THEIRS"), line(), line(sku="NOPE")]
    )
    response = await create(client, s.auth, body)
    assert response.status_code == 422
    assert response.json()["errors"] == {
        "lines.1.sku": ["The selected lines.1.sku is invalid."],
        "lines.3.sku": ["The selected lines.3.sku is invalid."],
    }


async def test_external_ref_is_unique_per_workspace_and_names_the_order(client):
    s = await shop()
    other = await shop()
    first = await create(client, s.auth, order_body(s.customer.id, external_ref="shop-42"))
    assert first.status_code == 201
    again = await create(client, s.auth, order_body(s.customer.id, external_ref="shop-42"))
    assert again.status_code == 422
    message = f"The external_ref has already been taken by order {first.json()['id']}."
    assert again.json() == {
        "message": message,
        "code": "external_ref_taken",
        "errors": {"external_ref": [message]},
        "details": {"order_id": first.json()["id"]},
    }
    # Another workspace may use the same reference; orders without one never clash.
    assert (
        await create(client, other.auth, order_body(other.customer.id, external_ref="shop-42"))
    ).status_code == 201
    for _ in range(2):
        assert (await create(client, s.auth, order_body(s.customer.id))).status_code == 201


@pytest.mark.parametrize("plan", ["premium", "enterprise"])  # with and without a limit to count
async def test_a_taken_external_ref_is_a_field_error_before_the_plan_limit(client, plan):
    s = await shop(plan=plan)
    first = await create(client, s.auth, order_body(s.customer.id, external_ref="shop-7"))
    assert first.status_code == 201
    await _open_orders(s.ws, s.customer, 499)  # premium is now at its limit of 500
    again = await create(client, s.auth, order_body(s.customer.id, external_ref="shop-7"))
    assert again.status_code == 422
    message = f"The external_ref has already been taken by order {first.json()['id']}."
    assert again.json() == {
        "message": message,
        "code": "external_ref_taken",
        "errors": {"external_ref": [message]},
        "details": {"order_id": first.json()["id"]},
    }
    fresh = await create(client, s.auth, order_body(s.customer.id, external_ref="shop-8"))
    assert fresh.status_code == (201 if plan == "enterprise" else 422), fresh.text


async def test_every_database_check_is_reported_at_once(client):
    s = await shop()
    await create(client, s.auth, order_body(s.customer.id, external_ref="dup"))
    body = order_body(999_999, external_ref="dup", lines=[line(sku="NOPE")])
    response = await create(client, s.auth, body)
    assert response.status_code == 422
    assert set(response.json()["errors"]) == {"customer_id", "external_ref", "lines.0.sku"}
    assert response.json()["message"].endswith("(and 2 more errors)")


# --- the open-order limit -------------------------------------------------------------------


async def test_the_open_order_limit_refuses_with_the_reason(client):
    s = await shop(open_order_limit=2)
    for _ in range(2):
        assert (await create(client, s.auth, order_body(s.customer.id))).status_code == 201
    response = await create(client, s.auth, order_body(s.customer.id))
    assert response.status_code == 422
    assert response.json() == {
        "message": (
            "The workspace has reached its limit of 2 open orders (premium plan); "
            "dispatch or cancel orders, or upgrade the plan."
        ),
        "code": "plan_limit",
        "errors": {},
        "details": {"limit": 2, "plan": "premium"},
    }


async def test_dispatched_and_cancelled_orders_do_not_count(client):
    s = await shop(open_order_limit=1)
    await factories.order(s.ws, s.customer, stage="dispatched")
    await factories.order(s.ws, s.customer, stage="cancelled")
    assert (await create(client, s.auth, order_body(s.customer.id))).status_code == 201
    assert (await create(client, s.auth, order_body(s.customer.id))).status_code == 422


async def _open_orders(ws, customer, count: int) -> None:
    now = clock.now()
    await Order.insert(
        *[
            Order(
                workspace=ws.id,
                customer=customer.id,
                number=f"OLD-{i}",
                number_year=2000,
                number_seq=i,
                currency="GBP",
                created_at=now,
                updated_at=now,
            )
            for i in range(count)
        ]
    )


@pytest.mark.parametrize(("plan", "allowed"), [("premium", False), ("enterprise", True)])
async def test_plan_limits_without_an_override(client, plan, allowed):
    s = await shop(plan=plan)
    await _open_orders(s.ws, s.customer, 500)
    response = await create(client, s.auth, order_body(s.customer.id))
    assert response.status_code == (201 if allowed else 422), response.text
    if not allowed:
        assert "limit of 500 open orders" in response.json()["message"]


async def test_a_trial_counts_as_premium_for_the_limit(client):
    s = await shop(plan="starter", trial_ends_at=clock.now() + dt.timedelta(days=3))
    await _open_orders(s.ws, s.customer, 499)
    assert (await create(client, s.auth, order_body(s.customer.id))).status_code == 201
    response = await create(client, s.auth, order_body(s.customer.id))
    assert response.status_code == 422
    assert "(premium plan)" in response.json()["message"]


# --- failures write nothing -----------------------------------------------------------------


async def test_a_refused_create_writes_nothing(client):
    s = await shop(open_order_limit=1)
    await subscription(s.ws)
    await factories.sku(s.ws, "TEE", on_hand=10)
    assert (await create(client, s.auth, order_body(s.customer.id))).status_code == 201
    before = await snapshot()
    refused = await create(client, s.auth, order_body(s.customer.id, lines=[line(sku="TEE")]))
    assert refused.status_code == 422
    invalid = await create(client, s.auth, order_body(s.customer.id, lines=[line(sku="NOPE")]))
    assert invalid.status_code == 422
    assert await snapshot() == before


async def test_a_create_failing_midway_rolls_everything_back(client):
    """An order inserted behind the counter's back makes the drawn number clash: the create
    fails after drawing it, and the counter must not have moved (no gap, nothing reserved)."""
    s = await shop()
    await factories.sku(s.ws, "TEE", on_hand=10)
    year = clock.now().year
    clash = await factories.order(s.ws, s.customer)
    await Order.update({Order.number: f"ORD-{year}-0001"}).where(Order.id == clash.id)
    before = await snapshot()
    response = await create(client, s.auth, order_body(s.customer.id, lines=[line(sku="TEE")]))
    assert response.status_code == 500
    assert await snapshot() == before


async def test_a_reservation_that_would_overflow_at_write_time_is_refused_and_kept_out(client):
    """`reserved` is checked when the SKUs are read and again by the UPDATE itself, so a
    reservation racing past the column's limit is refused, never wrapped or a 500."""
    ws, _, _ = await factories.account()
    near_full = await factories.sku(ws, "FULL", reserved=2**31 - 5)
    roomy = await factories.sku(ws, "ROOMY", reserved=3)
    async with db.transaction():
        refused = await stock.reserve(
            {near_full.id: 5, roomy.id: 4}, clock.now(), order_id=None, actor=OPERATOR
        )
    assert refused == {near_full.id}
    rows = await Sku.select(Sku.id, Sku.reserved).where(Sku.workspace == ws.id)
    assert {row["id"]: row["reserved"] for row in rows} == {near_full.id: 2**31 - 5, roomy.id: 7}


# --- cost -------------------------------------------------------------------------------------


async def test_a_create_costs_a_few_statements_whatever_its_size(client, statements):
    """One statement per step, not per line: the same count for 1 line or 100, plus one
    stock update per distinct SKU; nothing is read back for the response. The step counted
    last is the order.created event (its row, and the subscriptions that may want it)."""
    s = await shop()
    for code in ("A", "B", "C"):
        await factories.sku(s.ws, code)

    async def cost(lines: list[dict[str, Any]]) -> list[str]:
        statements.clear()
        response = await create(client, s.auth, order_body(s.customer.id, lines=lines))
        assert response.status_code == 201, response.text
        return list(statements)

    first = await cost([line()])  # the year's first number also creates its counter
    one = await cost([line()])
    assert len(first) == len(one) + 2, first
    hundred = await cost([line()] * 100)
    skus = await cost([line(sku="A"), line(sku="B"), line(sku="A"), line(sku="C")])
    assert len(one) == len(hundred) <= 11, one
    assert len(skus) == len(one) + 3 + 1, skus  # and one INSERT of their stock movements
    read_back = ("order_lines", "stage_history", "artwork", "invoices")
    selects = [sql for sql in one if sql.lstrip().upper().startswith("SELECT")]
    assert not [sql for sql in selects if any(f"FROM {t}" in sql for t in read_back)], selects
