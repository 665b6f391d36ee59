"""Approvals given elsewhere, walked through in Chromium against a real web process and worker:
a storefront uploads the checkout's artwork without emailing the customer and records the
approval through the API; staff record one given on the phone with the artwork page's "Record
approval" form. Each approval lets the order into production and reaches a real webhook
receiver as `artwork.approved`; the pages show who recorded it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from models.webhooks import subscriptions
from tests import factories
from tests.admin.support import PASSWORD, member
from tests.browser.conftest import PHONE, Stack, axe
from tests.browser.receiver import ThreadedReceiver
from tests.browser.test_admin import eventually
from tests.proofs.files import png


@pytest.fixture
async def shop(backend: str, receiver: ThreadedReceiver) -> dict[str, Any]:
    ws = await factories.workspace(
        name="Inkwell Prints", timezone="Europe/London", require_artwork_approval=True
    )
    owner = await member(ws, name="Olive Owner", email="olive@inkwell.example")
    customer = await factories.customer(ws, "Acme Tees")
    await factories.contact(customer, is_primary=True, name="Dana Reyes", email="dana@acme.example")
    await subscriptions.create(ws.id, receiver.url, "artwork.approved")
    return {
        "checkout": await factories.order(ws, customer, external_ref="SHOP-1001"),
        "phoned": await factories.order(ws, customer, external_ref="SHOP-1002"),
        "token": await factories.token(owner, name="Storefront"),
    }


def _log_in(page: Page, stack: Stack) -> None:
    page.goto(f"{stack.base}/admin/login")
    page.fill("#email", "olive@inkwell.example")
    page.fill("#password", PASSWORD)
    page.click("button:has-text('Log in')")
    expect(page.locator("h1")).to_have_text("Inkwell Prints")


def _events(receiver: ThreadedReceiver) -> list[dict[str, Any]]:
    return [json.loads(item["body"]) for item in receiver.received]


def test_approvals_given_elsewhere_are_recorded_through_the_api_and_the_admin(
    shop: dict, receiver: ThreadedReceiver, stack: Stack, tmp_path: Path, page: Page
) -> None:
    checkout, phoned, token = shop["checkout"], shop["phoned"], shop["token"]

    # The storefront: the checkout's artwork as a proof, no email, then the approval.
    uploaded = stack.api(
        "POST",
        f"/api/v1/orders/{checkout.id}/proofs",
        token,
        files={"file": ("checkout-art.png", png(), "image/png")},
        data={"notify": "false"},
    )
    assert uploaded.status_code == 201, uploaded.text
    approved = stack.api(
        "POST",
        f"/api/v1/orders/{checkout.id}/artwork/approve",
        token,
        json={"approved_by": "Dana Reyes", "note": "Approved at checkout (SHOP-1001)"},
    )
    assert approved.status_code == 200, approved.text
    assert approved.json()["approval_source"] == "recorded"
    moved = stack.api(
        "POST", f"/api/v1/orders/{checkout.id}/advance", token, json={"to_stage": "print_queue"}
    )
    assert moved.status_code == 200, moved.text
    eventually(lambda: len(receiver.received) >= 1, what="the checkout's artwork.approved")
    first = _events(receiver)[0]
    assert (first["event"], first["order_number"], first["artwork_version"]) == (
        "artwork.approved",
        checkout.number,
        1,
    )

    _log_in(page, stack)
    page.goto(f"{stack.base}/admin/orders/{checkout.number}")
    timeline = page.locator("#timeline [data-kind='approval']")
    expect(timeline).to_contain_text("Approval of proof version 1 given by Dana Reyes")
    expect(timeline).to_contain_text("recorded by API token Storefront")
    expect(timeline.locator(".customer-comment")).to_have_text("Approved at checkout (SHOP-1001)")

    # Staff: the customer said yes on the phone, before any proof.
    page.goto(f"{stack.base}/admin/orders/{phoned.number}/artwork")
    form = page.locator("#record-approval")
    expect(form).to_contain_text("before any proof")
    form.locator("button:has-text('Record approval')").click()  # empty: the browser asks
    expect(page).to_have_url(f"{stack.base}/admin/orders/{phoned.number}/artwork")
    page.fill("#approved-by", "   ")  # blank for the server, filled for the browser
    page.fill("#approval-note", "Said yes on the phone to Olive")
    form.locator("button:has-text('Record approval')").click()
    expect(page.locator("#approved_by-error")).to_have_text("Approved by must not be blank.")
    expect(page.locator("#approval-note")).to_have_value("Said yes on the phone to Olive")
    axe(page)
    page.fill("#approved-by", "Dana Reyes (phone)")
    page.click("#record-approval button:has-text('Record approval')")
    expect(page.locator(".notice")).to_contain_text(
        "Approval given by Dana Reyes (phone) recorded: the artwork is approved."
    )
    expect(page.locator("#artwork-state")).to_contain_text("approved")
    expect(page.locator("#artwork-state")).to_contain_text("by Dana Reyes (phone)")
    row = page.locator("table[aria-labelledby='approvals-heading'] tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("before any proof")
    expect(row).to_contain_text("by Olive Owner")
    expect(row).to_contain_text("Said yes on the phone to Olive")
    expect(page.locator("#record-approval")).to_have_count(0)
    axe(page)
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.set_viewport_size({"width": 1280, "height": 900})

    eventually(lambda: len(receiver.received) >= 2, what="the phone's artwork.approved")
    second = _events(receiver)[1]
    assert (second["order_number"], second["artwork_version"]) == (phoned.number, 0)
    detail = stack.api("GET", f"/api/v1/orders/{phoned.id}", token).json()
    assert detail["artwork"]["approved_by"] == "Dana Reyes (phone)"
    assert detail["artwork"]["approval_note"] == "Said yes on the phone to Olive"
    moved = stack.api(
        "POST", f"/api/v1/orders/{phoned.id}/advance", token, json={"to_stage": "print_queue"}
    )
    assert moved.status_code == 200, moved.text
    page.goto(f"{stack.base}/admin/orders/{phoned.number}/artwork")  # the screenshot's page
