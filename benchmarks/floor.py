"""The floor: Pressline's read endpoints as a bare ASGI app over the raw driver.

Same SQL, same JSON bytes (same envelope and field order), same bearer-token check by digest,
but no framework, no ORM: one asyncpg pool connection per request on PostgreSQL, one
long-lived `sqlite3` connection on SQLite, msgspec encoding. What Pressline could reach with
this stack, and the reference every ratio in docs/benchmarks.md is taken against.

    DATABASE_URL=... uvicorn benchmarks.floor:app --loop uvloop --http httptools
    DATABASE_URL=... python -m benchmarks.floor --check   # byte-compare with Pressline
    python -m benchmarks.floor --smoke                    # seed tiny databases, then check
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import re
import sqlite3
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode
from zoneinfo import ZoneInfo

import msgspec

# --- response bodies (field order = Pressline's) -------------------------------------------


class User(msgspec.Struct):
    id: int
    name: str
    email: str


class Links(msgspec.Struct):
    first: str
    last: str
    prev: str | None
    next: str | None


class Page(msgspec.Struct):
    data: list[Any]
    current_page: int
    last_page: int
    per_page: int
    total: int
    links: Links


class Totals(msgspec.Struct):
    subtotal_cents: int
    tax_cents: int
    total_cents: int
    currency: str


class CustomerRef(msgspec.Struct):
    id: int
    name: str
    slug: str


class OrderLine(msgspec.Struct):
    description: str
    quantity: int
    unit_price_cents: int
    line_total_cents: int
    sku: str | None


class Order(msgspec.Struct):
    id: int
    number: str
    stage: str
    substage: str | None
    due_by: str | None
    dispatched_at: str | None
    carrier: str | None
    tracking_number: str | None
    external_ref: str | None
    totals: Totals
    customer: CustomerRef
    lines: list[OrderLine]
    created_at: str
    updated_at: str


class StageEntry(msgspec.Struct):
    from_: str | None = msgspec.field(name="from")
    to: str = ""
    at: str = ""


class Invoice(msgspec.Struct):
    number: str
    status: str
    total: int
    currency: str
    issued_at: str | None
    paid_at: str | None


class Artwork(msgspec.Struct):
    status: str
    version: int
    approved_at: str | None


class OrderDetail(msgspec.Struct):
    id: int
    number: str
    stage: str
    substage: str | None
    due_by: str | None
    dispatched_at: str | None
    carrier: str | None
    tracking_number: str | None
    external_ref: str | None
    totals: Totals
    customer: CustomerRef
    lines: list[OrderLine]
    created_at: str
    updated_at: str
    stage_history: list[StageEntry]
    invoices: list[Invoice]
    artwork: Artwork


class CustomerRow(msgspec.Struct):
    id: int
    name: str
    slug: str
    price_list: str | None
    discount: str
    orders_count: int
    open_orders: int
    updated_at: str


class PriceList(msgspec.Struct):
    name: str
    discount_percent: str


class Contact(msgspec.Struct):
    name: str
    email: str
    phone: str
    is_primary: bool


class CustomerDetail(msgspec.Struct):
    id: int
    name: str
    slug: str
    lifetime_value_cents: int
    price_list: PriceList | None
    payment_terms: str
    default_carrier: str
    contacts: list[Contact]
    updated_at: str


class Sku(msgspec.Struct):
    code: str
    style: str
    brand: str
    colour: str
    colour_hex: str
    size: str
    on_hand: int
    reserved: int
    available: int
    reorder_point: int
    status: str
    updated_at: str


class Message(msgspec.Struct):
    message: str


# --- SQL (what Pressline's queries send, parameterised for the driver) ----------------------

SQL = {
    "principal": """
        SELECT t.id, t.expires_at, t.revoked_at, u.id, u.name, u.email, u.is_active,
               w.id, w.plan, w.trial_ends_at, w.timezone, w.currency
        FROM api_tokens t
        LEFT JOIN users u ON t."user" = u.id
        LEFT JOIN workspaces w ON t.workspace = w.id
        WHERE t.digest = $1 LIMIT 1""",
    "orders_count": "SELECT COUNT(*) FROM orders WHERE workspace = $1",
    "orders_page": """
        SELECT o.id, o.number, o.stage, o.substage, o.due_by, o.dispatched_at, o.carrier,
               o.tracking_number, o.external_ref, o.subtotal_cents, o.tax_cents,
               o.total_cents, o.currency, o.created_at, o.updated_at, c.id, c.name, c.slug
        FROM orders o LEFT JOIN customers c ON o.customer = c.id
        WHERE o.workspace = $1
        ORDER BY o.created_at DESC, o.id DESC LIMIT $2 OFFSET $3""",
    "order_one": """
        SELECT o.id, o.number, o.stage, o.substage, o.due_by, o.dispatched_at, o.carrier,
               o.tracking_number, o.external_ref, o.subtotal_cents, o.tax_cents,
               o.total_cents, o.currency, o.created_at, o.updated_at, c.id, c.name, c.slug
        FROM orders o LEFT JOIN customers c ON o.customer = c.id
        WHERE o.workspace = $1 AND o.id = $2 LIMIT 1""",
    "lines": """
        SELECT l."order", l.description, l.quantity, l.unit_price_cents, l.line_total_cents,
               s.code
        FROM order_lines l LEFT JOIN skus s ON l.sku = s.id
        WHERE l."order" {IN}
        ORDER BY l."order", l.position""",
    "history": """
        SELECT from_stage, to_stage, at FROM stage_history WHERE "order" = $1
        ORDER BY at, id""",
    "invoices": """
        SELECT number, status, total_cents, currency, issued_at, paid_at
        FROM invoices WHERE "order" = $1 ORDER BY id""",
    "artwork": 'SELECT status, version, approved_at FROM artwork WHERE "order" = $1 LIMIT 1',
    "customers_count": "SELECT COUNT(*) FROM customers WHERE workspace = $1",
    "customers_page": """
        SELECT c.id, c.name, c.slug, c.payment_terms, c.default_carrier, c.updated_at,
               p.name, p.discount_percent
        FROM customers c LEFT JOIN price_lists p ON c.price_list = p.id
        WHERE c.workspace = $1
        ORDER BY c.name, c.id LIMIT $2 OFFSET $3""",
    "customer_counts": """
        SELECT customer, stage, COUNT(*) FROM orders WHERE customer {IN}
        GROUP BY customer, stage""",
    "customer_one": """
        SELECT c.id, c.name, c.slug, c.payment_terms, c.default_carrier, c.updated_at,
               p.name, p.discount_percent
        FROM customers c LEFT JOIN price_lists p ON c.price_list = p.id
        WHERE c.workspace = $1 AND c.id = $2 LIMIT 1""",
    "contacts": """
        SELECT name, email, phone, is_primary FROM contacts WHERE customer = $1
        ORDER BY is_primary DESC, id""",
    "ltv": "SELECT SUM(total_cents) FROM invoices WHERE customer = $1 AND status = 'paid'",
    "skus_count": "SELECT COUNT(*) FROM skus WHERE workspace = $1",
    "skus_page": """
        SELECT code, style, brand, colour, colour_hex, size, on_hand, reserved,
               reorder_point, discontinued, updated_at
        FROM skus WHERE workspace = $1
        ORDER BY code, id LIMIT $2 OFFSET $3""",
}

OPEN_STAGES = frozenset({"artwork", "print_queue", "in_production", "qc_pack"})
API_PLANS = frozenset({"premium", "enterprise"})
PLANS = ("starter", "standard", "premium", "enterprise")
MAX_ID = 2**31 - 1
encode = msgspec.json.Encoder().encode


# --- drivers -------------------------------------------------------------------------------


class Postgres:
    """asyncpg: one pooled connection per request, every statement on it."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.pool: Any = None
        self.sql = {key: sql.replace("{IN}", "= ANY($1::int[])") for key, sql in SQL.items()}

    async def start(self) -> None:
        import asyncpg

        self.pool = await asyncpg.create_pool(self.url, min_size=1, max_size=10)

    async def stop(self) -> None:
        await self.pool.close()

    def connection(self) -> Any:
        return self.pool.acquire()

    async def rows(self, conn: Any, key: str, *args: Any) -> list[Any]:
        return await conn.fetch(self.sql[key], *args)  # type: ignore[no-any-return]

    async def row(self, conn: Any, key: str, *args: Any) -> Any:
        return await conn.fetchrow(self.sql[key], *args)

    async def rows_in(self, conn: Any, key: str, ids: list[int]) -> list[Any]:
        return await conn.fetch(self.sql[key], ids)  # type: ignore[no-any-return]

    @staticmethod
    def when(value: Any) -> dt.datetime:
        return value  # type: ignore[no-any-return]


