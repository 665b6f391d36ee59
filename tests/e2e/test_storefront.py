"""A storefront, an accounting tool and the shop's staff, over real HTTP.

The web process (`python -m api`) and the webhook worker (`python -m daemon`) run as the
Procfile runs them, on the test database; the storefront's webhook endpoint is a real aiohttp
server that verifies every request with the official `standardwebhooks` package, as
docs/storefront.md tells integrators to. The storefront finds or creates its buyer, sends the
order, hears `order.created`; staff dispatch it in the admin (logged in through the real login
form); the storefront hears `order.dispatched` with the carrier and tracking number;
accounting records a part payment and then the rest, and `invoice.paid` arrives once.
Under the approval rule a new shop starts with, the storefront uploads the proof and records
the buyer's checkout approval through the API and takes the order to dispatch; two shops
delivering to one endpoint are told apart by `X-SVC-Workspace` and never share a `webhook-id`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web
from standardwebhooks import Webhook, WebhookVerificationError

from models.tables import WebhookDelivery, Workspace
from models.webhooks import signing, subscriptions
from tests import factories
from tests.admin.support import log_in, member, post_form
from tests.daemon.support import Receiver
from tests.e2e.test_web_server import Web, start_web, stop
from tests.e2e.test_worker_processes import ROOT, Worker
from tests.proofs.files import png

pytestmark = pytest.mark.slow

EMAIL = "jo.bloggs@example.com"
ADDRESS = {
    "label": "Home",
    "name": "Jo Bloggs",
    "line1": "12 Mill Lane",
    "city": "Leeds",
    "postal_code": "LS1 4AB",
    "country": "GB",
}
# 6 tees at 12.00 with a 3.00 front print each, and a 25.00 screen setup: 115.00 + 20% tax.
ITEM = {
    "style": "G5000",
    "colour": "Black",
    "sizes": {"S": 2, "M": 3, "L": 1},
    "unit_price_cents": 1200,
    "imprints": [
        {
            "location": "front",
            "method": "screen",
            "colours": 2,
            "unit_price_cents": 300,
            "setup_cents": 2500,
        }
    ],
}
TOTAL = 6 * (1200 + 300) + 2500 + 2300
CARRIER, TRACKING = "Royal Mail", "RM123456785GB"


class Inbox:
    """The storefront's webhook endpoint: each request is checked with `standardwebhooks`
    (401 when it fails, so the worker would retry) and its event kept."""

    def __init__(self, receiver: Receiver, secret: str) -> None:
        self.hook = Webhook(secret)
        self.events: list[dict[str, Any]] = []
        self.refused = 0
        self.arrived = asyncio.Event()
        receiver.secret = secret  # its own check of X-SVC-Signature, the original scheme
        receiver.behaviour = self.verify

    async def verify(self, request: web.Request, _: int) -> web.StreamResponse:
        body = await request.read()
        try:
            event = self.hook.verify(body, dict(request.headers))
        except WebhookVerificationError:
            self.refused += 1
            return web.json_response({"error": "bad signature"}, status=401)
        self.events.append(event)
        self.arrived.set()
        return web.Response(status=204)

    def named(self, name: str) -> list[dict[str, Any]]:
        return [event for event in self.events if event["event"] == name]

    async def wait_for(self, name: str, count: int = 1, seconds: float = 30.0) -> dict[str, Any]:
        """The latest of `count` `name` events, once that many have arrived."""
        try:
            async with asyncio.timeout(seconds):
                while len(self.named(name)) < count:
                    self.arrived.clear()
                    await self.arrived.wait()
        except TimeoutError:
            seen = [event["event"] for event in self.events]
            message = f"{count} {name} not received in {seconds} s; received {seen}"
            raise AssertionError(message) from None
        return self.named(name)[count - 1]


class Shop:
    """The shop as its integrations meet it: the web process, the worker, the workspace."""

    def __init__(self, web_process: Web, worker: Worker, ws: Workspace) -> None:
        self.web, self.worker, self.ws = web_process, worker, ws

    def client(self, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.web.base, headers=headers or {}, timeout=10)


@pytest.fixture
async def processes(backend: str, tmp_path: Path) -> AsyncIterator[tuple[Web, Worker]]:
    """The web process and the webhook worker, as the Procfile runs them."""
    web_process = start_web(tmp_path / "web.log", DATABASE_URL=backend, LOG_LEVEL="WARNING")
    log = tmp_path / "worker.log"
    environment = {
        **os.environ,
        "DATABASE_URL": backend,
        "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1",
        "WEBHOOK_POLL_INTERVAL": "0.2",
        "PYTHONUNBUFFERED": "1",
    }
    with log.open("wb") as sink:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "daemon", cwd=ROOT, env=environment, stdout=sink, stderr=sink
        )
    worker = Worker(process, log)
    try:
        await worker.started()
        yield web_process, worker
    finally:
        if process.returncode is None:
            process.terminate()
            await worker.exit_code()
        stop(web_process.process)


@pytest.fixture
async def shop(processes: tuple[Web, Worker]) -> Shop:
    """A workspace dispatching without artwork approval, served by both processes."""
    ws = await factories.workspace(require_artwork_approval=False, strict_sequence=False)
    return Shop(*processes, ws)


async def all_delivered(seconds: float = 30.0) -> None:
    """Every delivery recorded so far has been answered 2xx."""
    async with asyncio.timeout(seconds):
        while True:
            if not await WebhookDelivery.count().where(WebhookDelivery.status != "succeeded"):
                return
            await asyncio.sleep(0.1)


async def find_or_create_buyer(api: httpx.AsyncClient) -> tuple[dict[str, Any], bool]:
    """The storefront's first step for every order: the buyer by email, else a new one."""
    found = await api.get("/api/v1/customers", params={"email": EMAIL})
    assert found.status_code == 200, found.text
    if found.json()["data"]:
        [row] = found.json()["data"]
        detail = await api.get(f"/api/v1/customers/{row['id']}")
        assert detail.status_code == 200, detail.text
        return detail.json(), False
    created = await api.post(
        "/api/v1/customers",
        json={
            "name": "Jo Bloggs",
            "external_ref": "shopify-customer-7001",
            "contacts": [{"name": "Jo Bloggs", "email": EMAIL, "phone": "+44 113 496 0000"}],
            "addresses": [ADDRESS],
        },
        headers={"Idempotency-Key": "customer-7001"},
    )
    assert created.status_code == 201, created.text
    assert created.headers["Location"].endswith(f"/api/v1/customers/{created.json()['id']}")
    return created.json(), True


