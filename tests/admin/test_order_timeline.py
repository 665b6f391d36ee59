"""The order page's timeline over HTTP (models/orders/timeline.py): every kind of entry, newest
first with who and what; edits with who made them, kept after retention prunes the outbox; the
proofs as thumbnails with the approved version marked; nothing of another workspace; the
customer's name links to the customer's page; the live regions."""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib
import json
import re
import uuid

from models import clock, db, retention
from models.actors import OPERATOR, Actor
from models.orders import editing
from models.orders import timeline as order_timeline
from models.orders.lines import NewLine
from models.tables import (
    ApiToken,
    ArtworkProof,
    CustomerMessage,
    Invoice,
    Order,
    OrderEditRecord,
    Payment,
    StageChange,
    User,
    WebhookDelivery,
    WebhookEvent,
    Workspace,
)
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import subscription
from tests.proofs.files import PDF, png

T0 = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.UTC)
ENTRY = re.compile(r'<li class="entry" data-kind="(\w+)" id="([\w-]+)"')


def at(hours: float) -> dt.datetime:
    return T0 + dt.timedelta(hours=hours)


async def proof(
    o: Order, version: int, when: dt.datetime, *, content_type: str, by: User | None = None,
    **answer: object,
) -> None:  # fmt: skip
    data = png() if content_type == "image/png" else PDF
    await ArtworkProof(
        workspace=o.workspace, order=o.id, version=version,
        file_name=f"front-v{version}.{content_type.rsplit('/', 1)[-1]}", content_type=content_type,
        size=len(data), sha256=hashlib.sha256(data).hexdigest(), data=data, created_at=when,
        created_by=by.id if by else None, token_digest=uuid.uuid4().hex,
        token_expires_at=when + dt.timedelta(days=30), **answer,
    ).save()  # fmt: skip


async def event(ws_id: int, o: Order, name: str, when: dt.datetime, **fields: object) -> int:
    body = json.dumps({"event": name, "order_id": o.id, **fields})
    row = WebhookEvent(
        workspace=ws_id, event_id=str(uuid.uuid4()), name=name, order=o.id, body=body,
        created_at=when,
    )  # fmt: skip
    await row.save()
    return int(row.id)


async def edit_record(
    ws_id: int, o: Order, when: dt.datetime, revision: int, changed: list[str], **who: object
) -> int:
    """An edit as models/orders/editing.py records it (who: actor_kind, user, token)."""
    row = OrderEditRecord(
        workspace=ws_id, order=o.id, revision=revision, changed=json.dumps(changed),
        created_at=when, **{"actor_kind": "operator", **who},
    )  # fmt: skip
    await row.save()
    return int(row.id)


async def seeded(shop: Shop) -> tuple[Order, dict[str, int]]:
    """An order with one entry of each kind, an hour apart (the creation at T0)."""
    customer = await factories.customer(shop.ws, name="Acme Brewing")
    contact = await factories.contact(customer, name="Dana Reyes", is_primary=True)
    o = await factories.order(shop.ws, customer, created_at=T0, stage="print_queue")
    await factories.set_artwork(o, status="approved", version=2, approved_at=at(5))
    ids: dict[str, int] = {}
    ids["edit"] = await edit_record(
        shop.ws.id, o, at(1), 2, ["due_by", "notes"], actor_kind="user", user=shop.owner.id
    )
    # Its outbox event: a delivery's story, not the edit's (the edit is told once).
    await event(shop.ws.id, o, "order.updated", at(1), revision=2, changed=["due_by", "notes"])
    await proof(o, 1, at(2), content_type="image/png", by=shop.owner,
                answer="changes_requested", answered_at=at(3), answered_name="Dana Reyes",
                customer_comment="Make the logo 20% bigger.")  # fmt: skip
    message = CustomerMessage(
        workspace=shop.ws.id, order=o.id, customer=customer.id, contact=contact.id,
        kind="proof", subject="Proof of your order", body="…", status="sent",
        recipient="dana@acme.example", created_at=at(2.5), sent_at=at(2.5),
    )  # fmt: skip
    await message.save()
    ids["message"] = int(message.id)
    await proof(o, 2, at(4), content_type="application/pdf", by=shop.owner,
                answer="approved", answered_at=at(5), answered_name="Dana Reyes")  # fmt: skip
    move = StageChange(
        workspace=shop.ws.id, order=o.id, from_stage="artwork", to_stage="print_queue",
        at=at(6), actor_kind="user", user=shop.owner.id,
    )  # fmt: skip
    await move.save()
    ids["move"] = int(move.id)
    hook = await event(shop.ws.id, o, "order.stage_changed", at(6))
    sub = await subscription(shop.ws)
    delivery = WebhookDelivery(
        workspace=shop.ws.id, event=hook, subscription=sub, status="failed", attempts=3,
        last_status_code=500, created_at=at(6.5),
    )  # fmt: skip
    await delivery.save()
    ids["delivery"] = int(delivery.id)
    invoice = await factories.invoice(o, total=15000)
    await Invoice.update({Invoice.issued_at: at(7), Invoice.created_at: at(7)}).where(
        Invoice.id == invoice.id
    )
    payment = Payment(
        workspace=shop.ws.id, invoice=invoice.id, amount_cents=5000, method="bank_transfer",
        reference="BACS 991", paid_at=at(8), created_at=at(8), actor_kind="user",
        user=shop.owner.id,
    )  # fmt: skip
    await payment.save()
    ids["payment"] = int(payment.id)
    ids["invoice_number"] = invoice.number  # type: ignore[assignment]
    return o, ids


