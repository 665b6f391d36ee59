"""Proofs walked through in Chromium: staff upload on the order's page, the customer follows
the emailed link (sent by the real worker through a real SMTP server), approves or asks for
changes; the API and a real webhook receiver see the approval."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models.webhooks import subscriptions
from tests import factories
from tests.admin.support import PASSWORD, member
from tests.browser.conftest import PHONE, Stack, _free_port, run_stack
from tests.browser.receiver import ThreadedReceiver
from tests.browser.test_admin import eventually
from tests.mail.smtp_server import Received, ThreadedMailServer
from tests.proofs.files import png

LINK = re.compile(r"(http://127\.0\.0\.1:\d+/proofs/[A-Za-z0-9_-]+)")


@pytest.fixture
def smtp() -> Iterator[ThreadedMailServer]:
    server = ThreadedMailServer().start()
    yield server
    server.stop()


@pytest.fixture
async def shop(backend: str, receiver: ThreadedReceiver) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Acme Tees")
    await factories.contact(customer, is_primary=True, name="Dana Reyes", email="dana@acme.example")
    order = await factories.order(ws, customer, external_ref="SHOP-1001")
    second = await factories.order(ws, customer)
    await subscriptions.create(ws.id, receiver.url, "artwork.approved")
    return {
        "ws": ws,
        "order": order,
        "second": second,
        "token": await factories.token(owner),
    }


@pytest.fixture
def stack(backend: str, smtp: ThreadedMailServer, tmp_path: Path) -> Iterator[Stack]:
    """The web process and the worker, sending email through `smtp`."""
    port = _free_port()
    env = {
        "PUBLIC_URL": f"http://127.0.0.1:{port}",
        "SMTP_URL": smtp.url,
        "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1",
        "WEBHOOK_POLL_INTERVAL": "0.2",
        "WEBHOOK_TIMEOUT": "3",
        "WEBHOOK_LEASE": "10",
        "LOG_LEVEL": "WARNING",
    }
    yield from run_stack(backend, tmp_path, env, port)


def _log_in(page: Page, stack: Stack) -> None:
    page.goto(f"{stack.base}/admin/login")
    page.fill("#email", "olive@inkwell.example")
    page.fill("#password", PASSWORD)
    page.click("button:has-text('Log in')")
    expect(page.locator("h1")).to_have_text("Inkwell Prints")


def _upload(page: Page, stack: Stack, number: str, path: Path) -> None:
    page.goto(f"{stack.base}/admin/orders/{number}/artwork")
    page.set_input_files("#proof-file", str(path))
    page.click("button:has-text('Upload and email the customer')")


def _email_link(smtp: ThreadedMailServer, count: int) -> tuple[Received, str]:
    eventually(lambda: len(smtp.received) >= count, what=f"email {count}")
    mail = smtp.received[count - 1]
    found = LINK.search(mail.text())
    assert found, mail.text()
    return mail, found.group(1)


def test_a_customer_approves_a_proof_and_asks_for_changes(
    shop: dict, receiver: ThreadedReceiver, smtp: ThreadedMailServer, stack: Stack,
    tmp_path: Path, page: Page,
) -> None:  # fmt: skip
    order, second = shop["order"], shop["second"]
    image = tmp_path / "front.png"
    image.write_bytes(png())
    fake = tmp_path / "notes.png"
    fake.write_text("this is text, not an image")
    _log_in(page, stack)

    _upload(page, stack, order.number, fake)
    expect(page.locator("#file-error")).to_contain_text("not a PDF, PNG or JPEG")
    _upload(page, stack, order.number, image)
    expect(page.locator(".notice")).to_contain_text("Proof version 1 uploaded")
    expect(page.locator("#proof-1")).to_contain_text("front.png")

    mail, link = _email_link(smtp, 1)
    assert mail.recipients == ["dana@acme.example"]
    assert mail.message["From"].addresses[0].display_name == "Inkwell Prints"
    assert order.number in mail.message["Subject"]
    assert link.startswith(stack.base + "/proofs/")

    customer = page.context.browser.new_context(viewport=PHONE)  # type: ignore[union-attr]
    phone = customer.new_page()
    phone.goto(link)
    expect(phone.locator("h1")).to_have_text(f"Proof for order {order.number}")
    expect(phone.locator(".proof img")).to_be_visible()
    assert phone.evaluate("document.querySelector('.proof img').naturalWidth") == 240
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.fill("#approve-name", "Dana Reyes")
    phone.click("button:has-text('Approve version 1')")
    expect(phone.locator(".status")).to_contain_text("Approved by Dana Reyes")

    detail = stack.api("GET", f"/api/v1/orders/{order.id}", shop["token"]).json()
    assert detail["artwork"]["status"] == "approved"
    assert detail["artwork"]["version"] == 1
    eventually(lambda: len(receiver.received) >= 1, what="artwork.approved webhook")
    body = json.loads(receiver.received[0]["body"])
    assert (body["event"], body["order_number"], body["artwork_version"]) == (
        "artwork.approved",
        order.number,
        1,
    )

    _upload(page, stack, second.number, image)
    expect(page.locator(".notice")).to_contain_text("Proof version 1 uploaded")
    _, second_link = _email_link(smtp, 2)
    phone.goto(second_link)
    phone.fill("#comment", "Please make the logo 20% bigger.")
    phone.click("button:has-text('Send my changes')")
    expect(phone.locator(".status")).to_contain_text("You asked for changes")
    customer.close()

    page.goto(f"{stack.base}/admin/orders/{second.number}")  # the order's own page
    expect(page.locator("#artwork-status")).to_have_text("changes requested")
    expect(page.locator("#timeline #proof-1")).to_contain_text("Changes requested")
    expect(page.locator("#timeline #answer-1")).to_contain_text(
        "The customer asked for changes to proof version 1"
    )
    expect(page.locator("#timeline #answer-1 .customer-comment")).to_have_text(
        "Please make the logo 20% bigger."
    )
    page.goto(f"{stack.base}/admin/orders/{second.number}/artwork")  # the proofs' table
    expect(page.locator("#proof-1")).to_contain_text("changes requested")
    expect(page.locator("#proof-1 .customer-comment")).to_have_text(
        "Please make the logo 20% bigger."
    )
    expect(page.locator("#messages")).to_contain_text("sent")
