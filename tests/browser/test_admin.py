"""The admin walked through as a person would, in Chromium, against real processes."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models.tables import Customer, Workspace
from tests import factories
from tests.admin.support import PASSWORD, member
from tests.browser.conftest import PHONE, SCREENSHOTS, Stack, axe
from tests.browser.receiver import ThreadedReceiver

HOSTILE_CUSTOMER = "<img src=x onerror=alert('customer')>"


@pytest.fixture
async def shop(backend: str) -> dict[str, Any]:
    """A premium workspace, its owner (with a password and an API token) and a customer whose
    name is an HTML injection attempt."""
    ws: Workspace = await factories.workspace(name="Inkwell Prints", timezone="Europe/London")
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer: Customer = await factories.customer(ws, HOSTILE_CUSTOMER)
    return {"ws": ws, "owner": owner, "customer": customer, "token": await factories.token(owner)}


def log_in(page: Page, stack: Stack, email: str, password: str = PASSWORD) -> None:
    page.goto(f"{stack.base}/admin/")
    expect(page).to_have_url(re.compile(r"/admin/login"))
    page.fill("#email", email)
    page.fill("#password", password)
    page.click("button:has-text('Log in')")


def eventually(check: Callable[[], bool], timeout: float = 40, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.3)


def test_tokens_created_copied_used_and_revoked(shop: dict, stack: Stack, page: Page) -> None:
    log_in(page, stack, "olive@inkwell.example", "a wrong password!")
    expect(page.locator(".alert")).to_have_text("Wrong email or password.")
    expect(page.locator("#email")).to_have_value("olive@inkwell.example")
    page.fill("#password", PASSWORD)
    page.click("button:has-text('Log in')")
    expect(page.locator("h1")).to_have_text("Inkwell Prints")
    page.click("nav >> text=API tokens")
    page.fill("#name", "Shop website")
    page.fill("#days", "30")
    page.click("button:has-text('Create token')")
    token = page.locator("#new-token").inner_text().strip()
    assert token.startswith("plk_")
    page.click("button[data-copy='new-token']")
    expect(page.locator("button[data-copy='new-token']")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == token
    assert stack.api("GET", "/api/v1/me", token).status_code == 200
    page.click("text=Back to the tokens")
    assert token not in page.content()  # shown once, never again
    row = page.locator("tr", has_text="Shop website")
    expect(row).to_contain_text("active")
    row.locator("text=Revoke").click()
    page.click("button:has-text('Revoke token')")
    expect(page.locator(".notice")).to_have_text("The token was revoked.")
    expect(page.locator("tr", has_text="Shop website")).to_contain_text("revoked")
    assert stack.api("GET", "/api/v1/me", token).status_code == 401
    expect(page.locator("tr", has_text="Shop website")).to_contain_text("never")


def _advance_new_order(stack: Stack, shop: dict) -> None:
    created = stack.api(
        "POST", "/api/v1/orders", shop["token"],
        json={"customer_id": shop["customer"].id,
              "lines": [{"description": "Front print", "quantity": 10, "unit_price_cents": 1250}]},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    moved = stack.api(
        "POST", f"/api/v1/orders/{created.json()['id']}/advance", shop["token"],
        json={"to_stage": "print_queue"},
    )  # fmt: skip
    assert moved.status_code == 200, moved.text


def test_webhook_failures_deactivation_and_requeue(
    shop: dict, stack: Stack, receiver: ThreadedReceiver, page: Page
) -> None:
    log_in(page, stack, "olive@inkwell.example")
    page.click("nav >> text=Webhooks")
    # an invalid form first: it comes back with the messages and what was typed
    page.fill("#url", 'not a url "quoted"')
    page.uncheck("input[value='*']")
    page.click("button:has-text('Create subscription')")
    expect(page.locator("#url-error")).to_contain_text("The URL must be absolute")
    expect(page.locator("#events-error")).to_contain_text("Choose at least one event")
    expect(page.locator("#url")).to_have_value('not a url "quoted"')
    page.fill("#url", receiver.url)
    # one event per order below: its move (each create records order.created too)
    page.check("input[value='order.stage_changed']")
    page.select_option("#customer", label=HOSTILE_CUSTOMER)
    page.click("button:has-text('Create subscription')")
    secret = page.locator("#signing-secret").inner_text()
    assert secret.startswith("whsec_")
    page.click("text=Open the subscription")

    _advance_new_order(stack, shop)
    page.click("text=Deliveries")
    # the list refreshes itself (htmx) until the delivery shows as sent
    expect(page.locator("#deliveries .state.succeeded")).to_have_count(1, timeout=30_000)
    assert receiver.received[0]["headers"]["X-SVC-Signature"].startswith("sha256=")

    receiver.failing = True
    for _ in range(4):  # 4 deliveries x 5 attempts = 20 consecutive failures
        _advance_new_order(stack, shop)
    page.goto(f"{stack.base}/admin/webhooks")

    def deactivated() -> bool:
        page.reload()
        return page.locator("td .state.deactivated").count() == 1

    eventually(deactivated, what="the subscription's deactivation")
    expect(page.locator("tbody tr")).to_contain_text("20")
    _advance_new_order(stack, shop)  # recorded as skipped while deactivated

    page.click("nav >> text=Deliveries")
    page.select_option("select[name=status]", "failed")
    page.click("button:has-text('Filter')")
    expect(page.locator("#deliveries tbody tr")).to_have_count(4)
    page.locator("#deliveries tbody tr a").first.click()
    expect(page.locator(".attempt")).to_have_count(5)
    first = page.locator(".attempt").first
    expect(first).to_contain_text("HTTP 500")
    expect(first.locator(".response-body")).to_contain_text("<script>alert('receiver')</script>")
    expect(first).to_contain_text("<script>alert('header')</script>")
    expect(page.locator("#event-body")).to_contain_text('"order_number"')

    receiver.failing = False
    sent_before = len(receiver.received)
    page.click("dd a[href*='/webhooks/']")  # the subscription
    page.check("input[name=requeue]")
    page.click("button:has-text('Re-enable subscription')")
    expect(page.locator(".notice")).to_contain_text("5 failed or skipped deliveries were queued")
    eventually(lambda: len(receiver.received) >= sent_before + 5, what="the re-queued deliveries")
    page.click("text=Deliveries")
    expect(page.locator("#deliveries .state.succeeded")).to_have_count(6, timeout=30_000)
    walk_every_page(page, stack)


def walk_every_page(page: Page, stack: Stack) -> None:
    """Each page once more, as the documentation shows it (docs/admin/)."""
    page.set_viewport_size({"width": 1100, "height": 760})
    for name, link in (
        ("overview", "nav >> text=Overview"),
        ("tokens", "nav >> text=API tokens"),
        ("staff", "nav >> text=Staff"),
        ("webhooks", "nav >> text=Webhooks"),
        ("webhook", "td[data-label=URL] a"),
        ("deliveries", "nav >> text=Deliveries"),
        ("delivery", "#deliveries tbody tr a"),
    ):
        page.locator(link).first.click()
        page.wait_for_load_state()
        assert page.locator("h1").count() == 1, name
        axe(page)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"page-{name}.png"))
    page.goto(f"{stack.base}/admin/deliveries/2")  # failed 5 times, then resent
    page.locator(".attempt").first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "page-attempts.png"))


def test_staff_and_a_phone_sized_window(shop: dict, stack: Stack, page: Page) -> None:
    log_in(page, stack, "olive@inkwell.example")
    page.click("nav >> text=Staff")
    page.fill("#name", "Sam Staff")
    page.fill("#email", "sam@inkwell.example")
    page.fill("#password", "short")
    page.click("button:has-text('Add member')")
    expect(page.locator("#password-error")).to_contain_text("at least 12 characters")
    expect(page.locator("#email")).to_have_value("sam@inkwell.example")
    page.fill("#password", "sam's long password")
    page.click("button:has-text('Add member')")
    expect(page.locator(".notice")).to_contain_text("The member was added")
    page.click("button:has-text('Log out')")
    expect(page).to_have_url(re.compile(r"/admin/login"))

    page.set_viewport_size(PHONE)
    log_in(page, stack, "sam@inkwell.example", "sam's long password")
    expect(page.locator("header.top")).to_contain_text("Sam Staff (staff)")
    expect(page.locator("nav >> text=Staff")).to_have_count(0)
    page.goto(f"{stack.base}/admin/staff")
    expect(page.locator("h1")).to_have_text("Owners only")
    page.goto(f"{stack.base}/admin/webhooks")
    expect(page.locator("text=Only an owner can add or change subscriptions.")).to_be_visible()
    page.click("header.top .menu-toggle")  # on a phone the navigation is behind "Menu"
    page.click("nav >> text=API tokens")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width}px wide in a {PHONE['width']}px window"