def timeline_of(html: str) -> str:
    start = html.index('<section aria-labelledby="timeline-heading" id="timeline"')
    return html[start : html.index("</section>", start)]


def entry(section: str, key: str) -> str:
    start = section.index(f'id="{key}"')
    return section[start : section.index("</li>", start)]


def flat(html: str) -> str:
    return re.sub(r"\s+", " ", html)


async def test_the_timeline_tells_every_kind_newest_first(shop: Shop) -> None:
    o, ids = await seeded(shop)
    page = await shop.client.get(f"/admin/orders/{o.number}")
    assert page.status_code == 200
    section = timeline_of(page.text)
    number = ids["invoice_number"]
    assert ENTRY.findall(section) == [
        ("payment", f"payment-{ids['payment']}"),
        ("invoice", f"issued-{number}"),
        ("delivery", f"delivery-{ids['delivery']}"),
        ("stage_move", f"move-{ids['move']}"),
        ("answer", "answer-2"),
        ("proof_sent", "proof-2"),
        ("answer", "answer-1"),
        ("email", f"message-{ids['message']}"),
        ("proof_sent", "proof-1"),
        ("edit", f"edit-{ids['edit']}"),
        ("stage_move", ENTRY.findall(section)[-1][1]),  # the creation, by the factory
    ]
    assert '<time class="when" datetime="2026-03-01T17:30:00+00:00">' in section  # the payment
    assert '<time class="when" datetime="2026-03-01T09:30:00+00:00">' in section  # created
    text = flat(section)
    name = shop.owner.name
    assert (
        f'Moved from Artwork to <strong>Print queue</strong> <span class="actor">by {name}' in text
    )
    assert 'Created in <strong>Artwork</strong> <span class="actor">by operator' in text
    assert (
        f'Edited: now <strong>revision 2</strong> <span class="actor">by {name}</span> '
        '<span class="actor">changed due date, notes' in text
    )
    assert "Make the logo 20% bigger." in text and "asked for changes to proof version 1" in text
    assert 'The customer approved proof version 2 <span class="actor">(Dana Reyes)' in text
    assert "Email “Proof of your order” to Dana Reyes" in text and 'class="state sent"' in text
    assert f'Invoice <a href="/admin/invoices/{number}">{number}</a> issued for 150.00 GBP' in text
    assert "Payment of <strong>50.00 GBP</strong> (bank transfer, BACS 991)" in text
    assert f"recorded by {name}" in text
    delivery = f'<a href="/admin/deliveries/{ids["delivery"]}">order.stage_changed</a>'
    assert delivery in text and 'class="state failed"' in text
    assert "3 attempts, HTTP 500" in text


async def test_proofs_show_as_thumbnails_with_the_approved_one_marked(shop: Shop) -> None:
    o, _ = await seeded(shop)
    section = timeline_of((await shop.client.get(f"/admin/orders/{o.number}")).text)
    first, second = (entry(section, f"proof-{version}") for version in (1, 2))
    image = (
        f'<img src="/admin/orders/{o.number}/proofs/1/file" '
        'alt="Proof version 1: front-v1.png" loading="lazy"'
    )
    assert image in first and "Changes requested" in first and "Approved" not in first
    assert "<img" not in second and 'class="file-icon"' in second and "front-v2.pdf" in second
    assert '<span class="badge approved">Approved</span>' in second
    served = await shop.client.get(f"/admin/orders/{o.number}/proofs/1/file")
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"