async def test_a_storefront_order_is_created_dispatched_and_paid(
    shop: Shop, receiver: Receiver
) -> None:
    owner = await member(shop.ws, role="owner")
    storefront_user = await factories.user(shop.ws, role="staff", name="Storefront")
    accounting_user = await factories.user(shop.ws, role="staff", name="Accounting")
    _, secret = await subscriptions.create(shop.ws.id, receiver.url("/hooks/pressline"), "*")
    inbox = Inbox(receiver, secret)
    storefront = shop.client(await factories.headers(storefront_user))
    accounting = shop.client(await factories.headers(accounting_user))
    staff = shop.client()
    async with storefront, accounting, staff:
        # The buyer is new: looked up by email, not found, created with a contact and address.
        buyer, created = await find_or_create_buyer(storefront)
        assert created
        assert buyer["external_ref"] == "shopify-customer-7001"
        [contact] = buyer["contacts"]
        assert (contact["email"], contact["is_primary"]) == (EMAIL, True)
        assert isinstance(contact["id"], int)
        [address] = buyer["addresses"]
        assert {key: address[key] for key in ADDRESS} == ADDRESS
        assert address["is_default"] is True
        # The next order finds the same buyer, whatever the case of the email.
        again = await storefront.get("/api/v1/customers", params={"email": EMAIL.upper()})
        assert [row["id"] for row in again.json()["data"]] == [buyer["id"]]
        assert (await find_or_create_buyer(storefront)) == (buyer, False)

        heard = await inbox.wait_for("customer.created")
        assert (heard["customer_id"], heard["external_ref"]) == (
            buyer["id"],
            "shopify-customer-7001",
        )

        # The order, sent twice as a storefront retrying a lost answer would: one order.
        order_body = {"customer_id": buyer["id"], "items": [ITEM], "external_ref": "shop-1001"}
        key = {"Idempotency-Key": "order-shop-1001"}
        made = await storefront.post("/api/v1/orders", json=order_body, headers=key)
        assert made.status_code == 201, made.text
        retried = await storefront.post("/api/v1/orders", json=order_body, headers=key)
        assert (retried.status_code, retried.json()["id"]) == (201, made.json()["id"])
        assert retried.headers["Idempotent-Replayed"] == "true"
        order = made.json()
        assert (order["stage"], order["external_ref"]) == ("artwork", "shop-1001")
        assert order["totals"]["total_cents"] == TOTAL
        ship_to = order["ship_to"]  # the buyer's default address, copied (its label stays)
        assert {key: ship_to.get(key) for key in ADDRESS if key != "label"} == {
            key: value for key, value in ADDRESS.items() if key != "label"
        }
        assert [line["quantity"] for line in order["lines"]] == [2, 3, 1, 1]

        heard = await inbox.wait_for("order.created")
        assert (heard["order_id"], heard["order_number"]) == (order["id"], order["number"])
        assert (heard["customer_id"], heard["external_ref"]) == (buyer["id"], "shop-1001")
        assert (heard["stage"], heard["total_cents"]) == ("artwork", TOTAL)

        # Staff dispatch it in the admin, with carrier and tracking number.
        assert (await log_in(staff, owner.email)).status_code == 303
        page = f"/admin/orders/{order['number']}"
        moved = await post_form(
            staff,
            page,
            f"{page}/stage",
            {"to_stage": "dispatched", "carrier": CARRIER, "tracking_number": TRACKING},
        )
        assert moved.status_code == 303, moved.text

        heard = await inbox.wait_for("order.dispatched")
        assert (heard["order_id"], heard["from_stage"], heard["to_stage"]) == (
            order["id"],
            "artwork",
            "dispatched",
        )
        # The event carries the carrier and tracking number; the order shows them too.
        assert (heard["carrier"], heard["tracking_number"]) == (CARRIER, TRACKING)
        shipped = await storefront.get(f"/api/v1/orders/{order['id']}")
        assert shipped.status_code == 200, shipped.text
        assert (shipped.json()["carrier"], shipped.json()["tracking_number"]) == (
            CARRIER,
            TRACKING,
        )
        assert shipped.json()["stage"] == "dispatched"
        issued = await inbox.wait_for("invoice.issued")

        # Accounting finds the invoice, records a part payment, reads the balance, pays the rest.
        listed = await accounting.get("/api/v1/invoices", params={"customer": buyer["slug"]})
        assert listed.status_code == 200, listed.text
        [invoice] = listed.json()["data"]
        assert (invoice["number"], invoice["order"]["id"]) == (
            issued["invoice_number"],
            order["id"],
        )
        assert (invoice["status"], invoice["total_cents"], invoice["balance_cents"]) == (
            "issued",
            TOTAL,
            TOTAL,
        )
        assert invoice["due_at"] is not None
        payments = f"/api/v1/invoices/{invoice['id']}/payments"
        part = await accounting.post(
            payments, json={"amount_cents": 5000, "method": "card", "reference": "ch_3Pq1"}
        )
        assert part.status_code == 201, part.text
        assert part.json()["payment"]["amount_cents"] == 5000
        read = await accounting.get(f"/api/v1/invoices/{invoice['id']}")
        assert read.status_code == 200, read.text
        figures = ("status", "paid_cents", "balance_cents")
        assert tuple(read.json()[name] for name in figures) == ("issued", 5000, TOTAL - 5000)
        assert [p["reference"] for p in read.json()["payments"]] == ["ch_3Pq1"]

        heard = await inbox.wait_for("invoice.payment_received")
        assert (heard["invoice_id"], heard["order_id"], heard["amount_cents"]) == (
            invoice["id"],
            order["id"],
            5000,
        )
        assert (heard["paid_cents"], heard["balance_cents"]) == (5000, TOTAL - 5000)
        too_much = await accounting.post(
            payments, json={"amount_cents": TOTAL - 5000 + 1, "method": "bank_transfer"}
        )
        assert too_much.status_code == 422, too_much.text
        assert "amount_cents" in too_much.json()["errors"]

        rest = await accounting.post(
            payments,
            json={"amount_cents": TOTAL - 5000, "method": "bank_transfer", "reference": "BACS 88"},
        )
        assert rest.status_code == 201, rest.text
        paid = rest.json()["invoice"]
        assert tuple(paid[name] for name in figures) == ("paid", TOTAL, 0)
        assert paid["paid_at"] is not None

        heard = await inbox.wait_for("invoice.paid")
        assert (heard["order_id"], heard["invoice_number"], heard["invoice_status"]) == (
            order["id"],
            invoice["number"],
            "paid",
        )
        last = await inbox.wait_for("invoice.payment_received", count=2)
        assert (last["amount_cents"], last["balance_cents"]) == (TOTAL - 5000, 0)

    # Once everything recorded is delivered: each change was told once, and nothing else.
    await all_delivered()
    assert Counter(event["event"] for event in inbox.events) == Counter(
        {
            "customer.created": 1,
            "order.created": 1,
            "order.dispatched": 1,
            "invoice.issued": 1,
            "invoice.payment_received": 2,
            "invoice.paid": 1,
        }
    )
    assert inbox.refused == 0
    assert all(request.signature_ok for request in receiver.requests)
    # The check can fail: the same request does not verify with another secret.
    request = receiver.requests[0]
    with pytest.raises(WebhookVerificationError):
        Webhook(signing.new_secret()).verify(request.body, request.headers)


