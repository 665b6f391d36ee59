"""The customer's page `/proofs/{token}`: approve, ask for changes, and every stale link."""

from __future__ import annotations

import datetime as dt
import json

import httpx

from models import clock
from models.actors import OPERATOR
from models.orders.stage_moves import advance_order
from models.tables import Artwork, ArtworkProof, WebhookEvent
from tests.proofs.files import png
from tests.proofs.support import Shop, form_token, last_link, shop, upload


async def _artwork(s: Shop) -> dict:
    return await Artwork.select().where(Artwork.order == s.order.id).first()


async def _post(client: httpx.AsyncClient, link: str, action: str, **fields: str) -> httpx.Response:
    page = await client.get(link)
    return await client.post(f"{link}/{action}", data={"_csrf": form_token(page), **fields})


async def test_the_customer_sees_the_proof_and_approves_it(staff, customer):
    s = await shop(staff, external_ref="SHOP-1001")
    image = png()
    await upload(s, image, note="Left chest, 9 cm wide")
    link = await last_link()

    page = await customer.get(link)
    assert page.status_code == 200
    for shown in (
        "Inkwell Prints",
        s.order.number,
        "SHOP-1001",
        "Front print",
        "Left chest",
        "GMT",
    ):
        assert shown in page.text, shown
    assert f'<img src="{link}/file"' in page.text
    assert page.headers["content-security-policy"].startswith("default-src 'self'")
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["cache-control"] == "no-store"
    assert 'name="viewport"' in page.text
    served = await customer.get(f"{link}/file")
    assert served.content == image and served.headers["content-type"] == "image/png"

    done = await _post(customer, link, "approve", name="Dana Reyes")
    assert done.status_code == 303 and done.headers["location"] == link
    art = await _artwork(s)
    assert (art["status"], art["version"], art["approved_by"]) == ("approved", 1, "Dana Reyes")
    assert art["approved_at"] is not None
    proof = await ArtworkProof.select().first()
    assert (proof["answer"], proof["answered_name"], proof["answered_from"]) == (
        "approved",
        "Dana Reyes",
        "203.0.113.7",
    )
    events = await WebhookEvent.select(WebhookEvent.name, WebhookEvent.body).order_by(
        WebhookEvent.id
    )
    assert [e["name"] for e in events] == ["artwork.proof_sent", "artwork.approved"]
    assert f'"order_number":"{s.order.number}"' in events[1]["body"].replace(" ", "")
    after = await customer.get(link)
    assert "Approved by Dana Reyes" in after.text and "Approve version" not in after.text

    again = await customer.post(f"{link}/approve", data={"_csrf": form_token(page)})
    assert again.status_code == 409 and "Approved by Dana Reyes" in again.text
    assert await WebhookEvent.count() == 2

    admin = await staff.get(f"/admin/orders/{s.order.number}/artwork")
    assert "approved" in admin.text and "Dana Reyes" in admin.text and "203.0.113.7" in admin.text


async def test_the_customer_asks_for_changes(staff, customer):
    s = await shop(staff)
    await upload(s, png())
    link = await last_link()
    opened = await customer.get(link)
    empty = await _post(customer, link, "changes", comment="   ")
    assert empty.status_code == 422 and "Please tell us what to change" in empty.text
    long = await _post(customer, link, "changes", comment="x" * 2001)
    assert long.status_code == 422 and "2,000 characters" in long.text
    assert (await _artwork(s))["status"] == "awaiting_approval"

    done = await _post(customer, link, "changes", comment="Make the logo <b>bigger</b>, please")
    assert done.status_code == 303
    assert (await _artwork(s))["status"] == "changes_requested"
    asked = await WebhookEvent.select(WebhookEvent.name, WebhookEvent.body).order_by(
        WebhookEvent.id
    )
    assert [e["name"] for e in asked] == ["artwork.proof_sent", "artwork.changes_requested"]
    body = json.loads(asked[1]["body"])
    assert (body["order_number"], body["artwork_version"], body["comment"]) == (
        s.order.number, 1, "Make the logo <b>bigger</b>, please"
    )  # fmt: skip
    shown = await customer.get(link)
    assert "You asked for changes" in shown.text
    assert "Make the logo &lt;b&gt;bigger&lt;/b&gt;, please" in shown.text
    admin = await staff.get(f"/admin/orders/{s.order.number}/artwork")
    assert "changes requested" in admin.text
    assert "Make the logo &lt;b&gt;bigger&lt;/b&gt;, please" in admin.text
    overview = await staff.get("/admin/")  # "Needs attention": a new proof is needed
    listed = overview.text.split('id="attention-changes_requested"')[1].split("</section>")[0]
    assert f'/admin/orders/{s.order.number}"' in listed
    assert "Make the logo &lt;b&gt;bigger&lt;/b&gt;, please" in listed
    refused = await customer.post(f"{link}/approve", data={"_csrf": form_token(opened)})
    assert refused.status_code == 409 and "You asked for changes" in refused.text
    assert (await _artwork(s))["status"] == "changes_requested"


