"""Every change that adds to an order's timeline reaches the open pages of that order through
`GET /admin/stream` (models/live.py), on both databases: a proof sent and the customer's
answer (approved, or changes asked for: webhook events `artwork.proof_sent`,
`artwork.changes_requested`, `artwork.approved`), a payment recorded and voided, an invoice
emailed, the email sent or failing and queued again, the customer first opening the invoice's
page (changes without an event row: sent without an `id:`, so the stream's place stays its
last row; a stage move's or a proof's email is announced by their events, not twice). A
stream whose changes were dropped catches up and then tells its page to reload its regions.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from litestar import Litestar

from models import clock, live
from models.mail import queue
from models.mail.status import MessageStatus
from models.tables import CustomerMessage, Order, Payment, WebhookEvent
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of
from tests.admin.test_stream import WAIT, Opened, opened
from tests.proofs.files import png

PROOF_LINK = re.compile(r"https?://[^/\s]+(/proofs/[A-Za-z0-9_-]+)")
INVOICE_LINK = re.compile(r"https?://[^/\s]+(/i/[A-Za-z0-9_-]+)")


@pytest.fixture
async def customer(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    """The customer's browser: no admin session."""
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


def sent(answer: Opened) -> list[dict[str, Any]]:
    """Every event of the stream so far: its `id` (None when it has none), `event` and data."""
    found = []
    for block in answer.text.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if not line.startswith(":")
        )
        if "event" in fields:
            data = json.loads(fields["data"])
            found.append({"id": int(fields["id"]) if "id" in fields else None,
                          "event": fields["event"], **data})  # fmt: skip
    return found