_PLACEHOLDER = re.compile(r"\$\d+")


class Sqlite:
    """One long-lived sqlite3 connection, used directly in the event loop."""

    def __init__(self, url: str) -> None:
        self.path = url[len("sqlite:///") :]
        self.conn: sqlite3.Connection | None = None
        self.sql = {key: _PLACEHOLDER.sub("?", sql) for key, sql in SQL.items()}

    async def start(self) -> None:
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)

    async def stop(self) -> None:
        if self.conn is not None:
            self.conn.close()

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[sqlite3.Connection]:
        assert self.conn is not None
        yield self.conn

    async def rows(self, conn: sqlite3.Connection, key: str, *args: Any) -> list[Any]:
        return conn.execute(self.sql[key], args).fetchall()

    async def row(self, conn: sqlite3.Connection, key: str, *args: Any) -> Any:
        return conn.execute(self.sql[key], args).fetchone()

    async def rows_in(self, conn: sqlite3.Connection, key: str, ids: list[int]) -> list[Any]:
        sql = self.sql[key].replace("{IN}", f"IN ({', '.join('?' * len(ids))})")
        return conn.execute(sql, ids).fetchall()

    @staticmethod
    def when(value: Any) -> dt.datetime:
        return dt.datetime.fromisoformat(value)


