"""A proof uploaded through the API is emailed through a real SMTP server (aiosmtpd) like
one uploaded in the admin, and not at all when the upload holds the email back."""

from __future__ import annotations

import httpx

from tests import factories
from tests.api.artwork_helpers import upload
from tests.api.order_helpers import shop
from tests.mail.smtp_server import MailServer
from tests.proofs.files import PDF
from tests.proofs.support import LINK


async def test_an_api_upload_emails_the_link_unless_held_back(
    client: httpx.AsyncClient, smtp: MailServer, make_sender
):
    s = await shop()
    order = await factories.order(s.ws, s.customer)
    held = await upload(client, s.auth, order.id, data={"notify": "false"})
    assert held.status_code == 201, held.text
    await make_sender(smtp.url).drain()
    assert smtp.attempts == 0 and smtp.received == []

    sent = await upload(client, s.auth, order.id, PDF, "back.pdf")
    assert sent.status_code == 201, sent.text
    assert sent.json()["version"] == 2
    await make_sender(smtp.url).drain()
    [mail] = smtp.received
    assert mail.recipients == [s.contact.email]
    text = mail.text()
    assert order.number in mail.message["Subject"]
    assert "The link works for 30 days, for this version of the proof." in text
    found = LINK.search(text)
    assert found, text
    page = await client.get(found.group(1))
    assert page.status_code == 200
    assert "Waiting for your answer." in page.text and "back.pdf" in page.text
