"""Invoices through HTTP: the list (newest first, 50 a page, its filters), the
detail's every field, its ETag and If-None-Match 304, the due date from the customer's payment
terms, and another workspace's invoices never shown."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from models.tables import Invoice
from tests import factories
from tests.api.order_helpers import Shop, advance, create, order_body, shop

UTC_FORM = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$")


async def _invoices(s: Shop, count: int, **fields) -> list[Invoice]:
    made = []
    for _ in range(count):
        order = await factories.order(s.ws, s.customer, stage="dispatched")
        made.append(await factories.invoice(order, **fields))
    return made


async def _list(client, s: Shop, **params):
    answer = await client.get(
        "/api/v1/invoices", params=params, headers=await factories.caller(s.ws)
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


async def _get(client, s: Shop, invoice_id: int, **headers: str):
    auth = await factories.caller(s.ws)
    return await client.get(f"/api/v1/invoices/{invoice_id}", headers={**auth, **headers})


async def test_the_list_is_newest_first_with_every_field(client) -> None:
    s = await shop()
    older, newer = await _invoices(s, 2, total=12_000)

    body = await _list(client, s)

    assert [row["id"] for row in body["data"]] == [newer.id, older.id]
    assert (body["total"], body["per_page"], body["current_page"], body["last_page"]) == (
        2,
        50,
        1,
        1,
    )
    row = body["data"][0]
    assert list(row) == [
        "id", "number", "status", "order", "customer", "total_cents", "paid_cents",
        "balance_cents", "currency", "issued_at", "due_at", "paid_at", "created_at", "updated_at",
    ]  # fmt: skip
    assert row["number"] == newer.number and row["status"] == "issued"
    assert row["order"] == {"id": newer.order, "number": row["order"]["number"]}
    assert row["order"]["number"].startswith("ORD-")
    assert row["customer"] == {"id": s.customer.id, "name": "Acme Tees", "slug": s.customer.slug}
    assert (row["total_cents"], row["paid_cents"], row["balance_cents"]) == (12_000, 0, 12_000)
    assert row["currency"] == "GBP" and row["paid_at"] is None
    for stamp in ("issued_at", "due_at", "created_at", "updated_at"):
        assert UTC_FORM.match(row[stamp]), (stamp, row[stamp])


async def test_filters_by_status_customer_and_updated_since(client) -> None:
    s = await shop()
    issued = await _invoices(s, 2)
    (paid,) = await _invoices(s, 1, status="paid")
    other = await factories.customer(s.ws, "Bolt Bikes")
    theirs = await factories.invoice(await factories.order(s.ws, other, stage="dispatched"))
    later = dt.datetime(2031, 1, 1, tzinfo=dt.UTC)
    await Invoice.update({Invoice.updated_at: later}).where(Invoice.id == issued[0].id)

    def ids(body) -> list[int]:
        return [row["id"] for row in body["data"]]

    assert ids(await _list(client, s, status="paid")) == [paid.id]
    assert ids(await _list(client, s, status="issued")) == [theirs.id, issued[1].id, issued[0].id]
    assert ids(await _list(client, s, status="void")) == []
    assert ids(await _list(client, s, customer=other.slug)) == [theirs.id]
    assert ids(await _list(client, s, customer=other.slug, status="paid")) == []
    assert ids(await _list(client, s, customer="nobody")) == []
    assert ids(await _list(client, s, customer="x" * 500)) == []
    assert ids(await _list(client, s, updated_since="2030-12-31T23:00:00-01:00")) == [issued[0].id]
    assert ids(await _list(client, s, updated_since="2031-01-01T00:00:01Z")) == []


async def test_filters_by_order(client) -> None:
    s = await shop()
    order = await factories.order(s.ws, s.customer, stage="dispatched")
    first = await factories.invoice(order, status="void")
    second = await factories.invoice(order)
    (elsewhere,) = await _invoices(s, 1)
    theirs = await shop()
    (their_invoice,) = await _invoices(theirs, 1)

    def ids(body) -> list[int]:
        return [row["id"] for row in body["data"]]

    assert ids(await _list(client, s, order=str(order.id))) == [second.id, first.id]
    assert ids(await _list(client, s, order=order.id, status="void")) == [first.id]
    assert ids(await _list(client, s, order=elsewhere.order)) == [elsewhere.id]
    body = await _list(client, s, order=their_invoice.order)  # another workspace's order
    assert (body["data"], body["total"]) == ([], 0)
    assert ids(await _list(client, s, order="2147483647")) == []  # no such order
    assert ids(await _list(client, theirs, order=order.id)) == []


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"status": "open"}, "status"),
        ({"updated_since": "yesterday"}, "updated_since"),
        ({"page": "0"}, "page"),
        ({"page": "two"}, "page"),
        ({"order": "abc"}, "order"),
        ({"order": "1.5"}, "order"),
        ({"order": "0"}, "order"),
        ({"order": "-3"}, "order"),
        ({"order": "2147483648"}, "order"),
        ({"order": ""}, "order"),
    ],
)
async def test_bad_parameters_are_422_naming_them(client, params, field) -> None:
    s = await shop()

    answer = await client.get(
        "/api/v1/invoices", params=params, headers=await factories.caller(s.ws)
    )

    assert answer.status_code == 422, answer.text
    assert list(answer.json()["errors"]) == [field]


async def test_a_bad_order_filter_is_named_with_the_others_in_one_422(client) -> None:
    s = await shop()

    answer = await client.get(
        "/api/v1/invoices",
        params={"order": "abc", "status": "open", "page": "0"},
        headers=await factories.caller(s.ws),
    )

    assert answer.status_code == 422, answer.text
    errors = answer.json()["errors"]
    assert set(errors) == {"order", "status", "page"}
    assert errors["order"] == ["The order parameter must be an integer."]


async def test_fifty_a_page_with_links_that_keep_the_filters(client) -> None:
    s = await shop()
    made = await _invoices(s, 51)

    first = await _list(client, s, status="issued")
    second = await _list(client, s, status="issued", page=2)
    past = await _list(client, s, status="issued", page=3)

    assert len(first["data"]) == 50 and first["last_page"] == 2 and first["total"] == 51
    assert [row["id"] for row in second["data"]] == [made[0].id]
    assert first["links"]["next"] == "http://testserver/api/v1/invoices?status=issued&page=2"
    assert first["links"]["prev"] is None and second["links"]["next"] is None
    assert past["data"] == [] and past["total"] == 51


async def test_the_detail_has_its_payments_and_an_etag(client) -> None:
    s = await shop()
    (invoice,) = await _invoices(s, 1, total=5_000)
    auth = await factories.caller(s.ws)
    paid = await client.post(
        f"/api/v1/invoices/{invoice.id}/payments",
        json={"amount_cents": 1_500, "method": "cheque", "reference": "CHQ 000123"},
        headers=auth,
    )
    assert paid.status_code == 201, paid.text

    answer = await _get(client, s, invoice.id)

    assert answer.status_code == 200
    detail = answer.json()
    assert detail == paid.json()["invoice"]
    assert (detail["paid_cents"], detail["balance_cents"], detail["status"]) == (
        1_500,
        3_500,
        "issued",
    )
    (payment,) = detail["payments"]
    assert list(payment) == [
        "id",
        "amount_cents",
        "method",
        "reference",
        "paid_at",
        "voided_at",
        "void_reason",
    ]
    assert (payment["amount_cents"], payment["method"], payment["reference"]) == (
        1_500,
        "cheque",
        "CHQ 000123",
    )
    etag = answer.headers["ETag"]
    assert re.fullmatch(r'"[0-9a-f]{32}"', etag)

    same = await _get(client, s, invoice.id, **{"If-None-Match": etag})
    weak = await _get(client, s, invoice.id, **{"If-None-Match": f'"other", W/{etag}'})
    assert (same.status_code, same.content, same.headers["ETag"]) == (304, b"", etag)
    assert weak.status_code == 304

    more = await client.post(
        f"/api/v1/invoices/{invoice.id}/payments",
        json={"amount_cents": 3_500, "method": "cash"},
        headers=auth,
    )
    assert more.status_code == 201
    changed = await _get(client, s, invoice.id, **{"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert changed.json()["status"] == "paid"


@pytest.mark.parametrize(("terms", "days"), [("net_15", 15), ("net_60", 60), ("prepaid", 0)])
async def test_dispatch_issues_the_invoice_due_by_the_customers_terms(client, terms, days) -> None:
    s = await shop()
    await s.customer.update_self({"payment_terms": terms})
    created = await create(client, s.auth, order_body(s.customer.id))
    assert created.status_code == 201, created.text
    moved = await advance(client, s.auth, created.json()["id"], "dispatched")
    assert moved.status_code == 200, moved.text

    (row,) = (await _list(client, s))["data"]

    issued = dt.datetime.fromisoformat(row["issued_at"])
    assert dt.datetime.fromisoformat(row["due_at"]) == issued + dt.timedelta(days=days)
    assert row["total_cents"] == created.json()["totals"]["total_cents"] == row["balance_cents"]
    assert row["order"] == {"id": created.json()["id"], "number": created.json()["number"]}
    # Later terms do not move an invoice already issued.
    await s.customer.update_self({"payment_terms": "net_7"})
    assert (await _get(client, s, row["id"])).json()["due_at"] == row["due_at"]


async def test_another_workspaces_invoices_are_never_shown(client) -> None:
    mine = await shop()
    theirs = await shop()
    (own,) = await _invoices(mine, 1)
    (other,) = await _invoices(theirs, 1)

    assert [row["id"] for row in (await _list(client, mine))["data"]] == [own.id]
    assert (await _list(client, mine, customer=theirs.customer.slug))["data"] == []
    for invoice_id in (other.id, 0, 2**31, 10**20):
        answer = await _get(client, mine, invoice_id)
        assert answer.status_code == 404, (invoice_id, answer.text)
    missing = await _get(client, mine, other.id)
    assert missing.json() == {"message": "Invoice not found", "code": "not_found", "details": {}}
    by_number = await client.get(
        f"/api/v1/invoices/{own.number}", headers=await factories.caller(mine.ws)
    )
    assert by_number.status_code == 404