Driver = Postgres | Sqlite


def driver_for(url: str) -> Driver:
    if url.startswith(("postgres://", "postgresql://")):
        return Postgres(url)
    return Sqlite(url)


# --- shaping -------------------------------------------------------------------------------


class HttpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _iso(when: Callable[[Any], dt.datetime], value: Any) -> str | None:
    return None if value is None else when(value).isoformat(timespec="seconds")


def _two_places(value: Any) -> str:
    return f"{value or 0:.2f}"


def _order(db: Driver, row: Any, lines: list[OrderLine], timezone: str) -> dict[str, Any]:
    when = db.when
    due_by = row[4]
    return {
        "id": row[0],
        "number": row[1],
        "stage": row[2],
        "substage": row[3],
        "due_by": None
        if due_by is None
        else when(due_by).astimezone(ZoneInfo(timezone)).isoformat(timespec="seconds"),
        "dispatched_at": _iso(when, row[5]),
        "carrier": row[6],
        "tracking_number": row[7],
        "external_ref": row[8],
        "totals": Totals(row[9], row[10], row[11], row[12]),
        "customer": CustomerRef(row[15], row[16], row[17]),
        "lines": lines,
        "created_at": when(row[13]).isoformat(timespec="seconds"),
        "updated_at": when(row[14]).isoformat(timespec="seconds"),
    }


async def _lines(db: Driver, conn: Any, ids: list[int]) -> dict[int, list[OrderLine]]:
    grouped: dict[int, list[OrderLine]] = defaultdict(list)
    if ids:
        for r in await db.rows_in(conn, "lines", ids):
            grouped[r[0]].append(OrderLine(r[1], r[2], r[3], r[4], r[5]))
    return grouped


