"""Staff record an approval given elsewhere on the order's artwork page ("Record approval"):
the same domain function as the API's, so `artwork.approved` is recorded alike; it shows in
the page's approvals and in the order's timeline."""

from __future__ import annotations

import re

import httpx

from models.tables import Artwork, ArtworkApproval, WebhookEvent
from tests.admin.support import csrf_of
from tests.proofs.files import png
from tests.proofs.support import Shop, last_link, shop, upload

ENTRY = re.compile(r'<li class="entry" data-kind="approval" id="approval-\d+">(.*?)</li>', re.S)


async def _record(s: Shop, **fields: str) -> httpx.Response:
    page = await s.client.get(f"/admin/orders/{s.order.number}/artwork")
    assert page.status_code == 200, page.text
    return await s.client.post(
        f"/admin/orders/{s.order.number}/artwork/approval",
        data={"_csrf_token": csrf_of(page), **fields},
    )


async def _status(s: Shop) -> str:
    row = await Artwork.select(Artwork.status).where(Artwork.order == s.order.id).first()
    return str(row["status"])


async def test_staff_record_an_approval_given_at_checkout(staff: httpx.AsyncClient):
    s = await shop(staff)
    form = await staff.get(f"/admin/orders/{s.order.number}/artwork")
    assert 'id="record-approval"' in form.text and "before any proof" in form.text
    done = await _record(
        s, approved_by=" Dana  Reyes ", approval_note="Approved at checkout\r\nstore 10442"
    )
    assert done.status_code == 303, done.text
    assert done.headers["location"] == f"/admin/orders/{s.order.number}/artwork"
    assert await _status(s) == "approved"
    [record] = await ArtworkApproval.select().where(ArtworkApproval.order == s.order.id)
    assert (record["approved_by"], record["version"], record["actor_kind"]) == (
        "Dana Reyes",
        0,
        "user",
    )
    assert (record["user"], record["token"]) == (s.owner.id, None)
    assert record["note"] == "Approved at checkout\nstore 10442"
    [event] = await WebhookEvent.select().where(WebhookEvent.order == s.order.id)
    assert event["name"] == "artwork.approved"

    page = await staff.get(done.headers["location"])
    assert "Approval given by Dana Reyes recorded: the artwork is approved." in page.text
    assert "(recorded: given outside the proof page)" in page.text
    assert "Approvals recorded" in page.text and "before any proof" in page.text
    assert f"by {s.owner.name}" in page.text and "store 10442" in page.text
    assert 'id="record-approval"' not in page.text  # nothing left to approve

    order_page = await staff.get(f"/admin/orders/{s.order.number}")
    [entry] = ENTRY.findall(order_page.text)
    assert "given by <strong>Dana Reyes</strong>" in entry
    assert f"recorded by {s.owner.name}" in entry and "before any proof" in entry


async def test_an_approval_of_the_proof_awaiting_the_customer(
    staff: httpx.AsyncClient, customer: httpx.AsyncClient
):
    s = await shop(staff)
    assert (await upload(s, png(), "front.png")).status_code == 303
    done = await _record(s, approved_by="Dana (on the phone)")
    assert done.status_code == 303, done.text
    page = await staff.get(done.headers["location"])
    assert "Dana (on the phone)" in page.text
    order_page = await staff.get(f"/admin/orders/{s.order.number}")
    [entry] = ENTRY.findall(order_page.text)
    assert "of proof version 1" in entry
    # The customer's link says the proof was answered, and offers no answer any more.
    proof_page = await customer.get(await last_link())
    assert "This proof has already been answered." in proof_page.text
    assert "Approve version 1" not in proof_page.text


async def test_refusals_come_back_on_the_form(staff: httpx.AsyncClient):
    s = await shop(staff)
    blank = await _record(s, approved_by="   ", approval_note="kept as typed")
    assert blank.status_code == 422
    assert "Approved by must not be blank." in blank.text
    assert ">kept as typed</textarea>" in blank.text
    long_note = await _record(s, approved_by="Dana", approval_note="n" * 2001)
    assert long_note.status_code == 422
    assert "The note must be at most 2000 characters." in long_note.text
    assert 'value="Dana"' in long_note.text
    assert await _status(s) == "awaiting_proof" and await ArtworkApproval.count() == 0

    assert (await _record(s, approved_by="Dana")).status_code == 303
    twice = await _record(s, approved_by="Dana")  # a second tab's form
    assert twice.status_code == 422
    assert "is already approved (version 0)" in twice.text
    assert await ArtworkApproval.count() == 1 and await WebhookEvent.count() == 1


async def test_the_form_needs_its_token_and_the_workspace_order(staff, customer):
    s = await shop(staff)
    forged = await staff.post(
        f"/admin/orders/{s.order.number}/artwork/approval", data={"approved_by": "Dana"}
    )
    assert forged.status_code == 403
    other = await shop(customer)  # another shop's owner, on another browser
    page = await customer.get(f"/admin/orders/{other.order.number}/artwork")
    refused = await customer.post(
        f"/admin/orders/{s.order.number}/artwork/approval",
        data={"_csrf_token": csrf_of(page), "approved_by": "Dana"},
    )
    assert refused.status_code == 404
    assert await ArtworkApproval.count() == 0 and await _status(s) == "awaiting_proof"