async def test_stale_links_say_why_and_change_nothing(staff, customer):
    s = await shop(staff)
    await upload(s, png())
    first = await last_link()
    first_page = await customer.get(first)
    await upload(s, png(colour=(200, 30, 30)))
    second = await last_link()

    superseded = await customer.post(f"{first}/approve", data={"_csrf": form_token(first_page)})
    assert superseded.status_code == 409 and "A newer proof" in superseded.text
    assert 'id="attention-changes_requested"' not in (await staff.get("/admin/")).text
    assert ((await _artwork(s))["status"], (await _artwork(s))["version"]) == (
        "awaiting_approval",
        2,
    )

    second_page = await customer.get(second)
    await ArtworkProof.update(
        {ArtworkProof.token_expires_at: clock.now() - dt.timedelta(seconds=1)}
    ).where(ArtworkProof.version == 2)
    expired = await customer.post(f"{second}/approve", data={"_csrf": form_token(second_page)})
    assert expired.status_code == 409 and "expired" in expired.text
    assert f"{second}/file" not in expired.text
    assert (await customer.get(f"{second}/file")).status_code == 404
    assert (await customer.get(f"{first}/file")).status_code == 200  # superseded: viewable
    assert (await _artwork(s))["status"] == "awaiting_approval"

    await ArtworkProof.update(
        {ArtworkProof.token_expires_at: clock.now() + dt.timedelta(days=1)}
    ).where(ArtworkProof.version == 2)
    await advance_order(
        actor=OPERATOR, workspace_id=s.ws.id, order_id=s.order.id, to_stage="print_queue"
    )
    closed = await customer.post(
        f"{second}/changes", data={"_csrf": form_token(second_page), "comment": "too late?"}
    )
    assert closed.status_code == 409 and "moved on from the artwork stage" in closed.text
    assert (await _artwork(s))["status"] == "awaiting_approval"
    assert await ArtworkProof.count().where(ArtworkProof.answer.is_not_null()) == 0
    assert await WebhookEvent.count().where(WebhookEvent.name == "artwork.approved") == 0


async def test_altered_tokens_are_not_found_and_forms_need_their_token(staff, customer):
    s = await shop(staff)
    await upload(s, png())
    link = await last_link()
    token = link.rsplit("/", 1)[1]
    altered = "/proofs/" + token[:-1] + ("A" if token[-1] != "A" else "B")
    for path in (altered, f"{altered}/file", "/proofs/short", "/proofs/" + "x" * 300):
        answer = await customer.get(path)
        assert answer.status_code == 404, path
        assert "This link does not work" in answer.text
    assert (await customer.post(f"{altered}/approve", data={"_csrf": "0"})).status_code == 404
    forged = await customer.post(f"{link}/approve", data={"_csrf": "0" * 64, "name": "Eve"})
    assert forged.status_code == 403
    missing = await customer.post(f"{link}/approve", data={"name": "Eve"})
    assert missing.status_code == 403
    assert (await _artwork(s))["status"] == "awaiting_approval"
