"""Customer messages sent by the worker's mail job through a real SMTP server (aiosmtpd)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from models.actors import OPERATOR
from models.mail.status import MessageStatus
from models.orders.stage_moves import advance_order
from models.tables import CustomerMessage, Order, Workspace
from tests import factories
from tests.api.order_helpers import Shop, advance, create, order_body, shop
from tests.mail.smtp_server import MailServer, free_port


async def _order(s: Shop, **fields: Any) -> Order:
    return await factories.order(s.ws, s.customer, **fields)


async def _moved(s: Shop, **fields: Any) -> None:
    """A new order moved to in production: its stage email queued."""
    order = await _order(s, **fields)
    await advance_order(
        actor=OPERATOR, workspace_id=s.ws.id, order_id=order.id, to_stage="in_production"
    )


async def _messages() -> list[dict[str, Any]]:
    return await CustomerMessage.select().order_by(CustomerMessage.id)


async def test_a_move_emails_the_primary_contact(client, smtp: MailServer, make_sender):
    s = await shop(name="Inkwell Prints — Café")
    await Workspace.update({Workspace.email: "hello@inkwell.example"}).where(
        Workspace.id == s.ws.id
    )
    created = await create(
        client, s.auth, order_body(s.customer.id, external_ref="SHOP-1001", due_by="2026-12-04")
    )
    assert created.status_code == 201, created.text
    order = created.json()
    assert await CustomerMessage.count() == 0  # creating an order sends nothing
    moved = await advance(client, s.auth, order["id"], "in_production")
    assert moved.status_code == 200, moved.text

    await make_sender(smtp.url).drain()

    assert len(smtp.received) == 1
    mail = smtp.received[0]
    assert mail.recipients == [s.contact.email]
    assert mail.message["To"] == s.contact.email
    assert mail.message["Subject"] == f"Order {order['number']} is in production (SHOP-1001)"
    assert mail.message["From"].addresses[0].display_name == "Inkwell Prints — Café"
    assert mail.message["Reply-To"] == "hello@inkwell.example"
    text = mail.text()
    assert "being printed right now" in text
    assert f"Order: {order['number']}" in text
    assert "Your reference: SHOP-1001" in text
    assert "Due: Friday 4 December 2026" in text
    assert order["number"] in mail.html() and "<table" in mail.html()
    [row] = await _messages()
    assert row["status"] == MessageStatus.SENT
    assert row["transport"] == "smtp"
    assert row["reply"].startswith("250 ")
    assert row["sent_at"] is not None and row["attempts"] == 1
    assert row["message_id"] == mail.message["Message-ID"]


async def test_dispatch_carries_carrier_and_tracking(smtp: MailServer, make_sender):
    s = await shop()
    order = await _order(s, stage="qc_pack")
    await advance_order(
        actor=OPERATOR,
        workspace_id=s.ws.id,
        order_id=order.id,
        to_stage="dispatched",
        carrier="DHL",
        tracking_number="JD014600",
    )
    await make_sender(smtp.url).drain()
    [mail] = smtp.received
    assert mail.message["Subject"] == f"Order {order.number} has been dispatched"
    assert "on its way with DHL" in mail.text()
    assert "Tracking number: JD014600" in mail.text()


async def test_switched_off_stages_are_muted_and_nothing_is_sent(smtp: MailServer, make_sender):
    s = await shop()
    await Workspace.update({Workspace.mail_stages: "dispatched"}).where(Workspace.id == s.ws.id)
    order = await _order(s)
    await advance_order(
        actor=OPERATOR, workspace_id=s.ws.id, order_id=order.id, to_stage="print_queue"
    )
    await advance_order(
        actor=OPERATOR, workspace_id=s.ws.id, order_id=order.id, to_stage="in_production"
    )
    await make_sender(smtp.url).drain()
    assert smtp.attempts == 0
    assert [r["status"] for r in await _messages()] == ["muted", "muted"]


async def test_without_a_primary_contact_the_row_is_no_contact(smtp: MailServer, make_sender):
    s = await shop()
    lonely = await factories.customer(s.ws, "No Contacts")
    await factories.contact(lonely, is_primary=False)
    order = await factories.order(s.ws, lonely)
    await advance_order(
        actor=OPERATOR, workspace_id=s.ws.id, order_id=order.id, to_stage="in_production"
    )
    await make_sender(smtp.url).drain()
    assert smtp.attempts == 0
    [row] = await _messages()
    assert (row["status"], row["contact"], row["recipient"]) == ("no_contact", None, "")


async def test_451_then_250_delivers_once_with_one_message_id(
    smtp: MailServer, make_sender, fake_clock
):
    async def busy_once(n: int) -> str:
        return "451 4.3.0 Try again later" if n == 1 else "250 OK"

    smtp.behaviour = busy_once
    s = await shop()
    await _moved(s)
    sender = make_sender(smtp.url)
    await sender.drain()
    [row] = await _messages()
    assert (row["status"], row["attempts"]) == ("queued", 1)
    assert row["last_error"] == "451 4.3.0 Try again later"
    await sender.drain()  # not due yet: the webhook backoff says 60 s
    assert smtp.attempts == 1
    fake_clock.advance(61)
    await sender.drain()
    await sender.drain()
    assert smtp.attempts == 2 and len(smtp.received) == 1
    [row] = await _messages()
    assert (row["status"], row["attempts"]) == ("sent", 2)
    assert smtp.message_ids() == [row["message_id"]]


async def test_a_server_down_for_a_while_gets_the_message_when_back(make_sender, fake_clock):
    port = free_port()
    s = await shop()
    await _moved(s)
    sender = make_sender(f"smtp://127.0.0.1:{port}")
    await sender.drain()
    fake_clock.advance(61)
    await sender.drain()
    [row] = await _messages()
    assert (row["status"], row["attempts"]) == ("queued", 2)
    assert "ConnectError" in row["last_error"] or "refused" in row["last_error"].lower()

    server = MailServer()
    await server.start(port)
    try:
        fake_clock.advance(301)
        await sender.drain()
        [row] = await _messages()
        assert (row["status"], row["attempts"]) == ("sent", 3)
        assert len(server.received) == 1
    finally:
        await server.stop()


async def test_550_fails_at_once_with_the_reply_kept(smtp: MailServer, make_sender, fake_clock):
    async def refuse(_: int) -> str:
        return "550 5.1.1 Mailbox unavailable"

    smtp.behaviour = refuse
    s = await shop()
    await _moved(s)
    sender = make_sender(smtp.url)
    await sender.drain()
    for _ in range(3):
        fake_clock.advance(15_000)
        await sender.drain()
    assert smtp.attempts == 1
    [row] = await _messages()
    assert (row["status"], row["attempts"]) == ("failed", 1)
    assert row["last_error"] == "550 5.1.1 Mailbox unavailable"


async def test_temporary_failures_stop_after_the_last_attempt(
    smtp: MailServer, make_sender, fake_clock
):
    async def always_busy(_: int) -> str:
        return "421 4.7.0 Too busy"

    smtp.behaviour = always_busy
    s = await shop()
    await _moved(s)
    sender = make_sender(smtp.url, max_attempts=3)
    for _ in range(6):
        await sender.drain()
        fake_clock.advance(15_000)
    assert smtp.attempts == 3
    [row] = await _messages()
    assert (row["status"], row["attempts"]) == ("failed", 3)


async def test_without_smtp_url_messages_go_to_the_log(make_sender, caplog):
    s = await shop()
    await _moved(s)
    with caplog.at_level("INFO", logger="daemon.mail"):
        await make_sender(None).drain()
    [row] = await _messages()
    assert (row["status"], row["transport"]) == ("sent", "log")
    assert any("SMTP_URL is unset" in r.getMessage() for r in caplog.records)


async def test_two_senders_in_one_process_never_send_a_message_twice(smtp: MailServer, make_sender):
    async def slow(n: int) -> str:
        await asyncio.sleep(0.002 * (n % 3))
        return "250 OK"

    smtp.behaviour = slow
    s = await shop()
    for _ in range(30):
        await _moved(s)
    first, second = make_sender(smtp.url, worker="a"), make_sender(smtp.url, worker="b")
    await asyncio.gather(first.drain(), second.drain(), first.drain())
    await asyncio.gather(first.drain(), second.drain())
    ids = smtp.message_ids()
    assert len(ids) == 30 and len(set(ids)) == 30
    assert {r["status"] for r in await _messages()} == {"sent"}


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
async def test_smtp_url_credentials_log_in(make_sender):
    from aiosmtpd.smtp import AuthResult, LoginPassword

    def check(_: Any, __: Any, ___: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (
            b"shop",
            b"p@ss:word",
        )
        return AuthResult(success=ok)

    server = MailServer()
    await server.start(auth_required=True, auth_require_tls=False, authenticator=check)
    try:
        s = await shop()
        for _ in range(2):
            await _moved(s)
        good = f"smtp://shop:p%40ss%3Aword@127.0.0.1:{server.port}"
        await make_sender(good).drain()
        assert len(server.received) == 2
        assert [r["status"] for r in await _messages()] == ["sent", "sent"]

        await _moved(s)
        await make_sender(f"smtp://shop:wrong@127.0.0.1:{server.port}").drain()
        last = (await _messages())[-1]  # refused credentials: an error kept, nothing sent
        assert last["status"] != "sent" and last["attempts"] == 1 and last["last_error"]
        assert len(server.received) == 2
    finally:
        await server.stop()


async def test_names_and_subjects_cannot_add_headers(smtp: MailServer, make_sender):
    s = await shop(name="Evil\r\nBcc: victim@example.com")
    await _moved(s, external_ref="R1\r\nX-Injected: yes")
    await make_sender(smtp.url).drain()
    [mail] = smtp.received
    assert mail.recipients == [s.contact.email]
    assert mail.message["Bcc"] is None and mail.message["X-Injected"] is None
    assert mail.message["From"].addresses[0].display_name == "Evil Bcc: victim@example.com"