def _page(
    scope: dict[str, Any], headers: dict[bytes, bytes], data: list[Any], page: int,
    per_page: int, total: int,
) -> Page:  # fmt: skip
    last = max(1, -(-total // per_page))
    scheme = headers.get(b"x-forwarded-proto", scope["scheme"].encode()).decode()
    host = headers.get(b"x-forwarded-host", headers.get(b"host", b"")).decode()
    scheme, host = scheme.split(",")[0].strip(), host.split(",")[0].strip()
    base = f"{scheme}://{host}{scope['path']}"
    others = [(k, v) for k, v in parse_qsl(scope["query_string"].decode()) if k != "page"]

    def link(number: int) -> str:
        return f"{base}?{urlencode([*others, ('page', str(number))])}"

    return Page(
        data,
        page,
        last,
        per_page,
        total,
        Links(
            link(1),
            link(last),
            link(min(page - 1, last)) if page > 1 else None,
            link(page + 1) if page < last else None,
        ),
    )


def _page_number(scope: dict[str, Any]) -> int:
    params = dict(parse_qsl(scope["query_string"].decode()))
    unknown = set(params) - {"page"}
    if unknown:
        raise HttpError(400, f"the floor does not implement: {', '.join(sorted(unknown))}")
    try:
        page = int(params.get("page", "1"))
    except ValueError:
        raise HttpError(422, "page must be an integer") from None
    if not 1 <= page <= MAX_ID:
        raise HttpError(422, "page must be at least 1")
    return page


# --- endpoints -----------------------------------------------------------------------------


async def authenticate(db: Driver, conn: Any, headers: dict[bytes, bytes]) -> Any:
    header = headers.get(b"authorization", b"").decode()
    scheme, _, value = header.partition(" ")
    if not header:
        raise HttpError(401, "Missing bearer token: send 'Authorization: Bearer <token>'")
    if scheme.lower() != "bearer" or not value.strip():
        raise HttpError(401, "Malformed Authorization header: expected 'Bearer <token>'")
    digest = hashlib.sha256(value.strip().encode()).hexdigest()
    row = await db.row(conn, "principal", digest)
    now = dt.datetime.now(dt.UTC)
    if row is None:
        raise HttpError(401, "Invalid token")
    if row[2] is not None:
        raise HttpError(401, "Token revoked")
    if db.when(row[1]) <= now:
        raise HttpError(401, "Token expired")
    if not row[6]:
        raise HttpError(403, "User is deactivated")
    plan = row[8]
    trial = row[9]
    if trial is not None and now < db.when(trial) and PLANS.index(plan) < PLANS.index("premium"):
        plan = "premium"
    if plan not in API_PLANS:
        raise HttpError(
            422,
            f"The workspace's plan ({plan}) does not include API access; "
            "upgrade to Premium or Enterprise",
        )
    return row


async def me(db: Driver, conn: Any, principal: Any, scope: dict[str, Any], *_: Any) -> Any:
    return User(principal[3], principal[4], principal[5])


async def orders(
    db: Driver, conn: Any, principal: Any, scope: dict[str, Any], headers: dict[bytes, bytes]
) -> Any:
    page, per_page = _page_number(scope), 50
    workspace = principal[7]
    total = (await db.row(conn, "orders_count", workspace))[0]
    data: list[Order] = []
    if (page - 1) * per_page < total:
        rows = await db.rows(conn, "orders_page", workspace, per_page, (page - 1) * per_page)
        lines = await _lines(db, conn, [r[0] for r in rows])
        timezone = principal[10]
        data = [Order(**_order(db, r, lines.get(r[0], []), timezone)) for r in rows]
    return _page(scope, headers, data, page, per_page, total)


async def order_detail(
    db: Driver, conn: Any, principal: Any, scope: dict[str, Any], headers: Any, order_id: int
) -> Any:
    row = None
    if 0 < order_id <= MAX_ID:
        row = await db.row(conn, "order_one", principal[7], order_id)
    if row is None:
        raise HttpError(404, "Order not found")
    when = db.when
    lines = (await _lines(db, conn, [order_id])).get(order_id, [])
    history = [
        StageEntry(r[0], r[1], when(r[2]).isoformat(timespec="seconds"))
        for r in await db.rows(conn, "history", order_id)
    ]
    invoices = [
        Invoice(r[0], r[1], r[2], r[3], _iso(when, r[4]), _iso(when, r[5]))
        for r in await db.rows(conn, "invoices", order_id)
    ]
    art = await db.row(conn, "artwork", order_id)
    artwork = (
        Artwork(art[0], art[1], _iso(when, art[2])) if art else Artwork("awaiting_proof", 0, None)
    )
    return OrderDetail(
        **_order(db, row, lines, principal[10]),
        stage_history=history,
        invoices=invoices,
        artwork=artwork,
    )


async def customers(
    db: Driver, conn: Any, principal: Any, scope: dict[str, Any], headers: dict[bytes, bytes]
) -> Any:
    page, per_page = _page_number(scope), 50
    workspace = principal[7]
    total = (await db.row(conn, "customers_count", workspace))[0]
    data: list[CustomerRow] = []
    if (page - 1) * per_page < total:
        rows = await db.rows(conn, "customers_page", workspace, per_page, (page - 1) * per_page)
        counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        if rows:
            for customer, stage, n in await db.rows_in(
                conn, "customer_counts", [r[0] for r in rows]
            ):
                counts[customer][0] += n
                if stage in OPEN_STAGES:
                    counts[customer][1] += n
        when = db.when
        for r in rows:
            all_orders, open_orders = counts.get(r[0], (0, 0))
            data.append(
                CustomerRow(
                    r[0], r[1], r[2], r[6], _two_places(r[7]), all_orders, open_orders,
                    when(r[5]).isoformat(timespec="seconds"),
                )
            )  # fmt: skip
    return _page(scope, headers, data, page, per_page, total)


async def customer_detail(
    db: Driver, conn: Any, principal: Any, scope: dict[str, Any], headers: Any, customer_id: int
) -> Any:
    row = None
    if 0 < customer_id <= MAX_ID:
        row = await db.row(conn, "customer_one", principal[7], customer_id)
    if row is None:
        raise HttpError(404, "Customer not found")
    contacts = [
        Contact(r[0], r[1], r[2], bool(r[3])) for r in await db.rows(conn, "contacts", customer_id)
    ]
    ltv = (await db.row(conn, "ltv", customer_id))[0]
    price_list = None if row[6] is None else PriceList(row[6], _two_places(row[7]))
    return CustomerDetail(
        row[0], row[1], row[2], int(ltv or 0), price_list, row[3], row[4], contacts,
        db.when(row[5]).isoformat(timespec="seconds"),
    )  # fmt: skip


def _sku_status(on_hand: int, reserved: int, reorder_point: int, discontinued: Any) -> str:
    available = on_hand - reserved
    if discontinued:
        return "discontinued"
    if available <= 0:
        return "out_of_stock"
    if available <= reorder_point:
        return "low_stock"
    return "in_stock"


async def inventory(
    db: Driver, conn: Any, principal: Any, scope: dict[str, Any], headers: dict[bytes, bytes]
) -> Any:
    page, per_page = _page_number(scope), 100
    workspace = principal[7]
    total = (await db.row(conn, "skus_count", workspace))[0]
    data: list[Sku] = []
    if (page - 1) * per_page < total:
        when = db.when
        data = [
            Sku(
                r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[6] - r[7], r[8],
                _sku_status(r[6], r[7], r[8], r[9]), when(r[10]).isoformat(timespec="seconds"),
            )
            for r in await db.rows(conn, "skus_page", workspace, per_page, (page - 1) * per_page)
        ]  # fmt: skip
    return _page(scope, headers, data, page, per_page, total)


ROUTES: dict[str, Callable[..., Awaitable[Any]]] = {
    "/api/v1/me": me,
    "/api/v1/orders": orders,
    "/api/v1/customers": customers,
    "/api/v1/inventory": inventory,
}
DETAIL_ROUTES: dict[str, Callable[..., Awaitable[Any]]] = {
    "/api/v1/orders/": order_detail,
    "/api/v1/customers/": customer_detail,
}


# --- ASGI ----------------------------------------------------------------------------------


def _route(path: str) -> tuple[Callable[..., Awaitable[Any]], tuple[int, ...]] | None:
    handler = ROUTES.get(path)
    if handler is not None:
        return handler, ()
    prefix, _, tail = path.rpartition("/")
    handler = DETAIL_ROUTES.get(prefix + "/")
    if handler is not None and tail.isdigit():
        return handler, (int(tail),)
    return None


class Floor:
    def __init__(self) -> None:
        self.db: Driver | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        status, body, extra = await self.answer(scope)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *extra,
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def answer(self, scope: dict[str, Any]) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
        assert self.db is not None
        headers = dict(scope["headers"])
        found = _route(scope["path"]) if scope["method"] == "GET" else None
        if found is None:
            return 404, encode(Message("Not Found")), []
        handler, args = found
        try:
            async with self.db.connection() as conn:
                principal = await authenticate(self.db, conn, headers)
                result = await handler(self.db, conn, principal, scope, headers, *args)
        except HttpError as exc:
            extra = [(b"www-authenticate", b"Bearer")] if exc.status == 401 else []
            return exc.status, encode(Message(exc.message)), extra
        return 200, encode(result), []

    async def lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                url = os.environ.get("DATABASE_URL", "sqlite:///pressline.sqlite3")
                self.db = driver_for(url)
                await self.db.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.db is not None:
                    await self.db.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return


app = Floor()


# --- byte-for-byte check against Pressline ---------------------------------------------------


def check(url: str) -> int:
    """Ask both apps the same questions; every answer must match byte for byte."""
    from benchmarks import common

    users = common.load_tokens(url)["users"]
    paths: list[tuple[str, str | None]] = [("/api/v1/me", None)]
    for user in (users[0], users[len(users) // 2], users[-1]):
        token = user["token"]
        paths += [
            ("/api/v1/me", token),
            ("/api/v1/orders", token),
            ("/api/v1/orders?page=2", token),
            ("/api/v1/orders?page=100000", token),
            ("/api/v1/customers", token),
            ("/api/v1/customers?page=2", token),
            ("/api/v1/inventory", token),
            ("/api/v1/inventory?page=3", token),
            (f"/api/v1/customers/{user['customers'][0]}", token),
            (f"/api/v1/customers/{user['customers'][-1]}", token),
            (f"/api/v1/orders/{user['orders'][0]}", token),
            (f"/api/v1/orders/{user['orders'][-1]}", token),
            ("/api/v1/orders/2147483647", token),
            ("/api/v1/customers/2147483647", token),
        ]
    paths.append(("/api/v1/orders", "plk_not-a-token"))
    failures = 0
    with (
        common.Server("pressline", common.PRESSLINE_APP, url, quiet=True) as pressline,
        common.Server("floor", common.FLOOR_APP, url, quiet=True) as floor,
    ):
        for path, token in paths:
            answers = [
                common.http_get(server.base + path, token=token, host="bench.local")
                for server in (pressline, floor)
            ]
            if answers[0] != answers[1]:
                failures += 1
                print(f"DIFFERENT {path}:")
                print(f"  pressline {answers[0]!r:.600}\n  floor     {answers[1]!r:.600}")
    verdict = "identical" if not failures else f"{failures} different"
    print(f"floor check on {common.label(url)}: {len(paths)} requests, {verdict}")
    return 1 if failures else 0


async def _smoke() -> int:
    from benchmarks import common

    status = 0
    for backend in await common.smoke_backends():
        async with common.throwaway(backend) as url:
            common.run_seed(url, "--smoke")
            status |= check(url)
    return status


def main() -> None:
    import argparse
    import asyncio
    import sys

    from benchmarks import common

    common.require_module_run(__package__, "floor")
    parser = argparse.ArgumentParser(prog="python -m benchmarks.floor", description=__doc__)
    parser.add_argument("--check", action="store_true", help="byte-compare with Pressline")
    parser.add_argument("--smoke", action="store_true", help="tiny throwaway databases + check")
    args = parser.parse_args()
    if args.smoke:
        sys.exit(asyncio.run(_smoke()))
    if args.check:
        sys.exit(check(common.database_url()))
    parser.print_help()


if __name__ == "__main__":
    main()
