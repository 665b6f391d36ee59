"""The proof email (sent through a real SMTP server) and the customer's proof page promise
"nothing is printed before you approve" only while the workspace's approval rule holds it."""

from __future__ import annotations

import httpx
import pytest

from tests.admin.support import post_form
from tests.mail.smtp_server import MailServer
from tests.proofs.files import png
from tests.proofs.support import LINK, shop, upload

PROMISE = "Nothing is printed before you approve."


@pytest.mark.parametrize("rule", [True, False], ids=["approval-on", "approval-off"])
async def test_the_promise_follows_the_rule(
    browser: httpx.AsyncClient, smtp: MailServer, make_sender, rule: bool
):
    s = await shop(browser)
    rules = {"tax_rate": "20", "timezone": "Europe/London"}
    if rule:
        rules["require_artwork_approval"] = "on"
    saved = await post_form(browser, "/admin/settings/", "/admin/settings/orders", rules)
    assert saved.status_code == 303, saved.text
    sent = await upload(s, png())
    assert sent.status_code == 303, sent.text

    await make_sender(smtp.url).drain()
    [mail] = smtp.received
    assert mail.recipients == [s.contact.email]
    text, body = mail.text(), mail.html()
    assert "The link works for 30 days, for this version of the proof." in text
    assert (PROMISE in text) is rule
    assert (PROMISE in body) is rule
    assert "Review the proof" in body

    found = LINK.search(text)
    assert found, text
    page = await browser.get(found.group(1))
    assert page.status_code == 200
    assert "Waiting for your answer." in page.text
    assert (PROMISE in page.text) is rule
