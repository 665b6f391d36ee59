"""Payments through HTTP: `POST /invoices/{id}/payments` from 1 to the balance,
the invoice paid when the balance reaches 0, its events exactly once, refusals that change
nothing, two payments racing for one balance, and idempotent replays."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from typing import Any

import httpx
import pytest

from models import clock
from models.tables import Invoice, Payment, WebhookEvent
from tests import factories
from tests.api.order_helpers import Shop, shop

TOTAL = 10_000


async def _invoice(s: Shop, *, total: int = TOTAL, status: str = "issued") -> Invoice:
    order = await factories.order(s.ws, s.customer, stage="dispatched")
    return await factories.invoice(order, status=status, total=total)


async def _pay(
    client: httpx.AsyncClient, s: Shop, invoice_id: int, body: Any, **headers: str
) -> httpx.Response:
    auth = await factories.caller(s.ws)  # rate limits count per user
    return await client.post(
        f"/api/v1/invoices/{invoice_id}/payments", json=body, headers={**auth, **headers}
    )


async def _events(name: str) -> list[dict[str, Any]]:
    rows = (
        await WebhookEvent.select(WebhookEvent.body)
        .where(WebhookEvent.name == name)
        .order_by(WebhookEvent.id)
    )
    return [json.loads(row["body"]) for row in rows]


async def _state(invoice_id: int) -> tuple[Any, ...]:
    row = (
        await Invoice.select(
            Invoice.status, Invoice.paid_cents, Invoice.paid_at, Invoice.updated_at
        )
        .where(Invoice.id == invoice_id)
        .first()
    )
    return (
        row["status"],
        row["paid_cents"],
        row["paid_at"],
        row["updated_at"],
        await Payment.count().where(Payment.invoice == invoice_id),
        await WebhookEvent.count(),
    )


async def test_a_part_then_the_balance_makes_the_invoice_paid(client) -> None:
    s = await shop()
    invoice = await _invoice(s)

    part = await _pay(
        client,
        s,
        invoice.id,
        {"amount_cents": 2_500, "method": "bank_transfer", "reference": "DEP-1"},
    )

    assert part.status_code == 201, part.text
    receipt = part.json()
    assert receipt["payment"]["amount_cents"] == 2_500
    assert receipt["payment"]["method"] == "bank_transfer"
    assert receipt["payment"]["reference"] == "DEP-1"
    assert receipt["invoice"]["status"] == "issued"
    assert (receipt["invoice"]["paid_cents"], receipt["invoice"]["balance_cents"]) == (2_500, 7_500)
    assert receipt["invoice"]["paid_at"] is None
    assert receipt["invoice"]["payments"] == [receipt["payment"]]
    assert await _events("invoice.paid") == []

    rest = await _pay(client, s, invoice.id, {"amount_cents": 7_500, "method": "card"})

    assert rest.status_code == 201, rest.text
    paid = rest.json()["invoice"]
    assert (paid["status"], paid["paid_cents"], paid["balance_cents"]) == ("paid", TOTAL, 0)
    assert paid["paid_at"] == rest.json()["payment"]["paid_at"]
    assert [p["amount_cents"] for p in paid["payments"]] == [2_500, 7_500]
    assert paid["payments"][1]["reference"] is None
    received = await _events("invoice.payment_received")
    assert [(e["amount_cents"], e["paid_cents"], e["balance_cents"]) for e in received] == [
        (2_500, 2_500, 7_500),
        (7_500, TOTAL, 0),
    ]
    first = received[0]
    assert {k: first[k] for k in ("invoice_id", "invoice_number", "order_id", "customer_id")} == {
        "invoice_id": invoice.id,
        "invoice_number": invoice.number,
        "order_id": invoice.order,
        "customer_id": s.customer.id,
    }
    assert (first["method"], first["reference"], first["currency"]) == (
        "bank_transfer",
        "DEP-1",
        "GBP",
    )
    assert first["payment_id"] == receipt["payment"]["id"]
    settled = await _events("invoice.paid")
    assert len(settled) == 1
    assert (settled[0]["invoice_number"], settled[0]["invoice_status"]) == (invoice.number, "paid")


async def test_lifetime_value_counts_only_paid_invoices(client) -> None:
    s = await shop()
    invoice = await _invoice(s)

    async def lifetime() -> int:
        auth = await factories.caller(s.ws)
        answer = await client.get(f"/api/v1/customers/{s.customer.id}", headers=auth)
        return int(answer.json()["lifetime_value_cents"])

    assert (
        await _pay(client, s, invoice.id, {"amount_cents": 1, "method": "cash"})
    ).status_code == 201
    assert await lifetime() == 0
    assert (
        await _pay(client, s, invoice.id, {"amount_cents": TOTAL - 1, "method": "cash"})
    ).status_code == 201
    assert await lifetime() == TOTAL


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"amount_cents": 0, "method": "cash"}, "amount_cents", "must be at least 1"),
        ({"amount_cents": -5, "method": "cash"}, "amount_cents", "must be at least 1"),
        ({"amount_cents": TOTAL + 1, "method": "cash"}, "amount_cents", f"the balance, {TOTAL}"),
        ({"amount_cents": 10**30, "method": "cash"}, "amount_cents", "must not be greater than"),
        ({"amount_cents": 2**63, "method": "cash"}, "amount_cents", "must not be greater than"),
        ({"amount_cents": "100", "method": "cash"}, "amount_cents", "must be an integer"),
        ({"amount_cents": 1.5, "method": "cash"}, "amount_cents", "must be an integer"),
        ({"amount_cents": True, "method": "cash"}, "amount_cents", "must be an integer"),
        ({"amount_cents": None, "method": "cash"}, "amount_cents", "is required"),
        ({"method": "cash"}, "amount_cents", "is required"),
        ({"amount_cents": 100}, "method", "is required"),
        ({"amount_cents": 100, "method": "bitcoin"}, "method", "use one of: card, bank_transfer"),
        ({"amount_cents": 100, "method": 3}, "method", "is invalid"),
        (
            {"amount_cents": 100, "method": "cash", "reference": "r" * 101},
            "reference",
            "100 characters",
        ),
        ({"amount_cents": 100, "method": "cash", "reference": "a\nb"}, "reference", "one line"),
        ({"amount_cents": 100, "method": "cash", "reference": 7}, "reference", "must be a string"),
        ({"amount_cents": 100, "method": "cash", "paid_at": "yesterday"}, "paid_at", "date-time"),
        (
            {"amount_cents": 100, "method": "cash", "paid_at": "2999-01-01T00:00:00Z"},
            "paid_at",
            "future",
        ),
        (
            {"amount_cents": 100, "method": "cash", "paid_at": "1969-12-31T23:59:59Z"},
            "paid_at",
            "before 1970-01-01",
        ),
        (
            {"amount_cents": 100, "method": "cash", "paid_at": "0001-01-01T00:00:00+05:00"},
            "paid_at",
            "before 1970-01-01",
        ),
    ],
)
async def test_refused_payments_change_nothing(client, body, field, words) -> None:
    s = await shop()
    invoice = await _invoice(s)
    before = await _state(invoice.id)

    answer = await _pay(client, s, invoice.id, body)

    assert answer.status_code == 422, answer.text
    errors = answer.json()["errors"]
    assert field in errors and words in " ".join(errors[field]), errors
    assert await _state(invoice.id) == before


async def test_bodies_that_are_not_objects_are_422(client) -> None:
    s = await shop()
    invoice = await _invoice(s)
    auth = await factories.caller(s.ws)
    for raw in (b"[]", b"{", b'"x"'):
        answer = await client.post(
            f"/api/v1/invoices/{invoice.id}/payments",
            content=raw,
            headers={**auth, "Content-Type": "application/json"},
        )
        assert answer.status_code == 422, answer.text
        assert set(answer.json()["errors"]) == {"body"}
    assert await Payment.count() == 0


async def test_a_paid_invoice_takes_nothing_more_and_a_void_one_nothing(client) -> None:
    s = await shop()
    paid = await _invoice(s, status="paid")
    void = await _invoice(s, status="void")

    more = await _pay(client, s, paid.id, {"amount_cents": 1, "method": "cash"})
    refused = await _pay(client, s, void.id, {"amount_cents": 1, "method": "cash"})

    assert more.status_code == 422
    assert more.json()["errors"]["amount_cents"] == [
        "The amount_cents field must not be greater than the balance, 0 (GBP minor units)."
    ]
    assert refused.status_code == 422
    assert refused.json() == {
        "message": f"Invoice {void.number} is void; only an issued invoice takes payments.",
        "code": "invoice_not_payable",
        "errors": {},
        "details": {},
    }
    assert (await Payment.count(), await WebhookEvent.count()) == (0, 0)


async def test_paid_at_is_kept_and_a_time_without_offset_is_utc(client) -> None:
    s = await shop()
    invoice = await _invoice(s)

    answer = await _pay(
        client, s, invoice.id,
        {"amount_cents": TOTAL, "method": "cheque", "paid_at": "2026-03-01T09:30:00"},
    )  # fmt: skip

    assert answer.status_code == 201, answer.text
    assert answer.json()["payment"]["paid_at"] == "2026-03-01T09:30:00+00:00"
    assert answer.json()["invoice"]["paid_at"] == "2026-03-01T09:30:00+00:00"
    stored = await Payment.select(Payment.paid_at, Payment.actor_kind, Payment.token).first()
    assert stored["paid_at"] == dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.UTC)
    assert stored["actor_kind"] == "token" and stored["token"] is not None


@pytest.mark.parametrize(
    ("amounts", "accepted"),
    [
        ((6_000, 6_000), 1),  # together more than the balance: one is refused
        ((TOTAL, TOTAL), 1),  # each the whole balance: paid once, never twice
        ((4_000, 6_000), 2),  # together exactly the balance: both, paid once
    ],
)
async def test_two_payments_at_once_never_overpay(client, amounts, accepted) -> None:
    s = await shop()
    invoice = await _invoice(s)

    answers = await asyncio.gather(
        *(_pay(client, s, invoice.id, {"amount_cents": a, "method": "card"}) for a in amounts)
    )

    codes = sorted(answer.status_code for answer in answers)
    assert codes == sorted([201] * accepted + [422] * (2 - accepted)), [a.text for a in answers]
    made = [a for a in answers if a.status_code == 201]
    paid = sum(a.json()["payment"]["amount_cents"] for a in made)
    row = (
        await Invoice.select(Invoice.paid_cents, Invoice.status)
        .where(Invoice.id == invoice.id)
        .first()
    )
    assert row["paid_cents"] == paid <= TOTAL
    stored = await Payment.select(Payment.amount_cents).where(Payment.invoice == invoice.id)
    assert sum(p["amount_cents"] for p in stored) == paid
    for refused in (a for a in answers if a.status_code == 422):
        assert f"the balance, {TOTAL - paid}" in refused.json()["errors"]["amount_cents"][0]
    assert len(await _events("invoice.payment_received")) == accepted
    assert len(await _events("invoice.paid")) == (1 if paid == TOTAL else 0)
    assert row["status"] == ("paid" if paid == TOTAL else "issued")


async def test_a_retry_with_the_same_key_is_the_first_answer(client) -> None:
    s = await shop()
    invoice = await _invoice(s)
    auth = await factories.caller(s.ws)
    url = f"/api/v1/invoices/{invoice.id}/payments"
    body = {"amount_cents": 3_000, "method": "card", "reference": "ch_1"}
    key = {"Idempotency-Key": "pay-ch_1"}

    first = await client.post(url, json=body, headers={**auth, **key})
    again = await client.post(url, json=body, headers={**auth, **key})
    other = await client.post(url, json={**body, "amount_cents": 1}, headers={**auth, **key})

    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.content == first.content
    assert other.status_code == 422
    assert await Payment.count() == 1
    assert len(await _events("invoice.payment_received")) == 1
    bad_key = await client.post(url, json=body, headers={**auth, "Idempotency-Key": " "})
    assert bad_key.status_code == 422 and "Idempotency-Key" in bad_key.json()["errors"]


async def test_payments_count_against_the_write_limit(client) -> None:
    s = await shop()
    invoice = await _invoice(s)
    auth = await factories.caller(s.ws)
    url = f"/api/v1/invoices/{invoice.id}/payments"

    first = await client.post(url, json={"amount_cents": 1, "method": "cash"}, headers=auth)
    second = await client.post(url, json={"amount_cents": 0, "method": "cash"}, headers=auth)

    assert first.headers["X-RateLimit-Limit"] == "20"
    assert (
        int(second.headers["X-RateLimit-Remaining"])
        == int(first.headers["X-RateLimit-Remaining"]) - 1
    )


async def test_another_workspaces_invoice_is_404_and_untouched(client) -> None:
    mine = await shop()
    theirs = await shop()
    invoice = await _invoice(theirs)
    before = await _state(invoice.id)

    for invoice_id in (invoice.id, 2**31, 999_999_999):
        answer = await _pay(client, mine, invoice_id, {"amount_cents": 1, "method": "cash"})
        assert answer.status_code == 404, answer.text
        assert answer.json() == {"message": "Invoice not found", "code": "not_found", "details": {}}
    assert await _state(invoice.id) == before


async def test_the_paid_at_default_is_now(client) -> None:
    s = await shop()
    invoice = await _invoice(s)
    start = clock.now().replace(microsecond=0)

    answer = await _pay(client, s, invoice.id, {"amount_cents": 5, "method": "other"})

    paid_at = dt.datetime.fromisoformat(answer.json()["payment"]["paid_at"])
    assert start <= paid_at <= clock.now()
