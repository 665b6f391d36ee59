""" "Email invoice": the customer's primary contact gets an email (through the queue and a real
SMTP server) with a link to the invoice's own page, `/i/{token}`: no login, the same sheet as
the admin's without the admin, made to print. The token is random and stored as its digest
only; an unknown, altered or expired one answers the proof links' 404 page. Without a primary
contact nothing is queued and the page says why; the order's timeline lists the email and
whether its page was opened."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import httpx
import pytest

from models.tables import CustomerMessage, Invoice, InvoiceLink, InvoiceSettings
from tests import factories
from tests.admin.support import csrf_of, log_in, member
from tests.mail.smtp_server import MailServer
from tests.proofs.files import png

LINK = re.compile(r"https?://[^/\s]+(/i/([A-Za-z0-9_-]+))")


@pytest.fixture
async def shop(browser: httpx.AsyncClient) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints", email="hello@inkwell.example")
    owner = await member(ws, role="owner")
    customer = await factories.customer(ws, "Acme Tees")
    await factories.contact(customer, is_primary=True, name="Dana Reyes", email="dana@acme.example")
    order = await factories.order(
        ws, customer, stage="dispatched", lines=[("Front print", 10, 850)], external_ref="PO-77"
    )
    invoice = await factories.invoice(order)
    await InvoiceSettings(
        workspace=ws.id, legal_name="Inkwell Prints Ltd", tax_label="VAT", tax_number="GB123",
        bank_details="Sort code 12-34-56", logo=png(40, 20), logo_type="image/png",
    ).save()  # fmt: skip
    assert (await log_in(browser, owner.email)).status_code == 303
    return {"ws": ws, "customer": customer, "order": order, "invoice": invoice}


async def _email(client: httpx.AsyncClient, number: str) -> httpx.Response:
    page = await client.get(f"/admin/invoices/{number}")
    return await client.post(f"/admin/invoices/{number}/email", data={"_csrf_token": csrf_of(page)})


async def _sent_link(smtp: MailServer, make_sender: Any, count: int = 1) -> tuple[Any, str, str]:
    await make_sender(smtp.url).drain()
    assert len(smtp.received) == count
    mail = smtp.received[-1]
    found = LINK.search(mail.text())
    assert found, mail.text()
    return mail, found.group(1), found.group(2)


async def test_the_email_links_to_a_page_opened_without_login(
    app: Any, browser: httpx.AsyncClient, shop: dict[str, Any], smtp: MailServer, make_sender: Any
) -> None:
    number = shop["invoice"].number

    sent = await _email(browser, number)

    assert sent.status_code == 303 and sent.headers["location"] == f"/admin/invoices/{number}"
    after = await browser.get(f"/admin/invoices/{number}")
    assert (
        f"Invoice {number} is being emailed to dana@acme.example, with a link to its own page."
        in after.text
    )
    [message] = await CustomerMessage.select(CustomerMessage.kind, CustomerMessage.status)
    assert message == {"kind": "invoice.emailed", "status": "queued"}
    mail, path, token = await _sent_link(smtp, make_sender)
    assert mail.recipients == ["dana@acme.example"]
    assert mail.message["Subject"] == f"Invoice {number} for order {shop['order'].number} (PO-77)"
    assert "102.00 GBP, 102.00 GBP to pay by" in mail.text()
    assert path in mail.html()
    [link] = await InvoiceLink.select(InvoiceLink.token_digest, InvoiceLink.opened_at)
    assert token not in str(link) and link["opened_at"] is None

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as customer:
        page = await customer.get(path)
        logo = await customer.get(f"{path}/logo")
        css = await customer.get("/i/assets/invoice.css")

    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-store"
    assert page.headers["referrer-policy"] == "no-referrer"
    text = page.text
    assert f'<span id="inv-number">{number}</span>' in text
    assert "Inkwell Prints Ltd" in text and "VAT number: GB123" in text
    assert 'id="inv-tax-words">VAT 20 %</th>' in text and "Sort code 12-34-56" in text
    assert "Front print" in text and "Dana Reyes" in text
    assert f'src="{path}/logo"' in text and 'href="/i/assets/invoice.css"' in text
    assert "/admin" not in text and "<form" not in text and "Recorded by" not in text
    assert logo.status_code == 200 and logo.headers["content-type"] == "image/png"
    assert css.status_code == 200 and ".sheet" in css.text
    [link] = await InvoiceLink.select(InvoiceLink.opened_at)
    assert link["opened_at"] is not None

    timeline = (await browser.get(f"/admin/orders/{shop['order'].number}")).text
    entry = timeline.split('data-kind="email"')[1].split("</li>")[0]
    assert f"Invoice {number} for order" in entry and "Dana Reyes" in entry
    assert f'href="/admin/invoices/{number}"' in entry and "the customer opened it" in entry


async def test_unknown_altered_and_expired_links_answer_the_proof_links_404(
    app: Any, browser: httpx.AsyncClient, shop: dict[str, Any], smtp: MailServer, make_sender: Any
) -> None:
    await _email(browser, shop["invoice"].number)
    _, path, token = await _sent_link(smtp, make_sender)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as customer:
        proofs_404 = await customer.get("/proofs/" + "x" * 32)
        altered = token[:-1] + ("A" if token[-1] != "A" else "B")
        answers = [
            await customer.get(f"/i/{candidate}")
            for candidate in (altered, "short", "x" * 101, "%C3%A9" * 20, "a" * 32 + "%00")
        ]
        logos = [await customer.get(f"/i/{altered}/logo")]
        await InvoiceLink.update(
            {InvoiceLink.expires_at: dt.datetime(2020, 1, 1, tzinfo=dt.UTC)}, force=True
        )
        answers.append(await customer.get(path))
        logos.append(await customer.get(f"{path}/logo"))

    assert proofs_404.status_code == 404
    for answer in answers + logos:
        assert answer.status_code == 404, answer.url
        assert answer.text == proofs_404.text
    assert "This link does not work" in proofs_404.text


async def test_without_a_primary_contact_nothing_is_queued_and_the_page_says_why(
    browser: httpx.AsyncClient, shop: dict[str, Any]
) -> None:
    customer = await factories.customer(shop["ws"], "No Contact Co")
    order = await factories.order(shop["ws"], customer, stage="dispatched")
    invoice = await factories.invoice(order)

    refused = await _email(browser, invoice.number)

    assert refused.status_code == 422
    assert "No Contact Co has no primary contact, so there is nobody to email the invoice to" in (
        refused.text
    )
    assert await CustomerMessage.count() == 0 and await InvoiceLink.count() == 0


async def test_another_workspaces_invoice_is_404_and_nothing_is_written(
    browser: httpx.AsyncClient, shop: dict[str, Any]
) -> None:
    other = await factories.workspace()
    customer = await factories.customer(other, "Theirs")
    await factories.contact(customer, is_primary=True)
    theirs = await factories.invoice(await factories.order(other, customer, stage="dispatched"))
    page = await browser.get(f"/admin/invoices/{shop['invoice'].number}")
    token = csrf_of(page)
    await Invoice.update({Invoice.number: "INV-OTHER-1"}).where(Invoice.id == theirs.id)

    answers = [
        await browser.post(f"/admin/invoices/{number}/email", data={"_csrf_token": token})
        for number in ("INV-OTHER-1", "INV-" + "9" * 5000, "INV%00", "not-an-invoice")
    ]

    assert [a.status_code for a in answers] == [404, 404, 404, 404]
    assert await CustomerMessage.count() == 0 and await InvoiceLink.count() == 0


async def test_each_email_has_its_own_link_and_both_keep_working(
    app: Any, browser: httpx.AsyncClient, shop: dict[str, Any], smtp: MailServer, make_sender: Any
) -> None:
    number = shop["invoice"].number
    await _email(browser, number)
    _, first, _ = await _sent_link(smtp, make_sender)
    await _email(browser, number)
    _, second, _ = await _sent_link(smtp, make_sender, count=2)

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as customer:
        answers = [await customer.get(first), await customer.get(second)]

    assert first != second
    assert [a.status_code for a in answers] == [200, 200]
    assert await InvoiceLink.count() == 2
