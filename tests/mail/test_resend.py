"""A failed customer message is sent again from the order's page (owner or staff)."""

from __future__ import annotations

import httpx

from models.actors import OPERATOR
from models.orders.stage_moves import advance_order
from models.tables import CustomerMessage
from tests import factories
from tests.admin.support import csrf_of, log_in, member
from tests.mail.smtp_server import MailServer


async def test_staff_resend_a_failed_message(
    browser: httpx.AsyncClient, smtp: MailServer, make_sender
):
    async def refuse_first(n: int) -> str:
        return "550 5.7.1 Relaying denied" if n == 1 else "250 OK"

    smtp.behaviour = refuse_first
    ws = await factories.workspace()
    clerk = await member(ws, role="staff")
    customer = await factories.customer(ws)
    await factories.contact(customer, is_primary=True)
    order = await factories.order(ws, customer)
    await advance_order(
        actor=OPERATOR, workspace_id=ws.id, order_id=order.id, to_stage="in_production"
    )
    sender = make_sender(smtp.url)
    await sender.drain()
    row = await CustomerMessage.select().first()
    assert (row["status"], row["last_error"]) == ("failed", "550 5.7.1 Relaying denied")

    assert (await log_in(browser, clerk.email)).status_code == 303
    page = await browser.get(f"/admin/orders/{order.number}/artwork")
    assert "550 5.7.1 Relaying denied" in page.text and "Resend" in page.text
    action = f"/admin/orders/{order.number}/messages/{row['id']}/resend"
    done = await browser.post(action, data={"_csrf_token": csrf_of(page)})
    assert done.status_code == 303
    shown = await browser.get(done.headers["location"])
    assert "queued again" in shown.text
    again = await browser.post(action, data={"_csrf_token": csrf_of(shown)})
    assert again.status_code == 422 and "Only a failed message" in again.text
    # The order's own page shows the status and no Resend for a message that is queued.
    order_page = await browser.get(f"/admin/orders/{order.number}")
    assert f'id="message-{row["id"]}"' in order_page.text and "queued" in order_page.text
    assert action not in order_page.text

    await sender.drain()
    row2 = await CustomerMessage.select().first()
    assert (row2["status"], row2["attempts"]) == ("sent", 1)
    assert smtp.message_ids() == [row["message_id"]]  # the same Message-ID as before


async def test_resend_from_the_order_page(
    browser: httpx.AsyncClient, smtp: MailServer, make_sender
):
    async def refuse(_: int) -> str:
        return "554 5.7.1 Rejected"

    smtp.behaviour = refuse
    ws = await factories.workspace()
    owner = await member(ws, role="owner")
    customer = await factories.customer(ws)
    await factories.contact(customer, is_primary=True)
    order = await factories.order(ws, customer)
    await advance_order(
        actor=OPERATOR, workspace_id=ws.id, order_id=order.id, to_stage="in_production"
    )
    await make_sender(smtp.url).drain()
    row = await CustomerMessage.select().first()
    assert row["status"] == "failed"
    assert (await log_in(browser, owner.email)).status_code == 303
    page = await browser.get(f"/admin/orders/{order.number}")
    action = f"/admin/orders/{order.number}/messages/{row['id']}/resend"
    assert action in page.text
    done = await browser.post(action, data={"_csrf_token": csrf_of(page), "back": "order"})
    assert done.status_code == 303 and done.headers["location"] == f"/admin/orders/{order.number}"
    assert "queued again" in (await browser.get(done.headers["location"])).text
    assert (await CustomerMessage.select(CustomerMessage.status).first())["status"] == "queued"
