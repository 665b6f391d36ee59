"""Admin page latency with 10,000 orders and 10,000 deliveries in the workspace; with
`--search`, the order list's search at 1,000,000 orders on PostgreSQL.

    python -m benchmarks.admin [--orders 10000] [--deliveries 10000] [--requests 200]
    python -m benchmarks.admin --search [--orders 1000000] [--requests 200]

Seeds a throwaway database (SQLite, and PostgreSQL when reachable) with one workspace by
benchmarks/seed.py (its owner, 1,000 customers, 5,000 SKUs and N orders over three years:
lines, stage history, artwork, invoices), then one subscription and N deliveries each with an
attempt, 500 stock movements for one SKU, and one order of 20 garments (10 stocked, 10 not,
each with two imprints: 140 lines) made by the domain's own create; starts one uvicorn process
and asks each admin page sequentially with a logged-in session cookie — among them the new
order form, and that order's page, edit page and work order; prints p50/p95 in ms.

`--search` (PostgreSQL only: the trigram indexes are its): one workspace with its owner and
10,000 customers (fewer below 100,000 orders) by benchmarks/seed.py, then the orders written by
one set-based statement (seed.bulk_orders, generate_series) with the search's trigram indexes
dropped, and built again by the migration's own code (CONCURRENTLY, timed), VACUUM ANALYZE;
then GET /admin/orders?q=… over HTTP for each kind of term, sequentially, p50/p95 in ms.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import re
import time
import urllib.parse
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
        self.garments = ""  # the number of an order of GARMENTS items (print jobs, §18)


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
    garments = await garment_order(ws_id, customer)
    await db.stop(engine)
    seeded = Seeded(cookie, sub.id, rows[-1]["id"], order["number"] if order else "1")
    seeded.customer, seeded.sku, seeded.garments = customer, sku, garments
    return seeded


GARMENTS = 20


async def garment_order(ws_id: int, customer: int) -> str:
    """An order of GARMENTS items, each with a front screen print and a back or chest imprint:
    half of them stocked (a style and colour of the seed's SKUs, in all its sizes), half not
    (six standard sizes); created by models.orders.creating as the API and the admin do."""
    from models.actors import OPERATOR
    from models.garments import NewImprint, NewItem
    from models.orders.creating import create
    from models.tables import Sku

    runs: dict[tuple[str, str], list[str]] = {}
    for row in await Sku.select(Sku.style, Sku.colour, Sku.size).where(Sku.workspace == ws_id):
        sizes = runs.setdefault((row["style"], row["colour"]), [])
        if row["size"] not in sizes:
            sizes.append(row["size"])
    stocked = sorted(runs.items())[:: max(1, len(runs) // (GARMENTS // 2))][: GARMENTS // 2]
    front = NewImprint("front", "screen", colours=2, colour_names=("White", "PMS 186 C"),
                       width_mm=280, height_mm=200, unit_price_cents=180,
                       setup_cents=3000)  # fmt: skip
    chest = NewImprint("left_chest", "embroidery", stitches=8000, unit_price_cents=350,
                       setup_cents=2500, notes="Crest, gold thread")  # fmt: skip
    items = [
        NewItem(style=style, colour=colour, unit_price_cents=450, imprints=(front, chest),
                sizes=tuple((size, 3 + n) for n, size in enumerate(sizes)))
        for (style, colour), sizes in stocked
    ] + [
        NewItem(style=f"Bought-in Tee {n}", colour="Black",
                sizes=tuple((size, 4) for size in ("XS", "S", "M", "L", "XL", "2XL")),
                unit_price_cents=390, size_upcharges_cents=(("2XL", 200),),
                imprints=(front, NewImprint("back", "dtg", unit_price_cents=450)))
        for n in range(GARMENTS - len(stocked))
    ]  # fmt: skip
    created = await create(
        workspace_id=ws_id, customer_id=customer, items=items, notes="20 garments",
        actor=OPERATOR,
    )  # fmt: skip
    return created.order.number


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
                "/admin/orders/new",
                f"/admin/orders/{seeded.garments}",
                f"/admin/orders/{seeded.garments}/edit",
                f"/admin/orders/{seeded.garments}/work-order",
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


# --- the order search at scale (PostgreSQL) -----------------------------------------------------

SEARCH_MIGRATION = "models.migrations.models_2026_11_26t23_10_00_000000"
MATCHED = re.compile(r">(\d+) orders?[,.]")


async def build_search_indexes(url: str) -> float:
    """Seconds the migration's own code takes to build the search indexes (dropped first)."""
    import importlib

    from models import db

    migration = importlib.import_module(SEARCH_MIGRATION)
    engine = db.engine_from_url(url)
    db.bind(engine)
    for name in migration.INDEXES:
        await engine.run_ddl(f"DROP INDEX IF EXISTS {name}")
    manager = await migration.forwards()
    began = time.perf_counter()
    for step in manager.raw:
        await step()
    return time.perf_counter() - began


async def search_seed(url: str, orders: int) -> tuple[str, dict[str, str], list[str]]:
    """The workspace, its orders and the search indexes; the session cookie, the terms asked
    (kind → q) and what the seeding took."""
    import asyncpg

    from benchmarks import seed as bulk
    from models import admin_sessions, db

    scale = min(1.0, orders / 100_000)
    common.run_seed(
        url, "--workspaces", "1", "--users-per-workspace", "1", "--scale", str(scale),
        "--orders", "0",
    )  # fmt: skip
    notes = []
    conn = await asyncpg.connect(url)
    try:
        began = time.perf_counter()
        await bulk.bulk_orders(conn, 1, orders)
        notes.append(
            f"{orders:,} orders written by one statement in {time.perf_counter() - began:.1f} s"
        )
        built = await build_search_indexes(url)
        notes.append(f"trigram indexes built CONCURRENTLY by the migration in {built:.1f} s")
        await conn.execute("VACUUM ANALYZE orders")
        await conn.execute("VACUUM ANALYZE customers")
        middle = await conn.fetchval(
            "SELECT number FROM orders WHERE workspace = 1 ORDER BY id OFFSET $1 LIMIT 1",
            orders // 2,
        )
        customer = await conn.fetchval("SELECT name FROM customers ORDER BY id OFFSET 31 LIMIT 1")
        reference = await conn.fetchval(
            "SELECT external_ref FROM orders WHERE external_ref IS NOT NULL ORDER BY id "
            "OFFSET $1 LIMIT 1",
            orders // 7,
        )
        customers = await conn.fetchval("SELECT COUNT(*) FROM customers")
    finally:
        await conn.close()
    notes.insert(0, f"{orders:,} orders and {customers:,} customers in the workspace")
    engine = db.engine_from_url(url)
    db.bind(engine)
    await db.start(engine)
    cookie = await admin_sessions.create(1, 1)
    await db.stop(engine)
    terms = {
        "whole order number": middle,
        "number's last digits": middle.rsplit("-", 1)[1],
        "external reference": reference.lower(),
        "one customer's name": customer,
        "name fragment (5% of customers)": "fox",
        "broad fragment (11% of customers)": "club",
        "no match": "zzqx",
        "short: reference or name start": "42",
        "short, 5% of customers": "Ha",
    }
    return cookie, terms, notes


def matched(base: str, q: str, cookie: str) -> int:
    request = urllib.request.Request(  # noqa: S310 - our own server
        f"{base}/admin/orders?{urllib.parse.urlencode({'q': q})}",
        headers={"Cookie": f"pressline_session={cookie}"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        found = MATCHED.search(response.read().decode())
    return int(found.group(1)) if found else 0


async def search(orders: int, count: int) -> None:
    if not await common.pg_reachable():
        print(f"note: PostgreSQL not reachable at {common.ADMIN_URL}; the search runs on it only")
        return
    rows: list[list[object]] = []
    async with common.throwaway("postgres", "admin_search") as url:
        cookie, terms, notes = await search_seed(url, orders)
        with common.Server(name="admin-search", app="api.app:app", url=url) as server:
            for kind, q in terms.items():
                path = f"{server.base}/admin/orders?{urllib.parse.urlencode({'q': q})}"
                timed(path, cookie, 5)  # warm up (and past the prepared statement's 5 custom plans)
                p50, p95 = timed(path, cookie, count)
                rows.append(
                    [kind, q, f"{matched(server.base, q, cookie):,}", f"{p50:.1f}", f"{p95:.1f}"]
                )
    print(common.machine())
    print("; ".join(notes) + f"; {count} sequential requests per term over HTTP")
    print(common.table(["term", "q", "matches", "p50 ms", "p95 ms"], rows))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deliveries", type=int, default=10_000)
    parser.add_argument("--orders", type=int, help="default 10,000 (1,000,000 with --search)")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--search", action="store_true", help="the order search at scale")
    args = parser.parse_args()
    if args.search:
        await search(args.orders or 1_000_000, args.requests)
        return
    args.orders = args.orders or 10_000
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
