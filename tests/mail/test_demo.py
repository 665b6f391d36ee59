"""`pressline demo` leaves no backlog of its made-up past: the sample orders' emails are on
their order pages (sent, transport `demo`) and no worker ever sends them, with SMTP_URL or not;
a move made in the demo afterwards is emailed as any other."""

from __future__ import annotations

import httpx

from models.actors import OPERATOR
from models.mail.status import MessageStatus, Transport
from models.orders.stage_moves import advance_order
from models.tables import CustomerMessage, Order
from tests.admin.support import log_in
from tests.mail.smtp_server import MailServer


async def test_a_fresh_demo_leaves_no_email_for_a_worker_to_send(
    pressline, smtp: MailServer, make_sender, browser: httpx.AsyncClient
):
    built = await pressline("demo --json")
    assert built.code == 0, built.err
    data = built.data
    ws = data["workspace_id"]
    rows = await CustomerMessage.select(
        CustomerMessage.status, CustomerMessage.transport, CustomerMessage.kind
    ).where(CustomerMessage.workspace == ws)
    kinds = {row["kind"] for row in rows}
    assert {"order.in_production", "order.dispatched"} <= kinds
    assert not [row for row in rows if row["status"] == MessageStatus.QUEUED]
    history = [row for row in rows if row["status"] == MessageStatus.SENT]
    assert len(history) >= 10 and {row["transport"] for row in history} == {Transport.DEMO}

    sender = make_sender(smtp.url)
    await sender.drain()
    assert smtp.attempts == 0  # the demo's past is not mailed to its customers

    # The order pages still show each order's emails as sent; the details say sample data.
    dispatched, order = [
        await Order.select(Order.id, Order.number)
        .where((Order.workspace == ws) & (Order.stage == stage))
        .order_by(Order.id)
        .first()
        for stage in ("dispatched", "print_queue")
    ]
    assert (await log_in(browser, data["admin_email"], data["admin_password"])).status_code == 303
    page = await browser.get(f"/admin/orders/{dispatched['number']}")
    assert page.status_code == 200 and '<span class="state sent">sent</span>' in page.text
    details = await browser.get(f"/admin/orders/{dispatched['number']}/artwork")
    assert details.status_code == 200
    assert details.text.count("(sample data: no email was sent)") == 2  # in production, dispatched

    # A move made in the demo now is a live one: emailed once.
    await advance_order(
        actor=OPERATOR, workspace_id=ws, order_id=order["id"], to_stage="in_production"
    )
    await sender.drain()
    assert smtp.attempts == 1 and len(smtp.received) == 1
    assert f"Order {order['number']} is in production" in smtp.received[0].message["Subject"]
