"""The floor: Pressline's own statements and body builders on a bare ASGI app.

What Pressline could reach on this stack without its framework layers, and the reference every
ratio in docs/benchmarks.md is taken against. By construction it sends the same SQL and answers
the same bytes: it imports the `Select`s of models/queries/, runs them through the same
statement runner (models/statements.py: same row decoding, same pool opened by
`models.db.start` with no reset query, the same long-lived SQLite connection), checks the
token with `api.auth.admit` and builds bodies with the builders of api/schemas/. What it leaves
out is what is measured: Litestar (routing, request and response machinery), the rate limiter,
the request log, the metrics, query-parameter parsing beyond `page`, and a second pooled
connection per request (Pressline's authentication and its handler each take one; the floor
takes one).
`POST /api/v1/orders` and `POST /api/v1/customers` (without an Idempotency-Key) authenticate
on one connection and then run the same domain call in one transaction as Pressline's handler
(`models.orders.creating.create`: 1 + 9 statements; `models.customers.records.create_customer`
and the detail read back), answered with the same body, `Location` (and the customer's `ETag`).

    DATABASE_URL=... python -m benchmarks.serve benchmarks.floor:app 8001
    DATABASE_URL=... python -m benchmarks.floor --check   # bodies and statement counts
    python -m benchmarks.floor --smoke                    # seed tiny databases, then check
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl

import msgspec

from api import etags, links
from api.auth import Principal, admit, bearer_token
from api.controllers.customers import PER_PAGE as CUSTOMERS_PER_PAGE
from api.controllers.events import PER_PAGE as EVENTS_PER_PAGE
from api.controllers.inventory import PER_PAGE as SKUS_PER_PAGE
from api.controllers.invoices import PER_PAGE as INVOICES_PER_PAGE
from api.controllers.orders import PER_PAGE as ORDERS_PER_PAGE
from api.errors import ApiError, NotFound, Unauthorized
from api.pagination import offset, page_of
from api.request_path import read_headers
from api.schemas.common import ErrorBody
from api.schemas.events import event_bodies
from api.schemas.inventory import sku_bodies
from api.schemas.invoices import invoice_bodies
from api.schemas.users import user_body
from models import clock, db, statements, tokens
from models.actors import Actor
from models.customers import queries as customer_queries
from models.customers import records as customer_records
from models.filters import MAX_ID
from models.invoices import queries as invoice_queries
from models.orders import creating
from models.orders import queries as order_queries
from models.orders.item_reads import items_of
from models.queries import auth as auth_queries
from models.queries import events as event_queries
from models.queries import inventory as sku_queries
from models.schemas.customers import (
    CustomerCreate,
    customer_detail_body,
    customer_row_bodies,
)
from models.schemas.orders import (
    OrderCreate,
    order_bodies,
    order_detail_body,
    validated_part,
)
from models.settings import get_settings
from models.statements import Reader

# The unfiltered list statements, as Pressline's list handlers pick them without filters.
ORDERS_COUNT, ORDERS_PAGE = order_queries.list_statements(False, False, False)
CUSTOMERS_COUNT, CUSTOMERS_PAGE = customer_queries.list_statements(False, False)
SKUS_COUNT, SKUS_PAGE = sku_queries.list_statements(False, False, False)
EVENTS_COUNT, EVENTS_PAGE = event_queries.list_statements(0, False, False)
INVOICES_COUNT, INVOICES_PAGE = invoice_queries.list_statements(False, False, False)

PUBLIC = links.public_base(get_settings().public_url)

encode = msgspec.json.Encoder().encode
Handler = Callable[..., Awaitable[Any]]


class Request(msgspec.Struct):
    """What a handler needs of the ASGI scope."""

    scope: dict[str, Any]
    headers: dict[bytes, bytes]
    principal: Principal


# --- endpoints -----------------------------------------------------------------------------


async def authenticate(conn: Reader, scope: dict[str, Any]) -> Principal:
    authorization = read_headers(scope["headers"]).authorization
    row = await conn.one(auth_queries.PRINCIPAL, tokens.digest(bearer_token(authorization)))
    if row is None:
        raise Unauthorized("Invalid token")
    return admit(row, clock.now())


def _page_number(request: Request) -> int:
    params = dict(parse_qsl(request.scope["query_string"].decode()))
    unknown = set(params) - {"page"}
    if unknown:
        raise ApiError(f"the floor does not implement: {', '.join(sorted(unknown))}")
    page = params.get("page", "1")
    if not page.isdigit() or not 1 <= int(page) <= MAX_ID:
        raise ApiError("the floor takes page numbers from 1 only")
    return int(page)


def _page_body(request: Request, data: list[Any], page: int, per_page: int, total: int) -> Any:
    """Pressline's envelope (api.pagination.page_of) at Pressline's own link base
    (api.links.endpoint_url, with PUBLIC_URL read once as the app reads it)."""
    base = links.endpoint_url(request.scope, PUBLIC)
    return page_of(base, [], data, page=page, per_page=per_page, total=total)


async def me(conn: Reader, request: Request) -> Any:
    return user_body(request.principal)


async def orders(conn: Reader, request: Request) -> Any:
    page, principal = _page_number(request), request.principal
    total, rows = await statements.counted_page(
        conn,
        ORDERS_COUNT,
        ORDERS_PAGE,
        [principal.workspace_id],
        ORDERS_PER_PAGE,
        offset(page, ORDERS_PER_PAGE),
    )
    lines = await conn.all(order_queries.LINES, [row.id for row in rows]) if rows else []
    data = order_bodies(rows, lines, principal.timezone)
    return _page_body(request, data, page, ORDERS_PER_PAGE, total)


async def order_detail(conn: Reader, request: Request, order_id: int) -> Any:
    workspace_id = request.principal.workspace_id
    order = None
    if 0 < order_id <= MAX_ID:
        order = await conn.one(order_queries.DETAIL, workspace_id, order_id)
    if order is None:
        raise NotFound("Order not found")
    rows = order_queries.OrderRows(
        order=order,
        lines=await conn.all(order_queries.ORDER_LINES, order_id),
        history=await conn.all(order_queries.HISTORY, order_id),
        invoices=await conn.all(order_queries.INVOICES, order_id),
        proofs=await conn.all(order_queries.PROOFS, order_id),
        items=await items_of(conn, workspace_id, order_id),
    )
    return order_detail_body(rows, request.principal.timezone)


async def customers(conn: Reader, request: Request) -> Any:
    page = _page_number(request)
    total, rows = await statements.counted_page(
        conn,
        CUSTOMERS_COUNT,
        CUSTOMERS_PAGE,
        [request.principal.workspace_id],
        CUSTOMERS_PER_PAGE,
        offset(page, CUSTOMERS_PER_PAGE),
    )
    grouped = await conn.all(customer_queries.ORDER_COUNTS, [r.id for r in rows]) if rows else []
    data = customer_row_bodies(rows, customer_queries.order_counts(grouped))
    return _page_body(request, data, page, CUSTOMERS_PER_PAGE, total)


async def customer_detail(conn: Reader, request: Request, customer_id: int) -> Any:
    customer = None
    if 0 < customer_id <= MAX_ID:
        customer = await conn.one(
            customer_queries.DETAIL, request.principal.workspace_id, customer_id
        )
    if customer is None:
        raise NotFound("Customer not found")
    contacts = await conn.all(customer_queries.CONTACTS, customer_id)
    addresses = await conn.all(customer_queries.ADDRESSES, customer_id)
    return customer_detail_body(customer_queries.CustomerRows(customer, contacts, addresses))


async def inventory(conn: Reader, request: Request) -> Any:
    page = _page_number(request)
    total, rows = await statements.counted_page(
        conn,
        SKUS_COUNT,
        SKUS_PAGE,
        [request.principal.workspace_id],
        SKUS_PER_PAGE,
        offset(page, SKUS_PER_PAGE),
    )
    return _page_body(request, sku_bodies(rows), page, SKUS_PER_PAGE, total)


async def events(conn: Reader, request: Request) -> Any:
    page = _page_number(request)
    total, rows = await statements.counted_page(
        conn,
        EVENTS_COUNT,
        EVENTS_PAGE,
        [request.principal.workspace_id],
        EVENTS_PER_PAGE,
        offset(page, EVENTS_PER_PAGE),
    )
    return _page_body(request, event_bodies(rows), page, EVENTS_PER_PAGE, total)


async def invoices(conn: Reader, request: Request) -> Any:
    page = _page_number(request)
    total, rows = await statements.counted_page(
        conn,
        INVOICES_COUNT,
        INVOICES_PAGE,
        [request.principal.workspace_id],
        INVOICES_PER_PAGE,
        offset(page, INVOICES_PER_PAGE),
    )
    return _page_body(request, invoice_bodies(rows), page, INVOICES_PER_PAGE, total)


ROUTES: dict[str, Handler] = {
    "/api/v1/me": me,
    "/api/v1/orders": orders,
    "/api/v1/customers": customers,
    "/api/v1/inventory": inventory,
    "/api/v1/events": events,
    "/api/v1/invoices": invoices,
}
DETAIL_ROUTES: dict[str, Handler] = {
    "/api/v1/orders/": order_detail,
    "/api/v1/customers/": customer_detail,
}


def _route(path: str) -> tuple[Handler, tuple[int, ...]] | None:
    handler = ROUTES.get(path)
    if handler is not None:
        return handler, ()
    prefix, _, tail = path.rpartition("/")
    handler = DETAIL_ROUTES.get(prefix + "/")
    if handler is not None and tail.isdigit():
        return handler, (int(tail),)
    return None


# --- ASGI ----------------------------------------------------------------------------------


async def create_order(request: Request, body: bytes) -> Any:
    """`POST /orders` without an Idempotency-Key: the body decoded into Pressline's own
    request Struct, then the same domain call in one transaction as Pressline's handler
    (`models.orders.creating.create`: its 9 statements for plain lines), answered with the
    same detail body, `Location` and the order's `ETag`."""
    data = msgspec.json.decode(body, type=OrderCreate)
    principal = request.principal
    async with db.transaction():
        created = await creating.create(
            workspace_id=principal.workspace_id,
            customer_id=data.customer_id,
            lines=data.new_lines(),
            items=data.new_items(),
            ship_to=None if data.ship_to is None else data.ship_to.new_address(),
            ship_to_address_id=data.ship_to_address_id,
            due_by=data.due_by,
            notes=data.notes or "",
            external_ref=data.external_ref,
            actor=Actor.token(principal.token_id, principal.user_id),
        )
    detail = order_detail_body(created, principal.timezone)
    location = f"{links.endpoint_url(request.scope, PUBLIC).rstrip('/')}/{created.order.id}"
    return Created(encode(detail), location, etags.of(validated_part(detail)))


