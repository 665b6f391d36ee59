"""Admin page latency with 10,000 orders and 10,000 deliveries in the workspace.

    python -m benchmarks.admin [--orders 10000] [--deliveries 10000] [--requests 200]

Seeds a throwaway database (SQLite, and PostgreSQL when reachable) with one workspace by
benchmarks/seed.py (its owner, 1,000 customers, 5,000 SKUs and N orders over three years:
lines, stage history, artwork, invoices), then one subscription and N deliveries each with an
attempt, and 500 stock movements for one SKU; starts one uvicorn process and asks each admin
page sequentially with a logged-in session cookie; prints p50/p95 in ms.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import time
import urllib.request
import uuid

from benchmarks import common

common.require_module_run(__package__, "admin")

BATCH = 1000


class Seeded:
    """What the pages are asked with: the session, a subscription, a delivery, an order."""

    def __init__(self, cookie: str, subscription: int, delivery: int, order: str) -> None:
        self.cookie, self.subscription, self.delivery, self.order = (
            cookie, subscription, delivery, order,
        )  # fmt: skip
        self.customer, self.sku = 0, ""  # the customer with most orders; a SKU with movements


async def seed(url: str, deliveries: int, orders: int) -> Seeded:
    """One workspace (benchmarks/seed.py: its first user is the owner), then the webhooks."""
    from models import admin_sessions, clock, db
    from models.tables import Order, WebhookAttempt, WebhookDelivery, WebhookEvent
    from models.tables import WebhookSubscription as Sub

    common.run_seed(
        url, "--workspaces", "1", "--users-per-workspace", "1", "--scale", "0.1",
        "--orders", str(orders),
    )  # fmt: skip
    engine = db.engine_from_url(url)
    db.bind(engine)
    await db.start(engine)
    ws_id, owner_id = 1, 1
    sub = Sub(workspace=ws_id, url="https://hooks.example.com/in", events="*", secret="whsec_x")  # noqa: S106 - not a real one
    await sub.save()
    start = clock.now() - dt.timedelta(days=1)
    statuses = ("succeeded", "succeeded", "succeeded", "failed", "skipped", "pending")
    for first in range(0, deliveries, BATCH):
        numbers = range(first, min(first + BATCH, deliveries))
        events = await WebhookEvent.insert(
            *[
                WebhookEvent(
                    workspace=ws_id, event_id=str(uuid.uuid4()), name="order.stage_changed",
                    body=f'{{"event":"order.stage_changed","order_number":"ORD-2026-{n:05d}"}}',
                    created_at=start + dt.timedelta(seconds=n),
                )
                for n in numbers
            ]
        ).returning(WebhookEvent.id)  # fmt: skip
        rows = await WebhookDelivery.insert(
            *[
                WebhookDelivery(
                    workspace=ws_id, event=event["id"], subscription=sub.id,
                    status=statuses[n % len(statuses)], attempts=1, last_status_code=200,
                    created_at=start + dt.timedelta(seconds=n),
                )
                for n, event in zip(numbers, events, strict=True)
            ]
        ).returning(WebhookDelivery.id)  # fmt: skip
        await WebhookAttempt.insert(
            *[
                WebhookAttempt(
                    delivery=row["id"], number=1, started_at=start, duration_ms=40,
                    status_code=200, response_body="ok", response_length=2,
                )
                for row in rows
            ]
        )  # fmt: skip
    cookie = await admin_sessions.create(owner_id, ws_id)
    # the order with the longest page: dispatched (five moves, an invoice), the newest such
    order = await (
        Order.select(Order.number)
        .where((Order.workspace == ws_id) & (Order.stage == "dispatched"))
        .order_by(Order.id, ascending=False)
        .first()
    )
    customer, sku = await shop_floor(ws_id, owner_id)
    await db.stop(engine)
    seeded = Seeded(cookie, sub.id, rows[-1]["id"], order["number"] if order else "1")
    seeded.customer, seeded.sku = customer, sku
    return seeded


async def shop_floor(ws_id: int, owner_id: int, movements: int = 500) -> tuple[int, str]:
    """The customer with the most orders, and a SKU given `movements` stock movements (the
    seed writes levels without movements)."""
    from models import clock
    from models.tables import Order, Sku, StockMovement

    counts = await Order.raw(
        "SELECT customer, COUNT(*) AS n FROM orders WHERE workspace = {} "
        "GROUP BY customer ORDER BY n DESC LIMIT 1",
        ws_id,
    )
    sku = await Sku.select(Sku.id, Sku.code).where(Sku.workspace == ws_id).first()
    assert sku is not None  # the seed made SKUs
    start = clock.now() - dt.timedelta(days=200)
    await StockMovement.insert(
        *[
            StockMovement(
                workspace=ws_id, sku=sku["id"], at=start + dt.timedelta(hours=n),
                kind="adjustment", delta_on_hand=1, reason="count", actor_kind="user",
                user=owner_id,
            )
            for n in range(movements)
        ]
    )  # fmt: skip
    return int(counts[0]["customer"]), str(sku["code"])


def timed(url: str, cookie: str, count: int) -> tuple[float, float]:
    samples: list[float] = []
    for _ in range(count):
        request = urllib.request.Request(url, headers={"Cookie": f"pressline_session={cookie}"})  # noqa: S310
        began = time.perf_counter()
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            response.read()
            assert response.status == 200, (url, response.status)
        samples.append((time.perf_counter() - began) * 1000)
    return common.median(samples), common.percentile(samples, 0.95)


async def run(backend: str, deliveries: int, orders: int, count: int) -> list[list[object]]:
    rows: list[list[object]] = []
    async with common.throwaway(backend, "admin") as url:
        seeded = await seed(url, deliveries, orders)
        with common.Server(name=f"admin-{backend}", app="api.app:app", url=url) as server:
            pages = [
                "/admin/",
                "/admin/orders",
                "/admin/orders?stage=open",
                "/admin/orders?due=overdue",
                "/admin/orders?q=fox",
                "/admin/orders?page=150",
                "/admin/orders/board",
                f"/admin/orders/{seeded.order}",
                "/admin/deliveries",
                "/admin/deliveries?status=failed",
                f"/admin/deliveries?subscription={seeded.subscription}&page=100",
                f"/admin/deliveries/{seeded.delivery}",
                "/admin/webhooks",
                "/admin/customers",
                "/admin/customers?q=a",
                "/admin/customers?page=10",
                f"/admin/customers/{seeded.customer}",
                "/admin/inventory",
                "/admin/inventory?status=low",
                "/admin/inventory?q=tee",
                "/admin/inventory?page=40",
                f"/admin/inventory/{seeded.sku}",
                "/admin/invoices",
                "/admin/invoices?status=issued",
                "/admin/invoices?page=20",
            ]
            for path in pages:
                timed(server.base + path, seeded.cookie, 10)  # warm up
                p50, p95 = timed(server.base + path, seeded.cookie, count)
                rows.append([backend, path, f"{p50:.1f}", f"{p95:.1f}"])
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deliveries", type=int, default=10_000)
    parser.add_argument("--orders", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    rows: list[list[object]] = []
    for backend in await common.smoke_backends():
        rows += await run(backend, args.deliveries, args.orders, args.requests)
    print(common.machine())
    print(
        f"{args.orders} orders and {args.deliveries} deliveries in the workspace, "
        f"{args.requests} sequential requests"
    )
    print(common.table(["engine", "page", "p50 ms", "p95 ms"], rows))


if __name__ == "__main__":
    asyncio.run(main())