async def test_the_customer_links_to_the_customer_page(shop: Shop) -> None:
    o, _ = await seeded(shop)
    page = (await shop.client.get(f"/admin/orders/{o.number}")).text
    assert f'<a href="/admin/customers/{o.customer}" id="customer-link">Acme Brewing</a>' in page
    assert (await shop.client.get(f"/admin/customers/{o.customer}")).status_code == 200


async def test_the_live_regions_hold_no_typed_form(shop: Shop) -> None:
    o, _ = await seeded(shop)
    page = (await shop.client.get(f"/admin/orders/{o.number}")).text
    assert f'<div class="order-page" data-live-order="{o.id}">' in page
    regions = re.findall(r'<(\w+)[^>]* id="([\w-]+)"[^>]* data-live-region', page)
    assert [region for _, region in regions] == [
        "order-heading", "order-facts", "order-invoices", "order-artwork", "timeline",
    ]  # fmt: skip
    move_form = page.index(f'action="/admin/orders/{o.number}/stage"')
    for tag, region in regions:
        start = page.index(f'id="{region}"')
        end = page.index(f"</{'section' if tag == 'section' else 'div'}>", start)
        assert not start < move_form < end, region


async def test_another_workspaces_rows_are_never_shown(shop: Shop) -> None:
    o, _ = await seeded(shop)
    other: Workspace = await factories.workspace()
    theirs = await factories.order(other, await factories.customer(other), created_at=at(1))
    await proof(theirs, 1, at(9), content_type="image/png")
    await edit_record(other.id, theirs, at(9), 7, ["lines"])
    # Rows of the other workspace naming this order's id are not this order's either.
    await StageChange(
        workspace=other.id, order=o.id, from_stage="artwork", to_stage="cancelled", at=at(9)
    ).save()
    await edit_record(other.id, o, at(9), 9, ["items"])
    section = timeline_of((await shop.client.get(f"/admin/orders/{o.number}")).text)
    assert "Cancelled" not in section and "revision 9" not in section
    assert "revision 7" not in section and f"/orders/{theirs.number}/" not in section
    assert len(ENTRY.findall(section)) == 11
    assert (await shop.client.get(f"/admin/orders/{theirs.number}")).status_code == 404


async def test_the_timeline_is_bounded_and_says_so(shop: Shop) -> None:
    o, _ = await seeded(shop)
    from models import statements

    async with statements.connection() as reader:
        cut = await order_timeline.timeline(reader, shop.ws.id, o.id, limit=4)
        whole = await order_timeline.timeline(reader, shop.ws.id, o.id)
    assert [e.key for e in cut.entries] == [e.key for e in whole.entries[:4]] and cut.more
    assert len(whole.entries) == 11 and not whole.more


async def test_at_one_instant_the_effects_come_above_their_cause(shop: Shop) -> None:
    """A move, its email and its delivery share their transaction's time; moves of one instant
    keep the order they were made in (by id, the tenth after the ninth)."""
    customer = await factories.customer(shop.ws)
    o = await factories.order(shop.ws, customer, created_at=T0)
    moves = []
    for _ in range(10):
        move = StageChange(
            workspace=shop.ws.id, order=o.id, from_stage="artwork", to_stage="print_queue",
            at=at(1), actor_kind="operator",
        )  # fmt: skip
        await move.save()
        moves.append(f"move-{move.id}")
    message = CustomerMessage(
        workspace=shop.ws.id, order=o.id, customer=customer.id, kind="stage",
        subject="Queued for printing", body="…", status="muted", created_at=at(1),
    )  # fmt: skip
    await message.save()
    hook = await event(shop.ws.id, o, "order.stage_changed", at(1))
    delivery = WebhookDelivery(
        workspace=shop.ws.id, event=hook, subscription=await subscription(shop.ws),
        status="succeeded", attempts=1, last_status_code=200, created_at=at(1),
    )  # fmt: skip
    await delivery.save()
    section = timeline_of((await shop.client.get(f"/admin/orders/{o.number}")).text)
    keys = [key for _, key in ENTRY.findall(section)]
    assert keys == [f"delivery-{delivery.id}", f"message-{message.id}", *moves[::-1], keys[-1]]