async def create_customer(request: Request, body: bytes) -> Any:
    """`POST /customers` without an Idempotency-Key: the body decoded into Pressline's own
    request Struct, then in one transaction, as Pressline's handler: the same domain call
    (`models.customers.records.create_customer`) and the same detail read back, answered with
    the same bytes, `Location` and `ETag`."""
    data = msgspec.json.decode(body, type=CustomerCreate)
    workspace_id = request.principal.workspace_id
    async with db.transaction():
        row = await customer_records.create_customer(
            workspace_id=workspace_id, **data.create_arguments()
        )
        rows = await customer_queries.get_customer(workspace_id, row.id)
    if rows is None:  # written in the same transaction: it is there
        raise NotFound("Customer not found")
    encoded = encode(customer_detail_body(rows))
    location = f"{links.endpoint_url(request.scope, PUBLIC).rstrip('/')}/{row.id}"
    return Created(encoded, location, etags.of(encoded))


class Created(msgspec.Struct):
    body: Any
    location: str
    etag: str | None = None


CREATES: dict[str, Callable[[Request, bytes], Awaitable[Created]]] = {
    "/api/v1/orders": create_order,
    "/api/v1/customers": create_customer,
}


async def read_body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


class Floor:
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        creator = CREATES.get(scope["path"]) if scope["method"] == "POST" else None
        if creator is not None:
            status, body, extra = await self.create(creator, scope, await read_body(receive))
        else:
            status, body, extra = await self.answer(scope)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *extra,
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def answer(self, scope: dict[str, Any]) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
        found = _route(scope["path"]) if scope["method"] == "GET" else None
        if found is None:
            return 404, encode(ErrorBody(message="Not Found")), []
        handler, args = found
        try:
            async with statements.connection() as conn:
                principal = await authenticate(conn, scope)
                request = Request(scope, dict(scope["headers"]), principal)
                result = await handler(conn, request, *args)
        except ApiError as exc:
            extra = [(k.lower().encode(), v.encode()) for k, v in (exc.headers or {}).items()]
            return exc.status_code, encode(exc.body()), extra
        return 200, encode(result), []

    async def create(
        self,
        creator: Callable[[Request, bytes], Awaitable[Created]],
        scope: dict[str, Any],
        body: bytes,
    ) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
        try:
            async with statements.connection() as conn:
                principal = await authenticate(conn, scope)
            request = Request(scope, dict(scope["headers"]), principal)
            created = await creator(request, body)
        except ApiError as exc:
            extra = [(k.lower().encode(), v.encode()) for k, v in (exc.headers or {}).items()]
            return exc.status_code, encode(exc.body()), extra
        answer = created.body if isinstance(created.body, bytes) else encode(created.body)
        headers = [(b"location", created.location.encode())]
        if created.etag is not None:
            headers.append((b"etag", created.etag.encode()))
        return 201, answer, headers

    async def lifespan(self, receive: Any, send: Any) -> None:
        """The database as Pressline's lifespan opens it (`models.db.start`, from
        DATABASE_URL through piccolo_conf)."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await db.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await db.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return


app = Floor()


# --- the check: same bodies, same statements ----------------------------------------------


async def asgi_get(
    app: Any,
    target: str,
    token: str | None,
    *,
    method: str = "GET",
    body: bytes = b"",
    answered: list[bytes] | None = None,
) -> tuple[int, bytes]:
    """One request through an ASGI app, in this process (host `bench.local`, as the links
    show); the names of the response's headers go to `answered` when given."""
    path, _, query = target.partition("?")
    headers = [(b"host", b"bench.local"), (b"accept", b"application/json")]
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    if body:
        headers += [(b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode())]  # fmt: skip
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query.encode(),
        "root_path": "", "headers": headers, "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000), "state": {},
    }  # fmt: skip
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    status = start["status"]
    if answered is not None:
        answered.extend(sorted(name.lower() for name, _ in start.get("headers", [])))
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


