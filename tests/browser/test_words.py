"""Locations and methods in words, and long words wrapped, in Chromium against real processes:
an order of garments sent through the API (an embroidered left chest, a two-colour screen
print of a design, a long description and a word longer than a phone is wide) shown on the
order page, the work order, the invoice and the customer's proof page (its link emailed by
the real worker through a real SMTP server), at 1280 px and at a phone's 390 px: the setup
lines say "Setup: left chest, embroidery", no page is wider than the window and no cell
spills out of its table. axe-core finds no serious or critical violation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests import factories
from tests.admin.support import member
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS, Stack, _free_port, axe, run_stack
from tests.browser.test_admin import log_in
from tests.browser.test_proofs import _email_link, _upload
from tests.mail.smtp_server import ThreadedMailServer
from tests.proofs.files import png

LONG_WORD = "Pneumonoultramicroscopicsilicovolcanoconiosissupercalifragilisticexpialidocious"
DESCRIPTION = (
    "Hop & Barley Brewing Co. twenty-fifth anniversary staff and volunteers heavyweight "
    "garment-dyed pullover hoodie with ribbed cuffs"
)
SETUPS = (
    "Setup: left chest, embroidery",
    "Setup: front, screen print, 2 colours (hop-and-barley-anniversary-crest-2026)",
    "Setup: back, DTG",
)
ORDER: dict[str, Any] = {
    "items": [
        {"style": "Heavy Hoodie", "colour": "Navy", "description": DESCRIPTION,
         "sizes": {"S": 3, "M": 5, "L": 4}, "unit_price_cents": 2200,
         "imprints": [{"location": "left_chest", "method": "embroidery", "stitches": 8000,
                       "setup_cents": 3000}]},
        {"style": "Crew Tee", "colour": "Natural", "sizes": {"M": 24, "L": 24},
         "unit_price_cents": 450,
         "imprints": [{"location": "front", "method": "screen", "colours": 2,
                       "design": "hop-and-barley-anniversary-crest-2026", "setup_cents": 2500},
                      {"location": "back", "method": "dtg", "setup_cents": 1000}]},
    ],
    "lines": [{"description": f"Artwork: {LONG_WORD}", "quantity": 1, "unit_price_cents": 4500}],
}  # fmt: skip
# What is wider than it may be: the page than the window, a table than the box it scrolls in,
# a cell (or list item) than its table (or list).
SPILLS = """() => {
  const out = [];
  if (document.documentElement.scrollWidth > window.innerWidth) out.push('page');
  for (const box of document.querySelectorAll('main .table-wrap'))
    if (box.scrollWidth > box.clientWidth + 1) out.push('scrolls: ' + box.id + box.className);
  for (const cell of document.querySelectorAll('main td, main th, main li')) {
    const box = cell.closest('table, ul, ol') || cell.parentElement;
    if (cell.getBoundingClientRect().right > box.getBoundingClientRect().right + 1)
      out.push(cell.textContent.trim().slice(0, 40));
  }
  return out;
}"""


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    ws = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Hop & Barley Brewing Co.")
    await factories.contact(customer, is_primary=True, name="Dana Reyes", email="dana@acme.example")
    return {"customer": customer, "token": await factories.token(owner)}


@pytest.fixture
def smtp() -> Iterator[ThreadedMailServer]:
    server = ThreadedMailServer().start()
    yield server
    server.stop()


@pytest.fixture
def stack(backend: str, smtp: ThreadedMailServer, tmp_path: Path) -> Iterator[Stack]:
    """The web process and the worker, sending the proof email through `smtp`."""
    port = _free_port()
    env = {"PUBLIC_URL": f"http://127.0.0.1:{port}", "SMTP_URL": smtp.url, "LOG_LEVEL": "WARNING"}
    yield from run_stack(backend, tmp_path, env, port)


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"words-{name}.png"), full_page=True)


def check(page: Page, url: str, name: str, *, setups: tuple[str, ...] = SETUPS) -> None:
    """`url` at 1280 px and at 390 px: the setup lines in words, nothing spilling, axe clean;
    a screenshot of each."""
    for size, width in (("wide", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(width)
        page.goto(url)
        shot(page, f"{name}-{size}")
        for setup in setups:
            expect(page.locator("main")).to_contain_text(setup)
        expect(page.locator("main")).not_to_contain_text("left_chest")
        assert page.evaluate(SPILLS) == [], (name, size)
        axe(page)


def test_words_and_long_words_on_every_page(
    shop: dict[str, Any], smtp: ThreadedMailServer, stack: Stack, tmp_path: Path, page: Page
) -> None:
    created = stack.api(
        "POST", "/api/v1/orders", shop["token"], json={"customer_id": shop["customer"].id, **ORDER}
    )
    assert created.status_code == 201, created.text
    order = created.json()
    assert [line["description"] for line in order["lines"] if "Setup" in line["description"]] == [
        *SETUPS
    ]
    log_in(page, stack, "olive@inkwell.example")
    expect(page.locator("h1")).to_have_text("Inkwell Prints")
    base = f"{stack.base}/admin/orders/{order['number']}"

    check(page, base, "order")
    expect(page.locator("#item-0 .imprint").first).to_contain_text("Left chest · Embroidery")
    # the work order lists the garments' imprints, and only the plain lines
    check(page, f"{base}/work-order", "work-order", setups=("Left chest · Embroidery", LONG_WORD))

    page.set_viewport_size(DESKTOP)
    image = tmp_path / "front.png"
    image.write_bytes(png())
    _upload(page, stack, order["number"], image)
    expect(page.locator(".notice")).to_contain_text("Proof version 1 uploaded")
    _, link = _email_link(smtp, 1)
    check(page, link, "proof")

    dispatched = stack.api(
        "POST", f"/api/v1/orders/{order['id']}/advance", shop["token"],
        json={"to_stage": "dispatched", "carrier": "DPD", "tracking_number": "JD0002212345"},
    )  # fmt: skip
    assert dispatched.status_code == 200, dispatched.text
    detail = stack.api("GET", f"/api/v1/orders/{order['id']}", shop["token"]).json()
    number = detail["invoices"][0]["number"]
    check(page, f"{stack.base}/admin/invoices/{number}", "invoice")