async def arrives(
    answer: Opened, order: Order, name: str, nth: int = 1, seconds: float = WAIT
) -> dict[str, Any]:
    """The stream's `nth` event `name` for `order`, once it has arrived."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        found = [e for e in sent(answer) if e.get("name") == name and e["order_id"] == order.id]
        if len(found) >= nth:
            return found[nth - 1]
        left = deadline - loop.time()
        if left <= 0:
            pytest.fail(f"{name} #{nth} for order {order.id} not in the stream: {answer.text!r}")
        try:
            answer.text += (await asyncio.wait_for(answer.chunks.get(), left)).decode()
        except TimeoutError:
            continue


async def ordered(shop: Shop) -> Order:
    customer = await factories.customer(shop.ws, "Acme Tees")
    await factories.contact(customer, is_primary=True, name="Dana Reyes", email="dana@acme.example")
    return await factories.order(shop.ws, customer)


async def upload(shop: Shop, order: Order) -> None:
    page = await shop.client.get(f"/admin/orders/{order.number}/artwork")
    sent_proof = await shop.client.post(
        f"/admin/orders/{order.number}/proofs",
        data={"_csrf_token": csrf_of(page), "note": ""},
        files={"file": ("proof.png", png(), "application/octet-stream")},
    )
    assert sent_proof.status_code == 303, sent_proof.text


async def newest_link(pattern: re.Pattern[str], kind: str) -> str:
    row = await (
        CustomerMessage.select(CustomerMessage.body)
        .where(CustomerMessage.kind == kind)
        .order_by(CustomerMessage.id, ascending=False)
        .first()
    )
    assert row is not None, f"no {kind} email was queued"
    found = pattern.search(row["body"])
    assert found, row["body"]
    return found.group(1)


async def answer_proof(customer: httpx.AsyncClient, action: str, **fields: str) -> None:
    link = await newest_link(PROOF_LINK, "artwork.proof")
    page = await customer.get(link)
    token = re.search(r'name="_csrf" value="([^"]+)"', page.text)
    assert token, page.text
    done = await customer.post(f"{link}/{action}", data={"_csrf": token.group(1), **fields})
    assert done.status_code == 303, done.text


async def test_a_proof_sent_and_the_customers_answers_reach_the_order_page(
    app: Litestar, shop: Shop, customer: httpx.AsyncClient
):
    order = await ordered(shop)
    async with opened(app, shop.client) as stream:
        await stream.read_until(": open")
        await upload(shop, order)
        proof = await arrives(stream, order, "artwork.proof_sent")
        await answer_proof(customer, "changes", comment="Make the logo bigger")
        changes = await arrives(stream, order, "artwork.changes_requested")
        await upload(shop, order)  # version 2
        await arrives(stream, order, "artwork.proof_sent", nth=2)
        await answer_proof(customer, "approve", name="Dana Reyes")
        approved = await arrives(stream, order, "artwork.approved")
    assert proof["event"] == changes["event"] == approved["event"] == "order"
    names = [e["name"] for e in sent(stream)]  # the proof's email: announced by its event
    assert names == ["artwork.proof_sent", "artwork.changes_requested", "artwork.proof_sent",
                     "artwork.approved"]  # fmt: skip
    rows = await WebhookEvent.select(WebhookEvent.id, WebhookEvent.name, WebhookEvent.body).where(
        WebhookEvent.order == order.id
    )
    ids = {row["name"]: row["id"] for row in rows}
    assert proof["id"] < changes["id"] < approved["id"] == ids["artwork.approved"]
    asked = json.loads(next(r for r in rows if r["name"] == "artwork.changes_requested")["body"])
    assert (asked["order_id"], asked["artwork_version"], asked["comment"]) == (
        order.id, 1, "Make the logo bigger"
    )  # fmt: skip
    versions = [
        json.loads(r["body"])["artwork_version"] for r in rows if r["name"] == "artwork.proof_sent"
    ]
    assert versions == [1, 2]


async def test_a_payment_recorded_and_voided_reach_the_order_page(app: Litestar, shop: Shop):
    order = await ordered(shop)
    await factories.set_artwork(order, status="approved", version=1)
    await Order.update({Order.stage: "dispatched"}).where(Order.id == order.id)
    invoice = await factories.invoice(order)
    page = f"/admin/invoices/{invoice.number}"
    async with opened(app, shop.client) as stream:
        await stream.read_until(": open")
        form = await shop.client.get(page)
        paid = await shop.client.post(
            f"{page}/payments",
            data={"_csrf_token": csrf_of(form), "amount": "10", "method": "card", "date": ""},
        )
        assert paid.status_code == 303, paid.text
        received = await arrives(stream, order, "invoice.payment_received")
        payment = await Payment.objects().where(Payment.invoice == invoice.id).first()
        assert payment is not None
        asked = await shop.client.get(f"{page}/payments/{payment.id}/void")
        voided = await shop.client.post(
            f"{page}/payments/{payment.id}/void",
            data={"_csrf_token": csrf_of(asked), "reason": "Card charged back"},
        )
        assert voided.status_code == 303, voided.text
        void = await arrives(stream, order, "payment.voided")
    assert received["id"] < void["id"]


async def test_an_email_queued_sent_failing_and_queued_again_reaches_the_order_page(
    app: Litestar, shop: Shop, backend: str
):
    order = await ordered(shop)
    await Order.update({Order.stage: "dispatched"}).where(Order.id == order.id)
    invoice = await factories.invoice(order)
    page = f"/admin/invoices/{invoice.number}"
    async with opened(app, shop.client) as stream:
        await stream.read_until(": open")
        form = await shop.client.get(page)
        emailed = await shop.client.post(f"{page}/email", data={"_csrf_token": csrf_of(form)})
        assert emailed.status_code == 303, emailed.text
        queued = await arrives(stream, order, "invoice.emailed")
        assert queued["id"] is None  # no event row: no id, the stream's place stays
        if backend.startswith("sqlite"):
            # The worker is another process; on SQLite its outcome shows on the next change or
            # reload (docs/admin.md, "Live updates"). Staff queueing a failed email again do.
            await CustomerMessage.update({CustomerMessage.status: MessageStatus.FAILED}).where(
                CustomerMessage.order == order.id
            )
            await resend(shop, order)
            await arrives(stream, order, "email.queued")
            assert [e["name"] for e in sent(stream)] == ["invoice.emailed", "email.queued"]
            return
        # The worker's outcomes, as daemon/mail.py records them: sent; then another email that
        # fails for good, and is queued again from the order's page.
        now = clock.now()
        [claimed] = await queue.claim(worker="w1", limit=5, now=now, lease=60)
        outcome = queue.Outcome(claimed, MessageStatus.SENT, reply="250 OK", transport="smtp")
        assert await queue.record([outcome], worker="w1", now=now) == 1
        await arrives(stream, order, "email.sent")
        form = await shop.client.get(page)
        again = await shop.client.post(f"{page}/email", data={"_csrf_token": csrf_of(form)})
        assert again.status_code == 303, again.text
        await arrives(stream, order, "invoice.emailed", nth=2)
        [claimed] = await queue.claim(worker="w1", limit=5, now=clock.now(), lease=60)
        refused = queue.Outcome(claimed, MessageStatus.FAILED, error="550 no such user")
        assert await queue.record([refused], worker="w1", now=clock.now()) == 1
        await arrives(stream, order, "email.failed")
        await resend(shop, order)
        await arrives(stream, order, "email.queued")
    assert all(e["id"] is None for e in sent(stream))  # none is an event row


async def resend(shop: Shop, order: Order) -> None:
    """Staff send the order's failed email again from its artwork page."""
    [failed] = await CustomerMessage.select(CustomerMessage.id).where(
        CustomerMessage.order == order.id, CustomerMessage.status == MessageStatus.FAILED
    )
    page = await shop.client.get(f"/admin/orders/{order.number}/artwork")
    resent = await shop.client.post(
        f"/admin/orders/{order.number}/messages/{failed['id']}/resend",
        data={"_csrf_token": csrf_of(page)},
    )
    assert resent.status_code == 303, resent.text


