"""One bad message never stops its batch: an address stored before addresses were checked
refused it, a stored Message-ID or reply-to that is not ASCII, or any unexpected error fails
that message (its error kept on its row) while the others are sent once; no raw 8-bit header
is sent."""

from __future__ import annotations

from typing import Any

from models.actors import OPERATOR
from models.orders.stage_moves import advance_order
from models.tables import CustomerMessage, Workspace
from tests import factories
from tests.api.order_helpers import Shop, shop
from tests.mail.smtp_server import MailServer, Received


async def _queued(s: Shop, email: str) -> int:
    """A move of an order of a new customer whose primary contact's stored email is `email`
    (written as rows stored before the rule were: straight to the table); the row's id."""
    customer = await factories.customer(s.ws)
    await factories.contact(customer, email=email, is_primary=True)
    order = await factories.order(s.ws, customer)
    await advance_order(
        actor=OPERATOR, workspace_id=s.ws.id, order_id=order.id, to_stage="in_production"
    )
    row = await CustomerMessage.select(CustomerMessage.id).where(CustomerMessage.order == order.id)
    return int(row[0]["id"])


async def _rows() -> dict[int, dict[str, Any]]:
    rows = await CustomerMessage.select(
        CustomerMessage.id,
        CustomerMessage.status,
        CustomerMessage.attempts,
        CustomerMessage.last_error,
        CustomerMessage.leased_by,
        CustomerMessage.message_id,
    )
    return {row["id"]: row for row in rows}


def _head_is_ascii(received: Received) -> bool:
    head = received.raw.split(b"\r\n\r\n", 1)[0]
    return bool(head) and head.isascii()


async def test_a_stored_address_that_is_not_one_fails_its_message_and_no_other(
    smtp: MailServer, make_sender, fake_clock
):
    s = await shop()
    addresses = [
        "c1@example.com", "c2@example.com", "tøm@exämple.com", "c3@example.com",
        "<dana@acme.example>", "c4@example.com", "c5@example.com",
    ]  # fmt: skip
    ids = [await _queued(s, address) for address in addresses]
    bad = {ids[2]: "tøm@exämple.com", ids[4]: "<dana@acme.example>"}
    sender = make_sender(smtp.url, concurrency=2)  # one claim of 16 holds all seven
    await sender.drain()

    rows = await _rows()
    for id_, address in bad.items():
        row = rows[id_]
        assert (row["status"], row["attempts"], row["leased_by"]) == ("failed", 1, None)
        assert f"{address!r} is not an email address" in row["last_error"]
    sent = [rows[id_] for id_ in ids if id_ not in bad]
    assert {(r["status"], r["attempts"], r["leased_by"]) for r in sent} == {("sent", 1, None)}
    good = [a for a in addresses if a not in bad.values()]
    assert sorted(r.recipients[0] for r in smtp.received) == sorted(good)

    fake_clock.advance(120)  # well past the 30 s lease: nothing is left to send again
    await sender.drain()
    assert smtp.attempts == len(good)
    assert sorted(smtp.message_ids()) == sorted(r["message_id"] for r in sent)


async def test_an_unexpected_error_fails_that_message_with_the_error_kept(
    smtp: MailServer, make_sender
):
    s = await shop()
    ids = [await _queued(s, f"c{n}@example.com") for n in range(5)]
    odd = ids[2]  # a Message-ID no header can carry as it is (not ASCII)
    await CustomerMessage.update({CustomerMessage.message_id: "<1.2@exämple.com>"}).where(
        CustomerMessage.id == odd
    )
    await make_sender(smtp.url, concurrency=2).drain()

    rows = await _rows()
    assert (rows[odd]["status"], rows[odd]["attempts"], rows[odd]["leased_by"]) == (
        "failed",
        1,
        None,
    )
    assert rows[odd]["last_error"].startswith("not sent: ValueError: a header is not ASCII")
    assert {rows[id_]["status"] for id_ in ids if id_ != odd} == {"sent"}
    assert len(smtp.received) == 4 and all(_head_is_ascii(r) for r in smtp.received)


async def test_a_sender_address_aiosmtplib_cannot_send_fails_each_message_not_the_job(
    smtp: MailServer, make_sender, fake_clock
):
    s = await shop()
    ids = [await _queued(s, f"c{n}@example.com") for n in range(3)]
    sender = make_sender(smtp.url, sender="nø-reply@shop.example")
    await sender.drain()
    rows = await _rows()
    for id_ in ids:
        assert (rows[id_]["status"], rows[id_]["attempts"], rows[id_]["leased_by"]) == (
            "failed",
            1,
            None,
        )
        assert rows[id_]["last_error"].startswith("not sent: UnicodeEncodeError: ")
    fake_clock.advance(120)
    await sender.drain()
    assert smtp.attempts == 0


async def test_a_stored_reply_to_that_is_not_ascii_is_left_out(smtp: MailServer, make_sender):
    s = await shop()
    await Workspace.update({Workspace.email: "hellø@shop.example"}).where(Workspace.id == s.ws.id)
    await _queued(s, "dana@acme.example")
    await Workspace.update({Workspace.email: "hello@shop.example"}).where(Workspace.id == s.ws.id)
    await _queued(s, "ruth@acme.example")
    await make_sender(smtp.url).drain()

    by_recipient = {r.recipients[0]: r for r in smtp.received}
    assert by_recipient["dana@acme.example"].message["Reply-To"] is None
    assert by_recipient["ruth@acme.example"].message["Reply-To"] == "hello@shop.example"
    assert all(_head_is_ascii(r) for r in smtp.received)
    assert {r["status"] for r in (await _rows()).values()} == {"sent"}


async def test_without_smtp_url_a_stored_bad_address_fails_the_same_way(make_sender):
    s = await shop()
    good, bad = await _queued(s, "c1@example.com"), await _queued(s, "tøm@exämple.com")
    await make_sender(None).drain()
    rows = await _rows()
    assert rows[good]["status"] == "sent"
    assert (rows[bad]["status"], rows[bad]["attempts"]) == ("failed", 1)
    assert "'tøm@exämple.com' is not an email address" in rows[bad]["last_error"]
