"""Voiding payments through HTTP: `POST /payments/{id}/void` (an owner's token, a reason)
answers the invoice as `GET /invoices/{id}` does, gives the balance back, reopens a paid
invoice, keeps the payment with when, who and why, records `payment.voided` once; a second
void, a staff token, another workspace's payment and bad bodies change nothing; two voids at
once void once."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from models.actors import OPERATOR
from models.invoices import payments
from models.invoices.status import PaymentMethod
from models.tables import Customer, Invoice, Order, Payment, WebhookEvent
from tests import factories
from tests.api.order_helpers import Shop, shop

TOTAL = 10_000


async def _invoice(s: Shop, *paid: int) -> tuple[Invoice, list[int]]:
    """An issued invoice of TOTAL with payments of `paid` (ids in that order)."""
    order = await factories.order(s.ws, s.customer, stage="dispatched")
    invoice = await factories.invoice(order, total=TOTAL)
    ids = []
    for amount in paid:
        recorded = await payments.record_payment(
            workspace_id=s.ws.id, invoice=invoice.id, amount_cents=amount,
            method=PaymentMethod.CHEQUE, reference=f"CHQ-{amount}", actor=OPERATOR,
        )  # fmt: skip
        assert recorded.payment_id is not None
        ids.append(recorded.payment_id)
    return invoice, ids


async def _void(
    client: httpx.AsyncClient, auth: dict[str, str], payment_id: object, body: Any, **headers: str
) -> httpx.Response:
    return await client.post(
        f"/api/v1/payments/{payment_id}/void", json=body, headers={**auth, **headers}
    )


async def _events(name: str) -> list[dict[str, Any]]:
    rows = await WebhookEvent.select(WebhookEvent.body).where(WebhookEvent.name == name)
    return [json.loads(row["body"]) for row in rows]


async def _state(invoice_id: int) -> tuple[Any, ...]:
    invoice = await Invoice.select(
        Invoice.status, Invoice.paid_cents, Invoice.paid_at, Invoice.updated_at
    ).where(Invoice.id == invoice_id)
    voids = await Payment.select(
        Payment.id, Payment.voided_at, Payment.voided_by, Payment.void_reason
    ).where(Payment.invoice == invoice_id).order_by(Payment.id)  # fmt: skip
    return invoice[0], voids, await WebhookEvent.count()


async def test_a_void_gives_the_balance_back_and_keeps_the_payment(client) -> None:
    s = await shop()
    invoice, (first, second) = await _invoice(s, 2_500, 4_000)
    before = await Invoice.select(Invoice.updated_at).where(Invoice.id == invoice.id).first()

    answer = await _void(client, s.auth, first, {"reason": "  Cheque returned unpaid  "})

    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["id"], body["status"]) == (invoice.id, "issued")
    assert (body["paid_cents"], body["balance_cents"]) == (4_000, 6_000)
    voided, kept = body["payments"]
    assert (voided["id"], voided["amount_cents"]) == (first, 2_500)
    assert voided["void_reason"] == "Cheque returned unpaid"
    assert voided["voided_at"] is not None and voided["voided_at"].endswith("+00:00")
    assert (kept["id"], kept["voided_at"], kept["void_reason"]) == (second, None, None)
    detail = await client.get(f"/api/v1/invoices/{invoice.id}", headers=s.auth)
    assert detail.json() == body  # the invoice as GET answers it
    row = await Payment.objects().where(Payment.id == first).first()
    assert (row.voided_by, row.void_reason, row.amount_cents) == (
        s.user.id, "Cheque returned unpaid", 2_500,
    )  # fmt: skip
    after = await Invoice.select(Invoice.updated_at).where(Invoice.id == invoice.id).first()
    assert after["updated_at"] > before["updated_at"]
    [event] = await _events("payment.voided")
    assert {key: event[key] for key in list(event)[4:]} == {
        "invoice_id": invoice.id, "invoice_number": invoice.number, "invoice_status": "issued",
        "order_id": invoice.order, "order_number": body["order"]["number"],
        "customer_id": s.customer.id, "payment_id": first, "amount_cents": 2_500,
        "method": "cheque", "reference": "CHQ-2500", "reason": "Cheque returned unpaid",
        "paid_cents": 4_000, "balance_cents": 6_000, "currency": "GBP",
    }  # fmt: skip
    assert event["workspace_id"] == s.ws.id
    # The balance can be paid again, the voided amount included.
    again = await client.post(
        f"/api/v1/invoices/{invoice.id}/payments",
        json={"amount_cents": 6_000, "method": "card"},
        headers=s.auth,
    )
    assert again.status_code == 201, again.text
    assert again.json()["invoice"]["status"] == "paid"


async def test_voiding_a_settling_payment_reopens_the_invoice(client) -> None:
    s = await shop()
    invoice, (payment,) = await _invoice(s, TOTAL)
    order_before = await Order.select(Order.updated_at).where(Order.id == invoice.order).first()
    customer = f"/api/v1/customers/{s.customer.id}"
    assert (await client.get(customer, headers=s.auth)).json()["lifetime_value_cents"] == TOTAL

    answer = await _void(client, s.auth, payment, {"reason": "Charge refunded"})

    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["status"], body["paid_at"], body["paid_cents"]) == ("issued", None, 0)
    assert body["balance_cents"] == TOTAL
    stored = await Invoice.objects().where(Invoice.id == invoice.id).first()
    assert (stored.status, stored.paid_at, stored.paid_cents) == ("issued", None, 0)
    order_after = await Order.select(Order.updated_at).where(Order.id == invoice.order).first()
    assert order_after["updated_at"] > order_before["updated_at"]
    assert (await client.get(customer, headers=s.auth)).json()["lifetime_value_cents"] == 0
    row = await Customer.select(Customer.updated_at).where(Customer.id == s.customer.id).first()
    assert row["updated_at"] >= stored.updated_at
    [event] = await _events("payment.voided")
    assert (event["invoice_status"], event["balance_cents"]) == ("issued", TOTAL)
    listed = await client.get("/api/v1/events", params={"type": "payment.voided"}, headers=s.auth)
    assert [e["type"] for e in listed.json()["data"]] == ["payment.voided"]


async def test_an_already_voided_payment_is_refused_and_nothing_changes(client) -> None:
    s = await shop()
    invoice, (payment,) = await _invoice(s, 3_000)
    assert (await _void(client, s.auth, payment, {"reason": "Bounced"})).status_code == 200
    before = await _state(invoice.id)

    again = await _void(client, s.auth, payment, {"reason": "Bounced again"})

    assert again.status_code == 422, again.text
    body = again.json()
    assert body["code"] == "payment_already_voided"
    assert body["message"].startswith(f"Payment {payment} was already voided on ")
    assert body["message"].endswith("UTC; it no longer counts towards the invoice.")
    assert (body["errors"], body["details"]) == ({}, {"payment_id": payment})
    assert await _state(invoice.id) == before


async def test_a_staff_token_is_403_and_changes_nothing(client) -> None:
    s = await shop()
    invoice, (payment,) = await _invoice(s, 3_000)
    staff = await factories.headers(await factories.user(s.ws, role="staff"))
    before = await _state(invoice.id)

    answer = await _void(client, staff, payment, {"reason": "Not mine to void"})

    assert answer.status_code == 403, answer.text
    assert answer.json() == {
        "message": "Only an owner's token can void a payment.",
        "code": "forbidden",
        "details": {},
    }
    assert await _state(invoice.id) == before


async def test_another_workspaces_payment_and_unknown_ids_are_404(client) -> None:
    mine = await shop()
    theirs = await shop()
    invoice, (payment,) = await _invoice(theirs, 3_000)
    before = await _state(invoice.id)

    for payment_id in (payment, payment + 1000, 2**31 - 1, 2**31, 10**30):
        answer = await _void(client, mine.auth, payment_id, {"reason": "Not ours"})
        assert answer.status_code == 404, (payment_id, answer.text)
        assert answer.json()["code"] == "not_found"
    for path in ("0", "-1", "abc", "1.5"):
        answer = await _void(client, mine.auth, path, {"reason": "Not ours"})
        assert answer.status_code == 404, (path, answer.text)
    assert await _state(invoice.id) == before


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "The reason field is required."),
        ({"reason": None}, "The reason field is required."),
        ({"reason": ""}, "The reason field must not be blank."),
        ({"reason": " \t "}, "The reason field must not be blank."),
        ({"reason": "r" * 501}, "must not be greater than 500 characters"),
        ({"reason": "two\nlines"}, "one line"),
        ({"reason": "nul\u0000"}, "one line"),
        ({"reason": 7}, "must be a string"),
        ({"reason": ["Bounced"]}, "must be a string"),
        ({"reason": "Bounced", "amount_cents": 5}, "amount_cents is not a field of a void."),
    ],
)
async def test_bad_reasons_are_422_and_change_nothing(client, body, words) -> None:
    s = await shop()
    invoice, (payment,) = await _invoice(s, 3_000)
    before = await _state(invoice.id)

    answer = await _void(client, s.auth, payment, body)

    assert answer.status_code == 422, answer.text
    assert words in json.dumps(answer.json()["errors"]), answer.json()
    assert await _state(invoice.id) == before


async def test_a_reason_of_500_characters_is_taken_and_bodies_not_objects_are_422(client) -> None:
    s = await shop()
    _, (first, second) = await _invoice(s, 1_000, 2_000)
    for raw in (b"[]", b"{", b'"x"', b""):
        answer = await client.post(
            f"/api/v1/payments/{first}/void", content=raw,
            headers={**s.auth, "Content-Type": "application/json"},
        )  # fmt: skip
        assert answer.status_code == 422, (raw, answer.text)

    longest = await _void(client, s.auth, second, {"reason": "é" * 500})

    assert longest.status_code == 200, longest.text
    assert await Payment.count().where(Payment.voided_at.is_not_null()) == 1


async def test_two_voids_at_once_void_once(client) -> None:
    s = await shop()
    invoice, (payment, _) = await _invoice(s, 6_000, 4_000)
    callers = [s.auth, await factories.caller(s.ws)]

    answers = await asyncio.gather(
        *(_void(client, auth, payment, {"reason": f"Void {n}"}) for n, auth in enumerate(callers))
    )

    assert sorted(a.status_code for a in answers) == [200, 422], [a.text for a in answers]
    refused = next(a for a in answers if a.status_code == 422)
    assert refused.json()["code"] == "payment_already_voided"
    stored = await Invoice.objects().where(Invoice.id == invoice.id).first()
    assert (stored.paid_cents, stored.status) == (4_000, "issued")
    assert len(await _events("payment.voided")) == 1


async def test_a_retry_with_the_same_key_is_the_first_answer(client) -> None:
    s = await shop()
    _, (payment,) = await _invoice(s, 3_000)
    key = {"Idempotency-Key": "void-chq-3000"}

    first = await _void(client, s.auth, payment, {"reason": "Bounced"}, **key)
    again = await _void(client, s.auth, payment, {"reason": "Bounced"}, **key)
    other = await _void(client, s.auth, payment, {"reason": "Other"}, **key)

    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.content == first.content
    assert other.status_code == 422
    assert len(await _events("payment.voided")) == 1


async def test_a_void_invoices_payment_cannot_be_voided(client) -> None:
    s = await shop()
    invoice, (payment,) = await _invoice(s, 3_000)
    await Invoice.update({Invoice.status: "void"}).where(Invoice.id == invoice.id)
    before = await _state(invoice.id)

    answer = await _void(client, s.auth, payment, {"reason": "Bounced"})

    assert answer.status_code == 422, answer.text
    assert answer.json()["message"] == (
        f"Invoice {invoice.number} is void; its payments cannot be voided."
    )
    assert answer.json()["code"] == "rule_refused"
    assert await _state(invoice.id) == before