@contextlib.contextmanager
def counting(seen: list[str]) -> Iterator[None]:
    """Every statement sent: the runner's own, and any Piccolo query (none is expected on
    these paths; counted so one would show)."""
    engine_class = type(db.engine())
    real = engine_class.run_querystring

    async def spy(self: Any, querystring: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(str(querystring))
        return await real(self, querystring, *args, **kwargs)

    engine_class.run_querystring = spy  # type: ignore[method-assign]
    try:
        with statements.watch(lambda sql, _: seen.append(sql)):
            yield
    finally:
        engine_class.run_querystring = real  # type: ignore[method-assign]


def check_targets(users: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    targets: list[tuple[str, str | None]] = [("/api/v1/me", None)]
    for user in (users[0], users[len(users) // 2], users[-1]):
        token = user["token"]
        targets += [
            ("/api/v1/me", token),
            ("/api/v1/orders", token),
            ("/api/v1/orders?page=2", token),
            ("/api/v1/orders?page=100000", token),
            ("/api/v1/customers", token),
            ("/api/v1/customers?page=2", token),
            ("/api/v1/inventory", token),
            ("/api/v1/inventory?page=3", token),
            ("/api/v1/events", token),
            ("/api/v1/events?page=2", token),
            ("/api/v1/events?page=100000", token),
            ("/api/v1/invoices", token),
            ("/api/v1/invoices?page=2", token),
            ("/api/v1/invoices?page=100000", token),
            (f"/api/v1/customers/{user['customers'][0]}", token),
            (f"/api/v1/customers/{user['customers'][-1]}", token),
            (f"/api/v1/orders/{user['orders'][0]}", token),
            (f"/api/v1/orders/{user['orders'][-1]}", token),
            ("/api/v1/orders/2147483647", token),
            ("/api/v1/customers/2147483647", token),
        ]
    targets.append(("/api/v1/orders", "plk_not-a-token"))
    return targets


def check_creates(user: dict[str, Any]) -> list[tuple[str, bytes]]:
    """The creates the benchmark sends, each sent once to each app (two records each)."""
    import random

    from benchmarks.http import create_body, customer_body

    rng = random.Random(5)
    return [
        ("/api/v1/orders", create_body(user, rng).encode()),
        ("/api/v1/customers", customer_body(-2, rng).encode()),
    ]


# What two creates of the same body give differently: the new records' ids, numbers, slugs
# and times.
MASKED = {"id", "number", "slug", "created_at", "updated_at", "at"}


def masked(answer: bytes) -> Any:
    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: "*" if k in MASKED else walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(msgspec.json.decode(answer))


async def check(url: str) -> int:
    """Ask Pressline and the floor the same questions in this process: every answer must be
    the same status and bytes, after the same number of statements."""
    from api.app import create_app
    from benchmarks import common

    db.bind(db.engine_from_url(url))
    pressline = create_app()
    users = common.load_tokens(url)["users"]
    failures, rows = 0, []
    async with pressline.lifespan():
        for target, token in check_targets(users):
            answers, counts = [], []
            for asgi in (pressline, app):
                seen: list[str] = []
                with counting(seen):
                    answers.append(await asgi_get(asgi, target, token))
                counts.append(len(seen))
            same = answers[0] == answers[1] and counts[0] == counts[1]
            rows.append((target, answers[0][0], counts[0], counts[1], "same" if same else "DIFF"))
            if not same:
                failures += 1
                print(f"DIFFERENT {target}: statements {counts[0]} / {counts[1]}")
                print(f"  pressline {answers[0]!r:.600}\n  floor     {answers[1]!r:.600}")
        for target, body in check_creates(users[0]):
            answers, counts, names = [], [], []
            for asgi in (pressline, app):
                seen = []
                answered: list[bytes] = []
                with counting(seen):
                    answers.append(
                        await asgi_get(
                            asgi, target, users[0]["token"], method="POST", body=body,
                            answered=answered,
                        )
                    )  # fmt: skip
                counts.append(len(seen))
                names.append({b"location", b"etag"} & set(answered))
            shown = [(status, masked(answer)) for status, answer in answers]
            same = shown[0] == shown[1] and counts[0] == counts[1] and names[0] == names[1]
            request = f"POST {target} (ids, numbers, slugs, times masked)"
            rows.append((request, answers[0][0], counts[0], counts[1], "same" if same else "DIFF"))
            if not same:
                failures += 1
                print(f"DIFFERENT POST {target}: statements {counts[0]} / {counts[1]}, {names}")
                print(f"  pressline {shown[0]!r:.900}\n  floor     {shown[1]!r:.900}")
    print(common.table(["request", "status", "Pressline statements", "floor", "body"], rows))
    verdict = "identical" if not failures else f"{failures} different"
    print(f"floor check on {common.label(url)}: {len(rows)} requests, {verdict}", flush=True)
    return 1 if failures else 0


async def _smoke() -> int:
    from benchmarks import common

    status = 0
    for backend in await common.smoke_backends():
        async with common.throwaway(backend) as url:
            common.run_seed(url, "--smoke")
            status |= await check(url)
    return status


def main() -> None:
    import argparse
    import asyncio

    from benchmarks import common

    common.require_module_run(__package__, "floor")
    parser = argparse.ArgumentParser(prog="python -m benchmarks.floor", description=__doc__)
    parser.add_argument(
        "--check", action="store_true", help="same bodies and statement counts as Pressline"
    )
    parser.add_argument("--smoke", action="store_true", help="tiny throwaway databases + check")
    args = parser.parse_args()
    # The check runs Pressline's app: no rate limit in the way, no request log on stdout.
    os.environ.update(RATE_LIMIT_READ=common.UNLIMITED, RATE_LIMIT_WRITE=common.UNLIMITED)
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    if args.smoke:
        sys.exit(asyncio.run(_smoke()))
    if args.check:
        sys.exit(asyncio.run(check(common.database_url())))
    parser.print_help()


if __name__ == "__main__":
    main()
