"""The overview's "Needs attention" (models/orders/attention.py) through GET /admin/ on both
databases: a seeded day where each kind is present exactly once, beside decoys that must not
be listed (finished orders, answered or superseded proofs, paid invoices, another
workspace's orders), the empty state, and the 10 most urgent of more."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import uuid
from dataclasses import dataclass
from html import unescape
from typing import Any
from zoneinfo import ZoneInfo

from models import clock
from models.orders.attention import WORK, Kind
from models.orders.lines import local_midnight
from models.tables import ArtworkProof, Invoice, Order, Sku, Workspace
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import statement_count

ZONE = "Pacific/Auckland"  # far from UTC: "today" is the workspace's, not the server's
# One customer per kind, so a page shows which order is which.
CUSTOMERS = {
    Kind.OVERDUE: "Hop & Barley Brewing Co.",
    Kind.DUE_SOON: "St Aidan's Primary School",
    Kind.PROOF_WAITING: "The Velvet Tides",
    Kind.CHANGES_REQUESTED: "Northside Roller Derby",
    Kind.UNAPPROVED: "Harbour Swim Club",
    Kind.SHORT_OF_STOCK: "Golden Fox Festival",
    Kind.INVOICE_OVERDUE: "Iron Anchor Gym",
}


def today() -> dt.date:
    return clock.now().astimezone(ZoneInfo(ZONE)).date()


def due(days: int) -> dt.datetime:
    """00:00 (the workspace's) `days` from today, as due dates are stored."""
    return local_midnight(today() + dt.timedelta(days=days), ZONE)


def section(page: str, kind: Kind) -> str:
    """The HTML of one kind's card ("" when the kind is not shown)."""
    start = page.find(f'id="attention-{kind}"')
    return "" if start < 0 else page[start : page.index("</section>", start)]


def words(html: str) -> str:
    """The text of some HTML, as a person reads it."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def listed(page: str, kind: Kind) -> list[str]:
    """The links of one kind's card, in their order."""
    return re.findall(r'<a class="number" href="([^"]+)"', section(page, kind))


def count(page: str, kind: Kind) -> int:
    found = re.search(r'<span class="count">(\d+)</span>', section(page, kind))
    return int(found.group(1)) if found else 0


async def proof(
    order: Order,
    version: int,
    *,
    sent_ago: dt.timedelta,
    answer: str | None = None,
    comment: str | None = None,
) -> None:
    sent = clock.now() - sent_ago
    await ArtworkProof(
        workspace=order.workspace, order=order.id, version=version, file_name="proof.png",
        content_type="image/png", size=4, sha256=hashlib.sha256(b"png").hexdigest(),
        data=b"\x89PNG", created_at=sent, token_digest=uuid.uuid4().hex + uuid.uuid4().hex,
        token_expires_at=sent + dt.timedelta(days=30), answer=answer,
        answered_at=None if answer is None else sent + dt.timedelta(hours=1),
        customer_comment=comment,
    ).save()  # fmt: skip


@dataclass
class Day:
    """The seeded day: the one order (or invoice) of each kind."""

    expected: dict[Kind, str]


async def seed_day(ws: Workspace, *, decoys: bool = True) -> Day:
    """One order of each kind (each approved unless its kind is about artwork, so it shows
    under that kind only) and, with `decoys`, orders close to each rule that must not show.
    The workspace's zone becomes ZONE."""
    await Workspace.update({Workspace.timezone: ZONE}).where(Workspace.id == ws.id)
    c = {kind: await factories.customer(ws, name) for kind, name in CUSTOMERS.items()}

    async def order(kind: Kind, stage: str, artwork: str = "approved", **fields: Any) -> Order:
        row = await factories.order(ws, c[kind], stage=stage, **fields)
        version = 1 if artwork != "awaiting_proof" else 0
        await factories.set_artwork(row, status=artwork, version=version)
        return row

    late = await order(Kind.OVERDUE, "in_production", due_by=due(-3))
    soon = await order(Kind.DUE_SOON, "print_queue", due_by=due(2))
    waiting = await order(Kind.PROOF_WAITING, "artwork", "awaiting_approval")
    await proof(waiting, 1, sent_ago=dt.timedelta(days=3))
    changes = await order(Kind.CHANGES_REQUESTED, "artwork", "changes_requested")
    await proof(changes, 1, sent_ago=dt.timedelta(days=1), answer="changes_requested",
                comment="Make the logo bigger")  # fmt: skip
    unapproved = await order(Kind.UNAPPROVED, "qc_pack", "awaiting_proof")
    sku = await factories.sku(ws, "TEE-BLK-L", on_hand=5, reserved=12)
    short = await order(Kind.SHORT_OF_STOCK, "print_queue", line_skus=[sku.id])
    billed = await order(Kind.INVOICE_OVERDUE, "dispatched")
    invoice = await factories.invoice(billed, total=10_000)
    await Invoice.update(
        {Invoice.due_at: clock.now() - dt.timedelta(days=5), Invoice.paid_cents: 2_500}
    ).where(Invoice.id == invoice.id)
    if decoys:
        await seed_decoys(ws, sku)
    return Day(
        {
            Kind.OVERDUE: f"/admin/orders/{late.number}",
            Kind.DUE_SOON: f"/admin/orders/{soon.number}",
            Kind.PROOF_WAITING: f"/admin/orders/{waiting.number}",
            Kind.CHANGES_REQUESTED: f"/admin/orders/{changes.number}",
            Kind.UNAPPROVED: f"/admin/orders/{unapproved.number}",
            Kind.SHORT_OF_STOCK: f"/admin/orders/{short.number}",
            Kind.INVOICE_OVERDUE: f"/admin/invoices/{invoice.number}",
        }
    )


async def seed_decoys(ws: Workspace, short_sku: Sku) -> None:
    decoy = await factories.customer(ws, "Decoy customer")

    async def order(stage: str, artwork: str = "approved", **fields: Any) -> Order:
        row = await factories.order(ws, decoy, stage=stage, **fields)
        await factories.set_artwork(row, status=artwork, version=1)
        return row

    # Finished orders are never late, unapproved or short; an order due today is not late;
    # one in QC & pack is not "due soon"; three days out is not soon.
    await order("dispatched", "awaiting_approval", due_by=due(-10), line_skus=[short_sku.id])
    await order("cancelled", "changes_requested", due_by=due(-1), line_skus=[short_sku.id])
    await order("qc_pack", due_by=due(0))
    await order("qc_pack", due_by=due(1))
    await order("print_queue", due_by=due(3))
    # Proofs: sent a day ago; approved; an old unanswered version superseded by a new one.
    recent = await order("artwork", "awaiting_approval")
    await proof(recent, 1, sent_ago=dt.timedelta(days=1))
    approved = await order("artwork", "approved")
    await proof(approved, 1, sent_ago=dt.timedelta(days=5), answer="approved")
    superseded = await factories.order(ws, decoy, stage="artwork")
    await factories.set_artwork(superseded, status="awaiting_approval", version=2)
    await proof(superseded, 1, sent_ago=dt.timedelta(days=6))
    await proof(superseded, 2, sent_ago=dt.timedelta(hours=2))
    # Short stock once in production is consumed, not reserved: not listed.
    await order("in_production", line_skus=[short_sku.id])
    covered = await factories.sku(ws, on_hand=50, reserved=12)
    await order("artwork", line_skus=[covered.id])
    # Invoices: paid after its due date; issued and not yet due; settled in full.
    done = await order("dispatched")
    paid = await factories.invoice(done, status="paid")
    await Invoice.update({Invoice.due_at: clock.now() - dt.timedelta(days=9)}).where(
        Invoice.id == paid.id
    )
    await factories.invoice(await order("dispatched"))
    settled = await factories.invoice(await order("dispatched"), total=5_000)
    await Invoice.update(
        {Invoice.due_at: clock.now() - dt.timedelta(days=2), Invoice.paid_cents: 5_000}
    ).where(Invoice.id == settled.id)


async def test_each_kind_of_a_seeded_day_is_listed_once_with_its_link(shop: Shop) -> None:
    day = await seed_day(shop.ws)
    other = await factories.workspace(name="Elsewhere", timezone=ZONE)
    theirs = await seed_day(other, decoys=False)  # every kind, in another workspace

    page = (await shop.client.get("/admin/")).text
    assert page.index('id="attention"') < page.index("Open orders by stage")  # first
    for kind, link in day.expected.items():
        assert count(page, kind) == 1, kind
        assert listed(page, kind) == [link], kind
        assert theirs.expected[kind] not in page
    assert "Nothing needs attention" not in page and "Nothing to do:" not in page
    assert '/admin/orders?due=overdue">All overdue orders</a>' in section(page, Kind.OVERDUE)
    invoices = section(page, Kind.INVOICE_OVERDUE)
    assert '/admin/invoices?status=issued">All unpaid invoices</a>' in invoices
    changes = words(section(page, Kind.CHANGES_REQUESTED))
    assert "Make the logo bigger" in changes and "proof 1 · answered " in changes
    assert "TEE-BLK-L: 7 short · no due date" in words(section(page, Kind.SHORT_OF_STOCK))
    assert "75.00 GBP to pay · was due" in words(section(page, Kind.INVOICE_OVERDUE))
    assert "QC & pack · no proof sent" in words(section(page, Kind.UNAPPROVED))
    assert "proof 1 · sent 3 days ago (" in words(section(page, Kind.PROOF_WAITING))
    assert "3 days late · In production" in words(section(page, Kind.OVERDUE))
    in_two_days = (today() + dt.timedelta(days=2)).isoformat()
    assert f"due {in_two_days} · Print queue" in words(section(page, Kind.DUE_SOON))


async def test_a_quiet_day_says_nothing_needs_attention(shop: Shop) -> None:
    await Workspace.update({Workspace.timezone: ZONE}).where(Workspace.id == shop.ws.id)
    customer = await factories.customer(shop.ws)
    done = await factories.order(shop.ws, customer, stage="dispatched", due_by=due(-5))
    await factories.invoice(done, status="paid")
    fine = await factories.order(shop.ws, customer, stage="print_queue", due_by=due(9))
    await factories.set_artwork(fine, status="approved", version=1)

    page = (await shop.client.get("/admin/")).text
    assert 'id="attention-clear"' in page and "Nothing needs attention" in page
    assert all(section(page, kind) == "" for kind in Kind if kind not in WORK)
    # The day's work is listed apart: the approved order in Print queue is ready to print.
    assert listed(page, Kind.READY_TO_PRINT) == [f"/admin/orders/{fine.number}"]
    assert count(page, Kind.ART_TO_DO) == count(page, Kind.DISPATCH_TODAY) == 0


async def test_day_one_lists_the_art_to_do_what_is_ready_to_print_and_to_dispatch(
    shop: Shop,
) -> None:
    """A new shop's first orders: none is late or waiting on anyone, but each is work."""
    customer = await factories.customer(shop.ws, "First Customer")

    async def order(stage: str, artwork: str, **fields: Any) -> Order:
        row = await factories.order(shop.ws, customer, stage=stage, **fields)
        await factories.set_artwork(
            row, status=artwork, version=0 if artwork == "awaiting_proof" else 1
        )
        return row

    no_proof = await order("artwork", "awaiting_proof", due_by=due(9))
    await order("artwork", "awaiting_approval", due_by=due(9))  # proofed: waiting on the customer
    ready = await order("print_queue", "approved", due_by=due(8))
    short_sku = await factories.sku(shop.ws, "CAP-RED-OS", on_hand=1, reserved=4)
    await order("print_queue", "approved", due_by=due(8), line_skus=[short_sku.id])  # short
    await order("print_queue", "awaiting_proof", due_by=due(8))  # not approved
    packing = await order("qc_pack", "approved", due_by=due(5))
    page = (await shop.client.get("/admin/")).text
    assert page.index('id="attention"') < page.index('id="work"') < page.index("The shop")
    assert listed(page, Kind.ART_TO_DO) == [f"/admin/orders/{no_proof.number}"]
    assert listed(page, Kind.READY_TO_PRINT) == [f"/admin/orders/{ready.number}"]
    assert listed(page, Kind.DISPATCH_TODAY) == [f"/admin/orders/{packing.number}"]
    assert "First Customer" in section(page, Kind.ART_TO_DO)
    assert '/admin/orders?stage=artwork">All orders in Artwork</a>' in section(page, Kind.ART_TO_DO)


async def test_more_than_ten_show_the_ten_most_urgent_at_one_cost(
    shop: Shop, statements: list[str]
) -> None:
    """The most overdue first, ten of them, the count saying how many; the page sends the
    same statements for one late order as for twelve, each of every kind."""
    await Workspace.update({Workspace.timezone: ZONE}).where(Workspace.id == shop.ws.id)
    customer = await factories.customer(shop.ws, "Late Club")
    first = await factories.order(shop.ws, customer, stage="print_queue", due_by=due(-1))
    one = await statement_count(shop.client, statements, "/admin/")
    orders = [first]
    for days in range(2, 13):
        orders.append(
            await factories.order(shop.ws, customer, stage="print_queue", due_by=due(-days))
        )
    await seed_day(shop.ws)
    assert await statement_count(shop.client, statements, "/admin/") == one

    page = (await shop.client.get("/admin/")).text
    assert count(page, Kind.OVERDUE) == 13  # with the seeded day's
    shown = listed(page, Kind.OVERDUE)
    assert shown == [f"/admin/orders/{o.number}" for o in orders[::-1][:10]]
    assert "The 10 most urgent of 13." in section(page, Kind.OVERDUE)
