"""A live order page in Chromium against real processes, on both databases: staff upload a
proof in another browser context and the customer answers it on the emailed link in a third;
the order page open in the first shows each proof sent, the request for changes with its
comment, and the approval, without reloading; the board beside it moves the card's Art mark
from "No proof yet" to "waiting on the customer", "changes requested" and "approved". On
PostgreSQL the proof email's "sent", recorded by the worker (another process), shows too. A
real receiver gets the new events `artwork.proof_sent` and `artwork.changes_requested`. At
1280 px and 390 px, checked with axe-core, saved as screenshots (live-timeline-…)."""

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
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, _free_port, axe, run_stack
from tests.browser.receiver import ThreadedReceiver
from tests.browser.test_admin import eventually
from tests.mail.smtp_server import ThreadedMailServer
from tests.proofs.files import png

LINK = re.compile(r"(http://127\.0\.0\.1:\d+/proofs/[A-Za-z0-9_-]+)")
LIVE_MS = 5000  # a loaded machine; the stream itself takes well under a second


@pytest.fixture
def smtp() -> Iterator[ThreadedMailServer]:
    server = ThreadedMailServer().start()
    yield server
    server.stop()


@pytest.fixture
async def shop(backend: str, receiver: ThreadedReceiver) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Acme Tees")
    await factories.contact(customer, is_primary=True, name="Dana Reyes", email="dana@acme.example")
    order = await factories.order(ws, customer, lines=[("Tour tees", 40, 650)])
    await subscriptions.create(ws.id, receiver.url, "artwork.proof_sent,artwork.changes_requested")
    return {"order": order}


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


def log_in(page: Page, stack: Stack) -> None:
    page.goto(f"{stack.base}/admin/login")
    page.fill("#email", "olive@inkwell.example")
    page.fill("#password", PASSWORD)
    page.click("button:has-text('Log in')")
    expect(page.locator("h1")).to_have_text("Inkwell Prints")


def open_live(page: Page, url: str) -> None:
    """`url`, once its stream is open, with a mark that a reload would lose."""
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("data-live", "open", timeout=LIVE_MS)
    page.evaluate("window.notReloaded = true")


def not_reloaded(page: Page) -> None:
    assert page.evaluate("window.notReloaded === true"), f"{page.url} was reloaded"


def upload(page: Page, stack: Stack, number: str, path: Path) -> None:
    page.goto(f"{stack.base}/admin/orders/{number}/artwork")
    page.set_input_files("#proof-file", str(path))
    page.click("button:has-text('Upload and email the customer')")
    expect(page.locator(".notice")).to_contain_text("uploaded")


def emailed_link(smtp: ThreadedMailServer, count: int) -> str:
    eventually(lambda: len(smtp.received) >= count, what=f"email {count}")
    found = LINK.search(smtp.received[count - 1].text())
    assert found, smtp.received[count - 1].text()
    return found.group(1)


def art_mark(board: Page, number: str) -> Any:
    return board.locator(f"#card-{number} [data-mark=art]")


@pytest.mark.parametrize("size", ["wide", "phone"])
def test_a_proof_and_the_customers_answers_show_on_the_open_order_page(
    shop: dict[str, Any], receiver: ThreadedReceiver, smtp: ThreadedMailServer, stack: Stack,
    backend: str, tmp_path: Path, size: str, page: Page,
) -> None:  # fmt: skip
    number = shop["order"].number
    viewport = DESKTOP if size == "wide" else PHONE
    page.set_viewport_size(viewport)
    image = tmp_path / "front.png"
    image.write_bytes(png())
    browser = page.context.browser
    assert browser is not None

    # The order page and the board, open in the first context.
    log_in(page, stack)
    board = page.context.new_page()
    board.set_viewport_size(viewport)
    open_live(board, f"{stack.base}/admin/orders/board")
    expect(art_mark(board, number)).to_contain_text("No proof yet")
    open_live(page, f"{stack.base}/admin/orders/{number}")
    expect(page.locator("#artwork-status")).to_have_text("awaiting proof")

    # Staff in another context send a proof.
    other = browser.new_context(viewport=DESKTOP)
    staff = other.new_page()
    log_in(staff, stack)
    upload(staff, stack, number, image)
    expect(page.locator("#timeline #proof-1")).to_contain_text("version 1", timeout=LIVE_MS)
    expect(page.locator("#artwork-status")).to_have_text("awaiting approval")
    expect(art_mark(board, number)).to_contain_text("Art waiting on the customer", timeout=LIVE_MS)
    if backend.startswith("postgres"):  # the worker's "sent", from another process
        email = page.locator("#timeline [data-kind=email]").first
        expect(email.locator(".state")).to_have_text("sent", timeout=LIVE_MS)

    # The customer asks for changes on the emailed link.
    customer = browser.new_context(viewport=PHONE)
    phone = customer.new_page()
    phone.goto(emailed_link(smtp, 1))
    phone.fill("#comment", "Please make the logo 20% bigger.")
    phone.click("button:has-text('Send my changes')")
    expect(phone.locator(".status")).to_contain_text("You asked for changes")
    answer = page.locator("#timeline #answer-1")
    expect(answer).to_contain_text("Changes requested", timeout=LIVE_MS)
    expect(answer.locator(".customer-comment")).to_have_text("Please make the logo 20% bigger.")
    expect(page.locator("#artwork-status")).to_have_text("changes requested")
    expect(art_mark(board, number)).to_contain_text("Art changes requested", timeout=LIVE_MS)
    axe(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"live-timeline-changes-{size}.png"), full_page=True)

    # A second proof, approved.
    upload(staff, stack, number, image)
    expect(page.locator("#timeline #proof-2")).to_contain_text("version 2", timeout=LIVE_MS)
    phone.goto(emailed_link(smtp, 2))
    phone.fill("#approve-name", "Dana Reyes")
    phone.click("button:has-text('Approve version 2')")
    expect(phone.locator(".status")).to_contain_text("Approved by Dana Reyes")
    expect(page.locator("#timeline #answer-2")).to_contain_text("Approved", timeout=LIVE_MS)
    expect(page.locator("#artwork-status")).to_have_text("approved")
    expect(art_mark(board, number)).to_contain_text("Art approved", timeout=LIVE_MS)
    not_reloaded(page)
    not_reloaded(board)
    axe(page)
    axe(board)
    page.screenshot(path=str(SCREENSHOTS / f"live-timeline-approved-{size}.png"), full_page=True)
    board.screenshot(path=str(SCREENSHOTS / f"live-timeline-board-{size}.png"), full_page=True)
    other.close()
    customer.close()
    board.close()

    # The receiver got the two new events, as an integrator would.
    eventually(lambda: len(receiver.received) >= 3, what="the proof and answer webhooks")
    bodies = [json.loads(request["body"]) for request in receiver.received]
    assert [(b["event"], b["artwork_version"]) for b in bodies] == [
        ("artwork.proof_sent", 1), ("artwork.changes_requested", 1), ("artwork.proof_sent", 2),
    ]  # fmt: skip
    assert bodies[1]["comment"] == "Please make the logo 20% bigger."
