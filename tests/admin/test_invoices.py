"""The admin's invoices: list with status filter and the outstanding total; marking one paid is
the operator's `invoice pay` (same `invoice.paid` event), answered with 303 and a notice once."""

from __future__ import annotations

import functools
import json

import httpx

from models.tables import Invoice, WebhookEvent
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import post_form, statement_count


async def _invoices(shop: Shop) -> tuple[Invoice, Invoice]:
    c = await factories.customer(shop.ws, "Acme Tees")
    first = await factories.invoice(
        await factories.order(shop.ws, c, stage="dispatched"), status="issued", total=10_050
    )
    second = await factories.invoice(
        await factories.order(shop.ws, c, stage="dispatched"), status="issued", total=2_000
    )
    await factories.invoice(
        await factories.order(shop.ws, c, stage="dispatched"), status="paid", total=7_700
    )
    return first, second


async def test_list_filters_by_status_and_totals_what_is_outstanding(shop: Shop) -> None:
    first, _ = await _invoices(shop)
    listing = await shop.client.get("/admin/invoices")
    assert listing.status_code == 200
    assert listing.text.count('<tr id="invoice-') == 3
    outstanding = listing.text.split('id="outstanding"')[1].split("</div>\n</div>")[0]
    assert "120.50 GBP" in outstanding and "2 invoices" in outstanding
    paid = await shop.client.get("/admin/invoices", params={"status": "paid"})
    assert paid.text.count('<tr id="invoice-') == 1 and "77.00 GBP" in paid.text
    issued = await shop.client.get("/admin/invoices", params={"status": "issued"})
    assert issued.text.count('<tr id="invoice-') == 2 and first.number in issued.text
    unknown = await shop.client.get("/admin/invoices", params={"status": "nonsense"})
    assert unknown.status_code == 200 and unknown.text.count('<tr id="invoice-') == 3


async def test_mark_paid_answers_303_records_the_event_and_a_repeat_is_refused(
    shop: Shop, client: httpx.AsyncClient
) -> None:
    first, _ = await _invoices(shop)
    url = f"/admin/invoices/{first.number}/paid"
    answer = await post_form(shop.client, "/admin/invoices", url, {"next": "/admin/invoices"})
    assert answer.status_code == 303 and answer.headers["location"] == "/admin/invoices"
    row = await Invoice.objects().where(Invoice.id == first.id).first()
    assert row.status == "paid" and row.paid_at is not None
    events = await WebhookEvent.select(WebhookEvent.body).where(WebhookEvent.name == "invoice.paid")
    assert len(events) == 1 and json.loads(events[0]["body"])["invoice_number"] == first.number
    shown = await shop.client.get("/admin/invoices")
    assert f"Invoice {first.number} was marked paid." in shown.text
    assert "20.00 GBP" in shown.text.split('id="outstanding"')[1][:400]
    assert "was marked paid" not in (await shop.client.get("/admin/invoices")).text
    # The same form sent again (a re-sent POST) is refused with the reason; nothing changes.
    again = await post_form(shop.client, "/admin/invoices", url)
    assert again.status_code == 422
    assert f"Invoice {first.number} is paid; only an issued invoice can be paid." in again.text
    assert await WebhookEvent.count().where(WebhookEvent.name == "invoice.paid") == 1
    # The API shows it paid.
    auth = await factories.headers(shop.owner)
    order = await client.get(f"/api/v1/orders/{first.order}", headers=auth)
    assert order.json()["invoices"][0]["status"] == "paid"


async def test_next_is_only_followed_within_the_admin(shop: Shop) -> None:
    first, second = await _invoices(shop)
    for invoice, target in ((first, "https://evil.example/"), (second, "//evil.example/")):
        answer = await post_form(
            shop.client, "/admin/invoices", f"/admin/invoices/{invoice.number}/paid",
            {"next": target},
        )  # fmt: skip
        assert answer.headers["location"] == "/admin/invoices"


async def test_another_workspaces_invoice_is_404_and_csrf_is_required(shop: Shop) -> None:
    other = await factories.workspace()
    c = await factories.customer(other)
    theirs = await factories.invoice(await factories.order(other, c, stage="dispatched"))
    answer = await post_form(
        shop.client, "/admin/invoices", f"/admin/invoices/{theirs.number}/paid"
    )
    assert answer.status_code == 404
    assert theirs.number not in (await shop.client.get("/admin/invoices")).text
    first, _ = await _invoices(shop)
    no_csrf = await shop.client.post(f"/admin/invoices/{first.number}/paid")
    assert no_csrf.status_code == 403
    statuses = {r["status"] for r in await Invoice.select(Invoice.status).where(
        Invoice.id.is_in([theirs.id, first.id]))}  # fmt: skip
    assert statuses == {"issued"}


async def test_list_costs_the_same_statements_for_one_or_fifty(
    shop: Shop, statements: list[str]
) -> None:
    c = await factories.customer(shop.ws)
    await factories.invoice(await factories.order(shop.ws, c, stage="dispatched"))

    cost = functools.partial(statement_count, shop.client, statements, "/admin/invoices")
    one = await cost()
    for _ in range(49):
        other = await factories.customer(shop.ws)
        await factories.invoice(await factories.order(shop.ws, other, stage="dispatched"))
    assert await cost() == one
    assert one <= 6, statements