class SharedInbox:
    """One endpoint receiving from several shops, as an app serving many shops would: each
    request's `X-SVC-Workspace` picks the secret it is verified with (`standardwebhooks`)."""

    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}
        self.received: list[tuple[dict[str, str], dict[str, Any]]] = []
        self.refused = 0
        self.arrived = asyncio.Event()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        secret = self.secrets.get(request.headers.get("X-SVC-Workspace", ""))
        try:
            if secret is None:
                raise WebhookVerificationError("no such shop")
            event = Webhook(secret).verify(body, dict(request.headers))
        except WebhookVerificationError:
            self.refused += 1
            return web.json_response({"error": "bad signature"}, status=401)
        self.received.append((dict(request.headers), event))
        self.arrived.set()
        return web.Response(status=204)

    async def wait_for(self, workspace: int, name: str, seconds: float = 30.0) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            events = (event for _, event in self.received if event["event"] == name)
            return next((event for event in events if event["workspace_id"] == workspace), None)

        async with asyncio.timeout(seconds):
            while (event := found()) is None:
                self.arrived.clear()
                await self.arrived.wait()
        return event


@pytest.fixture
async def shared_inbox() -> AsyncIterator[tuple[SharedInbox, str]]:
    inbox = SharedInbox()
    app = web.Application()
    app.router.add_post("/hooks", inbox.handle)
    runner = web.AppRunner(app, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield inbox, f"http://127.0.0.1:{port}/hooks"
    finally:
        await runner.cleanup()


async def test_artwork_through_the_api_and_two_shops_on_one_receiver(
    processes: tuple[Web, Worker], shared_inbox: tuple[SharedInbox, str]
) -> None:
    web_process, _ = processes
    inbox, url = shared_inbox
    # Two shops as a new workspace starts: artwork approval required before production.
    shops = [await factories.workspace(require_artwork_approval=True) for _ in range(2)]
    for ws in shops:
        _, secret = await subscriptions.create(ws.id, url, "*")
        inbox.secrets[str(ws.id)] = secret
    first, second = shops
    api = httpx.AsyncClient(
        base_url=web_process.base, headers=await factories.caller(first), timeout=10
    )
    other = httpx.AsyncClient(
        base_url=web_process.base, headers=await factories.caller(second), timeout=10
    )
    async with api, other:
        buyer = await api.post(
            "/api/v1/customers",
            json={"name": "Jo Bloggs", "contacts": [{"name": "Jo", "email": EMAIL}]},
        )
        assert buyer.status_code == 201, buyer.text
        made = await api.post(
            "/api/v1/orders", json={"customer_id": buyer.json()["id"], "items": [ITEM]}
        )
        assert made.status_code == 201, made.text
        order_id = made.json()["id"]
        path = f"/api/v1/orders/{order_id}"

        # The rule holds: no production before the artwork is approved.
        early = await api.post(f"{path}/advance", json={"to_stage": "in_production"})
        assert (early.status_code, early.json()["code"]) == (422, "stage_move_refused")

        # The storefront attaches the buyer's artwork as the first proof (no email: the
        # buyer approved it at checkout) and records that approval.
        proof = await api.post(
            f"{path}/proofs",
            data={"notify": "false"},
            files={"file": ("front.png", png(), "image/png")},
        )
        assert proof.status_code == 201, proof.text
        assert proof.json()["status"] == "awaiting_approval"
        approved = await api.post(
            f"{path}/artwork/approve",
            json={"approved_by": "Jo Bloggs", "note": "Approved at checkout"},
        )
        assert approved.status_code == 200, approved.text
        assert approved.json()["status"] == "approved"
        heard = await inbox.wait_for(first.id, "artwork.approved")
        assert heard["order_id"] == order_id

        # Through production to dispatch, each move made on the order as last read.
        for stage in ("print_queue", "in_production", "qc_pack", "dispatched"):
            tag = (await api.get(path)).headers["ETag"]
            moved = await api.post(
                f"{path}/advance", json={"to_stage": stage}, headers={"If-Match": tag}
            )
            assert (moved.status_code, moved.json()["stage"]) == (200, stage), moved.text
        stale = await api.post(
            f"{path}/advance", json={"to_stage": "qc_pack"}, headers={"If-Match": tag}
        )
        assert (stale.status_code, stale.json()["code"]) == (412, "precondition_failed")
        await inbox.wait_for(first.id, "order.dispatched")

        # The other shop's order reaches the same endpoint.
        its_buyer = await other.post("/api/v1/customers", json={"name": "Sam"})
        its_order = await other.post(
            "/api/v1/orders",
            json={
                "customer_id": its_buyer.json()["id"],
                "lines": [{"description": "Tee", "quantity": 1, "unit_price_cents": 900}],
            },
        )
        assert its_order.status_code == 201, its_order.text
        await inbox.wait_for(second.id, "order.created")

    # Told apart by X-SVC-Workspace (the payload's workspace_id agrees), never sharing an id.
    assert inbox.refused == 0
    by_shop: dict[int, set[str]] = {first.id: set(), second.id: set()}
    for headers, event in inbox.received:
        assert headers["X-SVC-Workspace"] == str(event["workspace_id"])
        assert headers["webhook-id"] == headers["X-SVC-Delivery"]
        assert headers["webhook-id"].startswith("dlv_") and len(headers["webhook-id"]) >= 30
        by_shop[event["workspace_id"]].add(headers["webhook-id"])
    assert by_shop[first.id] and by_shop[second.id]
    assert by_shop[first.id].isdisjoint(by_shop[second.id])
    assert sum(map(len, by_shop.values())) == len(inbox.received)  # one request per delivery