async def edited(shop: Shop) -> tuple[Order, list[str]]:
    """An order edited three times, by a staff member, an API token and an operator (the
    domain function every edit goes through), plus an edit changing nothing; its entries'
    keys, oldest first."""
    customer = await factories.customer(shop.ws)
    o = await factories.order(shop.ws, customer, created_at=T0)
    await factories.token(shop.owner, name="shop floor")
    token = await ApiToken.select(ApiToken.id).where(ApiToken.user == shop.owner.id).first()
    assert token is not None
    for edit, actor in (
        (editing.OrderEdit(notes="Side door"), Actor.user(shop.owner.id)),
        (editing.OrderEdit(due_by=dt.date(2026, 12, 24), external_ref="PO-7"),
         Actor.token(token["id"], shop.owner.id)),
        (editing.OrderEdit(lines=[NewLine("Tee", 3, 500)]), OPERATOR),
        (editing.OrderEdit(), OPERATOR),  # nothing to change: no edit
    ):  # fmt: skip
        await editing.edit_order(workspace_id=shop.ws.id, order_id=o.id, edit=edit, actor=actor)
    rows = await OrderEditRecord.select(OrderEditRecord.id).order_by(OrderEditRecord.id)
    return o, [f"edit-{row['id']}" for row in rows]


async def test_edits_say_who_made_them_and_what_changed(shop: Shop) -> None:
    o, keys = await edited(shop)
    assert len(keys) == 3
    section = timeline_of((await shop.client.get(f"/admin/orders/{o.number}")).text)
    assert [key for kind, key in ENTRY.findall(section) if kind == "edit"] == keys[::-1]
    by_staff, by_token, by_operator = (flat(entry(section, key)) for key in keys)
    name = shop.owner.name
    assert (
        f'Edited: now <strong>revision 2</strong> <span class="actor">by {name}</span> '
        '<span class="actor">changed notes</span>' in by_staff
    )
    assert (
        'revision 3</strong> <span class="actor">by API token shop floor</span> '
        '<span class="actor">changed due date, reference</span>' in by_token
    )
    assert (
        'revision 4</strong> <span class="actor">by operator</span> '
        '<span class="actor">changed lines</span>' in by_operator
    )


async def test_edits_stay_on_the_timeline_after_retention_prunes_their_events(
    shop: Shop,
) -> None:
    o, keys = await edited(shop)
    page = f"/admin/orders/{o.number}"
    before = timeline_of((await shop.client.get(page)).text)
    updates = WebhookEvent.name == "order.updated"
    assert await WebhookEvent.count().where(updates) == 3

    later = clock.now() + dt.timedelta(days=31)  # past WEBHOOK_RETENTION_DAYS
    pruned = await retention.prune(30, now=later)
    assert pruned.events >= 3 and await WebhookEvent.count().where(updates) == 0
    assert await OrderEditRecord.count() == 3  # retention keeps the edits
    after = timeline_of((await shop.client.get(page)).text)
    assert [key for kind, key in ENTRY.findall(after) if kind == "edit"] == keys[::-1]
    assert after == before

    await WebhookEvent.delete(force=True)  # whatever happens to the outbox
    assert timeline_of((await shop.client.get(page)).text) == before


async def test_edits_the_outbox_held_before_edits_were_recorded_are_copied_without_a_who(
    shop: Shop,
) -> None:
    """The migration adding `order_edits` copies the `order.updated` events retention has
    kept: revision and changed fields from the body, no author."""
    copying = importlib.import_module("models.migrations.models_2026_11_27t06_40_01_000000")
    customer = await factories.customer(shop.ws)
    o = await factories.order(shop.ws, customer, created_at=T0)
    await event(shop.ws.id, o, "order.updated", at(1), revision=2, changed=["due_by", "items"])
    await event(shop.ws.id, o, "order.stage_changed", at(2))  # not an edit
    await db.engine().run_ddl(copying.POSTGRES_COPY if db.is_postgres() else copying.SQLITE_COPY)

    [row] = await OrderEditRecord.select().where(OrderEditRecord.order == o.id)
    assert (row["workspace"], row["revision"], json.loads(row["changed"])) == (
        shop.ws.id, 2, ["due_by", "items"],
    )  # fmt: skip
    assert (row["actor_kind"], row["user"], row["token"]) == ("", None, None)
    assert row["created_at"] == at(1)
    section = timeline_of((await shop.client.get(f"/admin/orders/{o.number}")).text)
    text = flat(entry(section, f"edit-{row['id']}"))
    shown = 'now <strong>revision 2</strong> <span class="actor">changed due date, garments'
    assert shown in text and "by " not in text
