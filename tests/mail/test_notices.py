"""Owners hear by email when a webhook subscription is deactivated, and the admin shows a
banner until it is re-enabled."""

from __future__ import annotations

import httpx

from daemon.deliver import Outcome
from daemon.store import open_store
from models import clock
from models.tables import StaffNotice, WebhookSubscription
from models.webhooks import subscriptions
from tests import factories
from tests.admin.support import log_in, member
from tests.daemon import support
from tests.daemon.conftest import config
from tests.mail.smtp_server import MailServer

REASON = "20 consecutive failed delivery attempts"


async def _deactivate(subscription_id: int) -> None:
    """What the delivery store does at the failure limit (daemon/record.py)."""
    now = clock.now()
    await WebhookSubscription.update(
        {
            WebhookSubscription.is_active: False,
            WebhookSubscription.deactivated_at: now,
            WebhookSubscription.deactivated_reason: REASON,
            WebhookSubscription.consecutive_failures: 20,
        }
    ).where(WebhookSubscription.id == subscription_id)


async def test_active_owners_are_emailed_once_and_see_a_banner(
    browser: httpx.AsyncClient, smtp: MailServer, make_sender
):
    ws = await factories.workspace(name="Inkwell Prints")
    owner = await member(ws, role="owner", name="Olive", email="olive@inkwell.example")
    await member(ws, role="owner", email="gone@inkwell.example", is_active=False)
    await member(ws, role="staff", email="sam@inkwell.example")
    other = await factories.workspace()
    await member(other, role="owner", email="elsewhere@example.com")
    row, _ = await subscriptions.create(ws.id, "https://hooks.example.com/in")
    quiet, _ = await subscriptions.create(ws.id, "https://hooks.example.com/quiet")
    await subscriptions.disable(quiet["id"])  # an owner's own choice: no email

    assert (await log_in(browser, owner.email)).status_code == 303
    page = await browser.get("/admin/")
    assert 'hx-get="/admin/notices/banner"' in page.text
    assert "Webhooks stopped" not in (await browser.get("/admin/notices/banner")).text

    await _deactivate(row["id"])
    sender = make_sender(smtp.url)
    await sender.drain()
    await sender.drain()
    assert [r.recipients for r in smtp.received] == [["olive@inkwell.example"]]
    mail = smtp.received[0]
    assert mail.message["Subject"] == f"Webhook subscription {row['id']} was deactivated"
    text = mail.text()
    assert "https://hooks.example.com/in" in text and REASON in text
    assert f"/admin/webhooks/{row['id']}" in text
    assert await StaffNotice.count() == 1

    banner = await browser.get("/admin/notices/banner")
    assert "Webhooks stopped" in banner.text and "hooks.example.com/in" in banner.text
    assert "quiet" not in banner.text
    await subscriptions.enable(row["id"])
    assert "Webhooks stopped" not in (await browser.get("/admin/notices/banner")).text


async def test_a_deactivation_by_the_delivery_store_is_announced(
    smtp: MailServer, make_sender, fake_clock
):
    """The webhook worker's own failure count (daemon/record.py) deactivates; the mail job
    finds it and tells the owner."""
    ws = await factories.workspace(name="Inkwell Prints")
    await member(ws, role="owner", email="olive@inkwell.example")
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    await support.queued(ws, sub, 3)
    store = open_store()
    try:
        claimed = await store.claim(
            worker="a", limits=support.limits(10), now=fake_clock(), lease=30
        )
        failed = [
            (item, Outcome(started_at=fake_clock(), status_code=500, duration_ms=3))
            for item in claimed
        ]
        await store.record(failed, worker="a", config=config(deactivate_after=3), now=fake_clock())
    finally:
        await store.close()
    assert (await support.load_subscription(sub)).is_active is False

    await make_sender(smtp.url).drain()
    [mail] = smtp.received
    assert mail.recipients == ["olive@inkwell.example"]
    assert "3 consecutive failed delivery attempts" in mail.text()