async def test_the_customer_first_opening_the_invoice_page_reaches_the_order_page(
    app: Litestar, shop: Shop, customer: httpx.AsyncClient
):
    order = await ordered(shop)
    await Order.update({Order.stage: "dispatched"}).where(Order.id == order.id)
    invoice = await factories.invoice(order)
    page = f"/admin/invoices/{invoice.number}"
    form = await shop.client.get(page)
    emailed = await shop.client.post(f"{page}/email", data={"_csrf_token": csrf_of(form)})
    assert emailed.status_code == 303, emailed.text
    link = await newest_link(INVOICE_LINK, "invoice.emailed")
    async with opened(app, shop.client) as stream:  # opened after the email
        await stream.read_until(": open")
        assert (await customer.get(link)).status_code == 200
        opened_page = await arrives(stream, order, "invoice.opened")
        assert opened_page["id"] is None
        assert (await customer.get(link)).status_code == 200  # opened before: nothing new
        await stream.quiet_for(0.3)
    assert [e["name"] for e in sent(stream)] == ["invoice.opened"]


async def test_a_change_without_a_row_keeps_the_streams_place(app: Litestar, shop: Shop):
    """A resumed stream gets the rows it missed, never the changes without a row, and the
    id-less ones leave its Last-Event-ID where the last row put it."""
    order = await ordered(shop)
    async with opened(app, shop.client) as first:
        await first.read_until(": open")
        live.FEED.publish(live.Change(live.NOT_AN_EVENT, shop.ws.id, order.id, "email.sent"))
        await first.read_until('"name":"email.sent"')
    assert "id:" not in first.text
    assert sent(first) == [{"id": None, "event": "order", "order_id": order.id,
                            "name": "email.sent"}]  # fmt: skip


async def test_dropped_changes_end_the_catch_up_with_a_reset(app: Litestar, shop: Shop):
    """A lost LISTEN connection (or a full queue) may have dropped changes without a row: the
    stream reads the rows it missed, then an id-less `reset` has the page reload its regions."""
    order = await ordered(shop)
    async with opened(app, shop.client) as stream:
        await stream.read_until(": open")
        live.FEED.missed()
        await stream.read_until("event: reset")
        await upload(shop, order)
        await arrives(stream, order, "artwork.proof_sent")
    events = sent(stream)
    assert events[0] == {"id": None, "event": "reset"}
    assert [e.get("name") for e in events[1:]] == ["artwork.proof_sent"]
