"""Pressline against the floor, side by side: per endpoint req/s, latency, CPU and memory.

Both apps run alternately on the same database under `benchmarks.serve` (the web process's
uvicorn: 1 worker, uvloop, httptools) on 127.0.0.1, for several rounds; the load comes from
`wrk` (or benchmarks/loadgen.py in a separate process when wrk is missing), cycling through many
benchmark users' tokens.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pressline_bench python -m benchmarks.http
    python -m benchmarks.http --smoke        # tiny throwaway databases, a few seconds

`invoices` is `GET /invoices` (its first page, 50 invoices); `create_customer` is
`POST /customers` with a contact and an address, 16 clients, like `create` (`POST /orders`).

`--endpoints items` (Pressline alone): `POST /orders` with 5 items x 6 sizes x 2 imprints
against the same order sent as the plain lines those items expand to, back to back on the same
server in every round (the floor has no items).

`--endpoints advance` (Pressline and `--baseline`, no floor): `POST /orders/{id}/advance`, 16
clients. Before its first run each server creates `--move-orders` orders (plain lines, no SKU)
spread over the benchmark users and moves them to in_production; every run then moves each
order to the other of in_production and qc_pack (rework is allowed among open stages; both are
past stock consumption) and back, its two moves half the request list apart, sent in order, so
every request is a valid move under concurrency. `--subscriptions N` first gives every
workspace at least N webhook subscriptions (every event, to 127.0.0.1:9; no worker runs), so
every create and move records deliveries. `--baseline-database URL` serves the baseline on a
database seeded and migrated by its own checkout (its tokens read from that checkout's
benchmarks/ directory).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import common

common.require_module_run(__package__, "http")

READ_ENDPOINTS = (
    "me", "orders", "order", "customers", "customer", "inventory", "events", "invoices"
)  # fmt: skip
FLOOR_TARGETS = {  # the targets, as a ratio of the floor's req/s on PostgreSQL
    "me": 0.7,
    "orders": 0.85,
    "order": 0.8,
    "customers": 0.85,
    "customer": 0.8,
    "inventory": 0.85,
    "events": 0.7,
    "invoices": 0.6,  # issue 28
}
SQLITE_TARGETS = {"me": 0.5, "order": 0.6, "customer": 0.6}  # the lists: SQLITE_TARGET
SQLITE_TARGET = 0.5
CREATE_TARGET = 0.8  # creates/s with 16 clients, as a ratio of the floor's
# The creates, with 16 clients each: what they post to and their targets (PostgreSQL).
CREATES = {"create": "/api/v1/orders", "create_customer": "/api/v1/customers"}
CREATE_TARGETS = {"create": CREATE_TARGET, "create_customer": 0.6}  # the second: its own target
# An order of items against the same order as plain lines: creates/s, items / lines.
ITEMS_TARGET = 0.8
ITEM_RUNS = ("create_items", "create_lines")
INVOICES_PAGE = 50  # api/controllers/invoices.py PER_PAGE
# Stage moves, 16 clients, Pressline and the baseline alone (the floor has no moves): each
# order goes back and forth between two open stages past stock consumption (models/stages.py).
MOVES = ("advance",)
MOVE_STAGES = ("in_production", "qc_pack")
MIN_MOVE_ORDERS = 128  # an order's two moves are at least this many requests apart
SUBSCRIBER = "http://127.0.0.1:9/pressline-bench"  # the discard port: nothing answers


@dataclass
class Run:
    """One measured load run of one endpoint against one app."""

    requests: int
    seconds: float
    rps: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    socket_errors: int
    server_cpu_ms_per_req: float
    db_cpu_ms_per_req: float
    client_cpu_pct: float
    server_cpu_pct: float
    statuses: dict[str, int] = field(default_factory=dict)


# --- request sets --------------------------------------------------------------------------


def request_specs(users: list[dict[str, Any]], endpoint: str, seed: int = 7) -> list[list[Any]]:
    """[method, path, token, body] for `endpoint`, spread over every benchmark user."""
    rng = random.Random(seed)
    specs: list[list[Any]] = []
    for index in range(max(2_000, len(users))):
        user = users[index % len(users)]
        token = user["token"]
        if endpoint == "me":
            specs.append(["GET", "/api/v1/me", token, None])
        elif endpoint in ("orders", "customers", "inventory", "events", "invoices"):
            specs.append(["GET", f"/api/v1/{endpoint}", token, None])
        elif endpoint == "order":
            specs.append(["GET", f"/api/v1/orders/{rng.choice(user['orders'])}", token, None])
        elif endpoint == "customer":
            specs.append(["GET", f"/api/v1/customers/{rng.choice(user['customers'])}", token, None])
        elif endpoint == "create":
            specs.append(["POST", "/api/v1/orders", token, create_body(user, rng)])
        elif endpoint == "create_customer":
            body = customer_body(index, rng)
            specs.append(["POST", "/api/v1/customers", token, body])
        elif endpoint in ITEM_RUNS:  # the same seed: the same orders in both runs
            order = items_order(user, rng)
            if endpoint == "create_lines":
                order = as_lines(order)
            specs.append(["POST", "/api/v1/orders", token, json.dumps(order)])
        else:
            raise ValueError(endpoint)
    rng.shuffle(specs)
    return specs


def create_body(user: dict[str, Any], rng: random.Random) -> str:
    skus = user.get("skus") or [None]
    lines = [
        {"description": "Heavy Hoodie - embroidery", "quantity": rng.choice((10, 25, 50)),
         "unit_price_cents": rng.randrange(800, 2_500), "sku": rng.choice(skus)},
        {"description": "Classic Tee - screen print 2 colours", "quantity": 100,
         "unit_price_cents": 450},
        {"description": "Setup", "quantity": 1, "unit_price_cents": 3_500},
    ]  # fmt: skip
    if lines[0]["sku"] is None:
        del lines[0]["sku"]
    return json.dumps(
        {"customer_id": rng.choice(user["customers"]), "lines": lines, "due_by": "2026-12-24"}
    )


def customer_body(index: int, rng: random.Random) -> str:
    """A storefront's new buyer: a name no other request of the set has (the slug is made
    from it, so names repeat only when the load cycles through the set again), one contact,
    one address. No external_ref: a repeated one would be refused (422)."""
    name = f"Storefront Buyer {index + 1:05d} {rng.choice(('Ltd', 'Club', 'Studio'))}"
    slug = name.lower().replace(" ", "-")
    return json.dumps(
        {
            "name": name,
            "payment_terms": rng.choice(("prepaid", "net_30")),
            "contacts": [{"name": "Alex Buyer", "email": f"alex@{slug}.example",
                          "phone": "+44 20 7946 0000"}],
            "addresses": [{"label": "Shipping", "name": "Alex Buyer", "line1": "1 Mill Lane",
                           "city": "Leeds", "postal_code": "LS1 4AP", "country": "GB"}],
        }
    )  # fmt: skip


# Garments no benchmark SKU has (benchmarks/seed.py STYLES), so both forms carry no SKU and
# differ only in how the lines are given: (style, colour, garment price, first imprint).
ITEM_GARMENTS = (
    ("Softstyle Tee", "Black", 310, "screen"),
    ("Softstyle Tee", "White", 290, "screen"),
    ("Premium Hoodie", "Navy", 1_450, "embroidery"),
    ("Organic Tee", "Sand", 420, "screen"),
    ("Crew Sweat", "Forest", 1_120, "embroidery"),
)
ITEM_SIZES = ("XS", "S", "M", "L", "XL", "2XL")


def items_order(user: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """5 items x 6 sizes x 2 imprints (each imprint with a setup): 30 size lines and 10 setup
    lines once expanded."""
    items = []
    for style, colour, price, method in ITEM_GARMENTS:
        first: dict[str, Any] = (
            {"location": "front", "method": "screen", "colours": 2,
             "colour_names": ["White", "PMS 186 C"], "width_mm": 280, "height_mm": 200,
             "unit_price_cents": 180, "setup_cents": 3_000}
            if method == "screen"
            else {"location": "left_chest", "method": "embroidery", "stitches": 8_500,
                  "width_mm": 90, "height_mm": 60, "unit_price_cents": 350, "setup_cents": 2_500}
        )  # fmt: skip
        back = {"location": "back", "method": "screen", "colours": 1, "unit_price_cents": 120,
                "setup_cents": 2_000, "notes": "Club crest, 30 cm wide"}  # fmt: skip
        items.append(
            {
                "style": style,
                "colour": colour,
                "sizes": {size: rng.randrange(1, 25) for size in ITEM_SIZES},
                "unit_price_cents": price,
                "size_upcharges_cents": {"2XL": 200},
                "imprints": [first, back],
            }
        )
    return {"customer_id": rng.choice(user["customers"]), "items": items, "due_by": "2026-12-24"}


def as_lines(order: dict[str, Any]) -> dict[str, Any]:
    """The same order as plain lines: the items expanded by the service's own rule."""
    from models.garments import NewImprint, NewItem
    from models.orders.items import expand
    from models.pricing.compute import PriceContext, price_items

    items = [
        NewItem(
            style=item["style"],
            colour=item["colour"],
            sizes=tuple(item["sizes"].items()),
            unit_price_cents=item["unit_price_cents"],
            size_upcharges_cents=tuple(item["size_upcharges_cents"].items()),
            imprints=tuple(
                NewImprint(**{k: tuple(v) if k == "colour_names" else v for k, v in i.items()})
                for i in item["imprints"]
            ),
        )
        for item in order["items"]
    ]
    priced = price_items(items, {}, PriceContext(document=None))  # every price typed here
    lines = [
        {"description": line.description, "quantity": line.quantity,
         "unit_price_cents": line.unit_price_cents}
        for position, item in enumerate(items)
        for line in expand(item, position, None, priced[position])
    ]  # fmt: skip
    return {"customer_id": order["customer_id"], "lines": lines, "due_by": order["due_by"]}


# --- load clients --------------------------------------------------------------------------

LUA = """
local reqs = {
%s
}
local n = #reqs
local i = 0
init = function(args) i = %s end
request = function()
  i = i %% n + 1
  local r = reqs[i]
  local headers = {["Authorization"] = "Bearer " .. r[3], ["Accept"] = "application/json"}
  if r[4] ~= nil then headers["Content-Type"] = "application/json" end
  return wrk.format(r[1], r[2], headers, r[4])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'RESULT {"requests": %%d, "duration_us": %%d, "non_2xx": %%d, "socket_errors": %%d, ' ..
    '"p50_us": %%d, "p99_us": %%d}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


def lua_script(specs: list[list[Any]], path: Path, in_order: bool = False) -> None:
    """`in_order`: start at the first request (else at a random one); either way the list is
    then sent in order, cycling."""

    def quote(value: Any) -> str:
        return "nil" if value is None else "[==[" + str(value) + "]==]"

    rows = ",\n".join("{" + ", ".join(quote(v) for v in spec) + "}" for spec in specs)
    path.write_text(LUA % (rows, "0" if in_order else "math.random(n)"))


def run_client(
    client: str,
    port: int,
    specs: list[list[Any]],
    connections: int,
    seconds: float,
    tmp: Path,
    in_order: bool = False,
) -> tuple[dict[str, Any], float]:
    """Run the load; returns its figures and the client's own CPU seconds. `in_order`: from
    the first request on (the Python generator always starts there)."""
    if client == "wrk":
        script = tmp / "load.lua"
        lua_script(specs, script, in_order)
        command = [
            "wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "10s",
            "-s", str(script), f"http://127.0.0.1:{port}",
        ]  # fmt: skip
    else:
        requests_file = tmp / "requests.json"
        requests_file.write_text(json.dumps(specs))
        command = [
            sys.executable, "-m", "benchmarks.loadgen", "--port", str(port),
            "--connections", str(connections), "--seconds", str(seconds),
            "--requests", str(requests_file),
        ]  # fmt: skip
    out_path, err_path = tmp / "client.out", tmp / "client.err"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        process = subprocess.Popen(  # noqa: S603 - fixed command lines
            command, stdout=out, stderr=err, cwd=common.ROOT
        )
    # wait4 (not Popen.wait) so the kernel hands over the child's own CPU usage
    _, status, rusage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {err_path.read_text()[-2000:]}")
    return parse_client_output(client, out_path.read_text()), rusage.ru_utime + rusage.ru_stime


def parse_client_output(client: str, out: str) -> dict[str, Any]:
    if client == "wrk":
        line = next(line for line in out.splitlines() if line.startswith("RESULT "))
        raw = json.loads(line[len("RESULT ") :])
        return {
            "requests": raw["requests"],
            "seconds": raw["duration_us"] / 1e6,
            "non_2xx": raw["non_2xx"],
            "socket_errors": raw["socket_errors"],
            "p50_ms": raw["p50_us"] / 1000,
            "p99_ms": raw["p99_us"] / 1000,
            "statuses": {},
        }
    data: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return data


def measure(
    server: common.Server,
    client: str,
    specs: list[list[Any]],
    *,
    connections: int,
    seconds: float,
    warmup: float,
    tmp: Path,
    in_order: bool = False,
) -> Run:
    if warmup > 0:
        run_client(client, server.port, specs, connections, warmup, tmp)
    db_before = common.database_cpu(server.url)
    cpu_before = common.cpu_seconds(server.pid)
    began = time.perf_counter()
    result, client_cpu = run_client(client, server.port, specs, connections, seconds, tmp, in_order)
    wall = time.perf_counter() - began
    server_cpu = common.cpu_seconds(server.pid) - cpu_before
    db_cpu = common.database_cpu_since(server.url, db_before)
    requests = max(1, result["requests"])
    return Run(
        requests=result["requests"],
        seconds=result["seconds"],
        rps=result["requests"] / result["seconds"],
        p50_ms=result["p50_ms"],
        p99_ms=result["p99_ms"],
        non_2xx=result["non_2xx"],
        socket_errors=result["socket_errors"],
        server_cpu_ms_per_req=server_cpu * 1000 / requests,
        db_cpu_ms_per_req=db_cpu * 1000 / requests,
        client_cpu_pct=100 * client_cpu / wall,
        server_cpu_pct=100 * server_cpu / wall,
        statuses=result.get("statuses", {}),
    )


# --- the benchmark -------------------------------------------------------------------------


def create_supported(server: common.Server, users: list[dict[str, Any]], endpoint: str) -> bool:
    """One create through `server` first: false when it has no such route (an older
    `--baseline`), an error when it refuses the benchmark's body."""
    rng = random.Random(1)
    # (the customer: a name of its own, outside the measured set)
    body = create_body(users[0], rng) if endpoint == "create" else customer_body(-1, rng)
    path = CREATES[endpoint]
    status, answer = common.http_request(
        "POST", server.base + path, token=users[0]["token"], body=body.encode()
    )
    if status == 201:
        return True
    if status in (404, 405):
        return False
    raise RuntimeError(f"{server.name} POST {path} answered {status}: {answer[:300]!r}")


def same_order(server: common.Server, users: list[dict[str, Any]]) -> str | None:
    """Create the items order and its lines twin once each: None when both answer 201 with the
    same lines and totals, else why the item runs are skipped."""
    answers = []
    for endpoint in ITEM_RUNS:
        _, _, token, body = request_specs(users[:1], endpoint)[0]
        status, answer = common.http_request(
            "POST", server.base + "/api/v1/orders", token=token, body=body.encode()
        )
        if status != 201:
            return f"POST /api/v1/orders ({endpoint}) answered {status}: {answer[:200]!r}"
        answers.append(json.loads(answer))
    shown = [
        (
            [(x["description"], x["quantity"], x["unit_price_cents"], x["sku"])
             for x in answer["lines"]],
            answer["totals"],
        )
        for answer in answers
    ]  # fmt: skip
    if shown[0] != shown[1]:
        raise RuntimeError(f"the items order and its lines differ: {shown!r}")
    if len(answers[0]["lines"]) != 40 or not answers[0].get("items"):
        raise RuntimeError(f"the items order has {len(answers[0]['lines'])} lines, not 40")
    return None


# --- stage moves and subscriptions ----------------------------------------------------------


def sql(url: str, statement: str, rows: list[tuple[Any, ...]] | None = None) -> list[Any]:
    """Run one statement on `url` (`?` placeholders): its rows, or executed once per row of
    `rows`."""
    if not common.is_postgres(url):
        conn = sqlite3.connect(url[len("sqlite:///") :])
        try:
            if rows is not None:
                with conn:
                    conn.executemany(statement, rows)
                return []
            return conn.execute(statement).fetchall()
        finally:
            conn.close()
    parts = statement.split("?")
    numbered = parts[0] + "".join(f"${n}{part}" for n, part in enumerate(parts[1:], 1))

    async def run() -> list[Any]:
        import asyncpg

        conn = await asyncpg.connect(url)
        try:
            if rows is not None:
                await conn.executemany(numbered, rows)
                return []
            return list(await conn.fetch(numbered))
        finally:
            await conn.close()

    # a thread of its own, as common.database_cpu, whatever the caller's event loop
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


def ensure_subscriptions(url: str, count: int) -> int:
    """At least `count` active webhook subscriptions to every event in every workspace of
    `url`, so that every create and move records a delivery for each (to the discard port;
    no worker runs during this benchmark). Returns how many were added."""
    have = sql(
        url,
        "SELECT w.id, COUNT(s.id) FROM workspaces w LEFT JOIN webhook_subscriptions s "
        "ON s.workspace = w.id AND s.is_active GROUP BY w.id",
    )
    new = [
        (ws, f"{SUBSCRIBER}/{ws}/{n}", "*", "whsec_" + "b" * 32)
        for ws, found in have
        for n in range(found, count)
    ]
    if new:
        sql(
            url,
            "INSERT INTO webhook_subscriptions (workspace, url, events, secret) "
            "VALUES (?, ?, ?, ?)",
            new,
        )
    return len(new)


def prepare_moves(
    server: common.Server, users: list[dict[str, Any]], count: int
) -> list[tuple[int, str]]:
    """`count` new orders through `server` (plain lines, no SKU: no stock is reserved or
    consumed), spread over the users and moved to in_production: (order id, its user's token)."""

    def one(index: int) -> tuple[int, str]:
        user = users[index % len(users)]
        body = json.loads(create_body(user, random.Random(index)))
        for line in body["lines"]:
            line.pop("sku", None)
        status, answer = common.http_request(
            "POST", server.base + "/api/v1/orders", token=user["token"],
            body=json.dumps(body).encode(),
        )  # fmt: skip
        if status != 201:
            raise RuntimeError(f"{server.name} POST /api/v1/orders answered {status}: {answer!r}")
        order_id = int(json.loads(answer)["id"])
        for stage in ("print_queue", MOVE_STAGES[0]):
            path = f"/api/v1/orders/{order_id}/advance"
            status, answer = common.http_request(
                "POST", server.base + path, token=user["token"],
                body=json.dumps({"to_stage": stage}).encode(),
            )  # fmt: skip
            if status != 200:
                raise RuntimeError(f"{server.name} POST {path} answered {status}: {answer!r}")
        return order_id, user["token"]

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, range(count)))


def move_specs(url: str, orders: list[tuple[int, str]], seed: int) -> tuple[list[list[Any]], int]:
    """Each order's move to the other of MOVE_STAGES, then, half the list later, its move back,
    from the stages the orders are in now: every request is a valid move when the list is sent
    in order from its first request (cycling brings each order back and forth again). Returns
    the list and how many orders are in neither stage (left out)."""
    ids = ",".join(str(order_id) for order_id, _ in orders)
    stages = dict(sql(url, f"SELECT id, stage FROM orders WHERE id IN ({ids})"))  # noqa: S608 - ints
    shuffled = list(orders)
    random.Random(seed).shuffle(shuffled)
    forth: list[list[Any]] = []
    back: list[list[Any]] = []
    for order_id, token in shuffled:
        stage = stages.get(order_id)
        if stage not in MOVE_STAGES:
            continue
        other = MOVE_STAGES[1 - MOVE_STAGES.index(stage)]
        path = f"/api/v1/orders/{order_id}/advance"
        forth.append(["POST", path, token, json.dumps({"to_stage": other})])
        back.append(["POST", path, token, json.dumps({"to_stage": stage})])
    return forth + back, len(orders) - len(forth)


def sanity(server: common.Server, specs: list[list[Any]]) -> None:
    method, path, token, _ = specs[0]
    if method == "GET":
        status, answer = common.http_get(server.base + path, token=token)
        if status != 200:
            raise RuntimeError(f"{server.name} GET {path} answered {status}: {answer[:300]!r}")


def baseline_users(args: argparse.Namespace, url: str) -> list[dict[str, Any]]:
    """The benchmark users of the baseline's own database, from the tokens its checkout's
    seed wrote (or this checkout's, when this one seeded it)."""
    own = common.tokens_path(url)
    path = args.baseline / "benchmarks" / own.name
    if not path.exists():
        path = own
    if not path.exists():
        sys.exit(f"{path} is missing: seed {common.label(url)} from {args.baseline} first")
    users: list[dict[str, Any]] = json.loads(path.read_text())["users"]
    return users


def benchmark(url: str, args: argparse.Namespace) -> dict[str, Any]:
    users = common.load_tokens(url)["users"]
    client = args.client
    if client == "auto":
        client = "wrk" if shutil.which("wrk") else "python"
    endpoints = [e for e in READ_ENDPOINTS if e in args.endpoints]
    creates = [e for e in CREATES if e in args.endpoints]
    moves = [e for e in MOVES if e in args.endpoints]
    base_url = args.baseline_database or url
    users_at = {url: users}  # each database's benchmark users
    if args.baseline and base_url != url:
        users_at[base_url] = baseline_users(args, base_url)
    specs_at: dict[str, dict[str, list[list[Any]]]] = {}
    for db_url, db_users in users_at.items():
        specs_at[db_url] = {e: request_specs(db_users, e) for e in [*endpoints, *creates]}
        if "items" in args.endpoints:
            specs_at[db_url].update({e: request_specs(db_users, e) for e in ITEM_RUNS})
    move_orders: dict[str, list[tuple[int, str]]] = {}  # per app: its orders moved back and forth
    if args.subscriptions:
        for db_url in users_at:
            added = ensure_subscriptions(db_url, args.subscriptions)
            print(
                f"{common.label(db_url)}: {added} webhook subscriptions added "
                f"(at least {args.subscriptions} per workspace)",
                flush=True,
            )
    results: dict[str, dict[str, list[Run]]] = defaultdict(lambda: defaultdict(list))
    peak_rss: dict[str, int] = defaultdict(int)
    notes: list[str] = []
    create_ok: dict[tuple[str, str], bool] = {}
    items_ok: dict[str, bool] = {}
    rss_after: dict[str, int] = defaultdict(int)
    print(f"{common.label(url)}: {len(users)} benchmark users, client {client}", flush=True)
    if "invoices" in endpoints:  # a full first page in every workspace, or say so
        short = min(users, key=lambda user: user.get("invoices", INVOICES_PAGE))
        if short.get("invoices", INVOICES_PAGE) < INVOICES_PAGE:
            raise RuntimeError(
                f"workspace {short['workspace_id']} has {short['invoices']} invoices, fewer "
                f"than a page of GET /invoices ({INVOICES_PAGE}): seed more orders"
            )
    with tempfile.TemporaryDirectory(prefix="pressline_http_") as tmp_name:
        tmp = Path(tmp_name)
        for round_no in range(args.rounds):
            apps = [("pressline", common.PRESSLINE_APP, common.ROOT, url)]
            if endpoints or creates:  # the item and move runs need no floor
                apps.append(("floor", common.FLOOR_APP, common.ROOT, url))
            if args.baseline:  # the same app from another checkout, in the same rounds
                apps.insert(1, ("baseline", common.PRESSLINE_APP, args.baseline, base_url))
            if round_no % 2:
                apps.reverse()
            for name, app, root, db_url in apps:
                specs, users = specs_at[db_url], users_at[db_url]
                with common.Server(name, app, db_url, root=root) as server:
                    for endpoint in endpoints:
                        sanity(server, specs[endpoint])
                        run = measure(
                            server, client, specs[endpoint], connections=args.connections,
                            seconds=args.seconds, warmup=args.warmup, tmp=tmp,
                        )  # fmt: skip
                        results[endpoint][name].append(run)
                        print(
                            f"  round {round_no + 1} {name:9} {endpoint:9} {run.rps:8.0f} req/s"
                            f"  p50 {run.p50_ms:6.1f} ms  p99 {run.p99_ms:6.1f} ms"
                            f"  cpu {run.server_cpu_ms_per_req:5.2f} ms/req"
                            f" (db {run.db_cpu_ms_per_req:4.2f})"
                            f"  client cpu {run.client_cpu_pct:3.0f}%"
                            + (f"  NON-2XX {run.non_2xx}" if run.non_2xx else ""),
                            flush=True,
                        )
                    for endpoint in creates:
                        if (name, endpoint) not in create_ok:
                            supported = create_supported(server, users, endpoint)
                            create_ok[(name, endpoint)] = supported
                            if not supported:
                                notes.append(f"{name}: POST {CREATES[endpoint]} is not there")
                        if create_ok[(name, endpoint)]:
                            run = measure(
                                server, client, specs[endpoint], connections=16,
                                seconds=args.seconds, warmup=0, tmp=tmp,
                            )  # fmt: skip
                            results[endpoint][name].append(run)
                            failed = f"  NON-2XX {run.non_2xx}" if run.non_2xx else ""
                            print(
                                f"  round {round_no + 1} {name:9} {endpoint:15} {run.rps:8.0f} "
                                f"creates/s  p50 {run.p50_ms:6.1f} ms  p99 {run.p99_ms:6.1f} ms"
                                f"  cpu {run.server_cpu_ms_per_req:5.2f} ms/req"
                                f" (db {run.db_cpu_ms_per_req:4.2f})" + failed,
                                flush=True,
                            )
                    for endpoint in moves if name != "floor" else ():
                        if name not in move_orders:
                            count = args.move_orders or max(MIN_MOVE_ORDERS, len(users))
                            began = time.perf_counter()
                            move_orders[name] = prepare_moves(server, users, count)
                            print(
                                f"  {name}: {count} orders created and moved to "
                                f"{MOVE_STAGES[0]} in {time.perf_counter() - began:.1f} s",
                                flush=True,
                            )
                        orders = move_orders[name]
                        move_list, left_out = move_specs(db_url, orders, seed=round_no)
                        if left_out:
                            notes.append(
                                f"{name} round {round_no + 1}: {left_out} of {len(orders)} "
                                f"orders in neither of {MOVE_STAGES} (not moved)"
                            )
                        run = measure(
                            server, client, move_list, connections=16,
                            seconds=args.seconds, warmup=0, tmp=tmp, in_order=True,
                        )  # fmt: skip
                        results[endpoint][name].append(run)
                        print(
                            f"  round {round_no + 1} {name:9} {endpoint:15} {run.rps:8.0f} "
                            f"moves/s  p50 {run.p50_ms:6.1f} ms  p99 {run.p99_ms:6.1f} ms"
                            f"  cpu {run.server_cpu_ms_per_req:5.2f} ms/req"
                            f" (db {run.db_cpu_ms_per_req:4.2f})"
                            + (f"  NON-2XX {run.non_2xx}" if run.non_2xx else ""),
                            flush=True,
                        )
                    if "items" in args.endpoints and name != "floor":
                        if name not in items_ok:
                            skipped = same_order(server, users)
                            items_ok[name] = skipped is None
                            if skipped:
                                notes.append(f"{name}: items not measured: {skipped}")
                        if items_ok[name]:  # which goes first alternates between rounds
                            for endpoint in ITEM_RUNS[:: -1 if round_no % 2 else 1]:
                                run = measure(
                                    server, client, specs[endpoint], connections=16,
                                    seconds=args.seconds, warmup=args.warmup, tmp=tmp,
                                )  # fmt: skip
                                results[endpoint][name].append(run)
                                print(
                                    f"  round {round_no + 1} {name:9} {endpoint:12} {run.rps:8.0f}"
                                    f" creates/s  p50 {run.p50_ms:6.1f} ms  p99 {run.p99_ms:6.1f}"
                                    f" ms  cpu {run.server_cpu_ms_per_req:5.2f} ms/req"
                                    f" (db {run.db_cpu_ms_per_req:4.2f})"
                                    + (f"  NON-2XX {run.non_2xx}" if run.non_2xx else ""),
                                    flush=True,
                                )
                    memory = common.memory_kib(server.pid)
                    peak_rss[name] = max(peak_rss[name], memory["VmHWM"])
                    rss_after[name] = max(rss_after[name], memory["VmRSS"])  # after its load
        soak = run_soak(url, users, client, args, tmp) if args.soak else None
    return {
        "database": common.label(url),
        "kind": common.kind(url),
        "client": client,
        "machine": common.machine(),
        "settings": {
            "rounds": args.rounds,
            "seconds": args.seconds,
            "connections": args.connections,
            "users": len(users),
        },
        "results": {
            endpoint: {name: [asdict(run) for run in runs] for name, runs in by_app.items()}
            for endpoint, by_app in results.items()
        },
        "peak_rss_kib": dict(peak_rss),
        "rss_after_load_kib": dict(rss_after),
        "soak": soak,
        "notes": notes,
    }


def run_soak(
    url: str, users: list[dict[str, Any]], client: str, args: argparse.Namespace, tmp: Path
) -> dict[str, Any]:
    """Pressline's RSS over `--soak` requests (a mix of the read endpoints)."""
    mix = [spec for e in READ_ENDPOINTS for spec in request_specs(users, e)[:300]]
    random.Random(3).shuffle(mix)
    samples: list[tuple[int, int]] = []
    total = 0
    with common.Server("pressline", common.PRESSLINE_APP, url) as server:
        chunk = max(1.0, min(10.0, args.seconds))
        run_client(client, server.port, mix, args.connections, chunk, tmp)  # warm-up
        samples.append((0, common.memory_kib(server.pid)["VmRSS"]))
        deadline = time.monotonic() + args.soak_max_seconds
        while total < args.soak and time.monotonic() < deadline:
            result, _ = run_client(client, server.port, mix, args.connections, chunk, tmp)
            total += result["requests"]
            samples.append((total, common.memory_kib(server.pid)["VmRSS"]))
            print(f"  soak {total:>9,} requests  RSS {samples[-1][1] / 1024:6.1f} MiB", flush=True)
    first = samples[0][1]
    after_warm = samples[min(1, len(samples) - 1)][1]
    return {
        "requests": total,
        "rss_kib": samples,
        "start_mib": after_warm / 1024,
        "end_mib": samples[-1][1] / 1024,
        "max_mib": max(s[1] for s in samples) / 1024,
        "growth_pct": 100 * (samples[-1][1] - after_warm) / after_warm,
        "after_warmup_mib": first / 1024,
    }


# --- report --------------------------------------------------------------------------------


def summary_row(
    endpoint: str, app_name: str, by_app: dict[str, Any], postgres: bool
) -> tuple[str, ...]:
    press = [Run(**r) for r in by_app.get(app_name, [])]
    floor = [Run(**r) for r in by_app.get("floor", [])]
    p_rps = common.median([r.rps for r in press])
    f_rps = common.median([r.rps for r in floor]) if floor else float("nan")
    if endpoint in CREATE_TARGETS:
        goal = CREATE_TARGETS[endpoint]
    else:
        goal = FLOOR_TARGETS[endpoint] if postgres else SQLITE_TARGETS.get(endpoint, SQLITE_TARGET)
    target = f">= {goal:.2f}x"
    ratio_value = p_rps / f_rps if f_rps else float("nan")
    ratio = f"{ratio_value:.2f}x"
    verdict = "met" if ratio_value >= goal else "missed"
    errors = sum(r.non_2xx + r.socket_errors for r in [*press, *floor])
    return (
        endpoint if app_name == "pressline" else f"{endpoint} ({app_name})",
        f"{p_rps:,.0f}",
        f"{f_rps:,.0f}" if floor else "-",
        ratio,
        f"{common.median([r.p50_ms for r in press]):.1f} / "
        f"{common.median([r.p99_ms for r in press]):.1f}",
        f"{common.median([r.p50_ms for r in floor]):.1f} / "
        f"{common.median([r.p99_ms for r in floor]):.1f}"
        if floor
        else "-",
        f"{common.median([r.server_cpu_ms_per_req for r in press]):.2f}",
        f"{common.median([r.server_cpu_ms_per_req for r in floor]):.2f}" if floor else "-",
        f"{common.median([r.db_cpu_ms_per_req for r in press]):.2f}" if postgres else "-",
        f"{common.median([r.db_cpu_ms_per_req for r in floor]):.2f}" if postgres and floor else "-",
        f"{max(r.client_cpu_pct for r in [*press, *floor]):.0f}%",
        f"{target} {verdict}",
        str(errors),
    )


def items_rows(results: dict[str, Any], postgres: bool) -> list[tuple[str, ...]]:
    """Per app: the items order against its lines twin, in the same rounds."""
    rows = []
    for app_name in ("baseline", "pressline"):
        items = [Run(**r) for r in results.get("create_items", {}).get(app_name, [])]
        lines = [Run(**r) for r in results.get("create_lines", {}).get(app_name, [])]
        if not items or not lines:
            continue
        i_rps, l_rps = common.median([r.rps for r in items]), common.median([r.rps for r in lines])
        ratio = i_rps / l_rps if l_rps else float("nan")

        def cell(runs: list[Run], field: str) -> str:
            return f"{common.median([getattr(r, field) for r in runs]):.2f}"

        rows.append(
            (
                app_name,
                f"{i_rps:,.0f}",
                f"{l_rps:,.0f}",
                f"{ratio:.2f}x",
                f"{common.median([r.p50_ms for r in items]):.1f} / "
                f"{common.median([r.p99_ms for r in items]):.1f}",
                f"{common.median([r.p50_ms for r in lines]):.1f} / "
                f"{common.median([r.p99_ms for r in lines]):.1f}",
                f"{cell(items, 'server_cpu_ms_per_req')} / {cell(lines, 'server_cpu_ms_per_req')}",
                f"{cell(items, 'db_cpu_ms_per_req')} / {cell(lines, 'db_cpu_ms_per_req')}"
                if postgres
                else "-",
                ", ".join(f"{r.rps / s.rps:.2f}" for r, s in zip(items, lines, strict=False)),
                f">= {ITEMS_TARGET:.2f}x {'met' if ratio >= ITEMS_TARGET else 'missed'}",
                str(sum(r.non_2xx + r.socket_errors for r in [*items, *lines])),
            )
        )
    return rows


def moves_rows(results: dict[str, Any], postgres: bool) -> list[tuple[str, ...]]:
    """Per app: the stage moves' rate, latency, CPU and errors (medians over rounds)."""
    rows: list[tuple[str, ...]] = []
    for endpoint in MOVES:
        for app_name in ("baseline", "pressline"):
            runs = [Run(**r) for r in results.get(endpoint, {}).get(app_name, [])]
            if not runs:
                continue

            def cell(field: str, runs: list[Run] = runs) -> float:
                return common.median([getattr(r, field) for r in runs])

            rows.append(
                (
                    endpoint,
                    app_name,
                    f"{cell('rps'):,.0f}",
                    ", ".join(f"{r.rps:,.0f}" for r in runs),
                    f"{cell('p50_ms'):.1f} / {cell('p99_ms'):.1f}",
                    f"{cell('server_cpu_ms_per_req'):.2f}",
                    f"{cell('db_cpu_ms_per_req'):.2f}" if postgres else "-",
                    str(sum(r.requests for r in runs)),
                    str(sum(r.non_2xx + r.socket_errors for r in runs)),
                )
            )
    return rows


def against_baseline(results: dict[str, Any]) -> list[str]:
    """Pressline's median rate as a ratio of the baseline's, per endpoint both ran."""
    lines = []
    for endpoint, by_app in results.items():
        if by_app.get("pressline") and by_app.get("baseline"):
            now = common.median([r["rps"] for r in by_app["pressline"]])
            then = common.median([r["rps"] for r in by_app["baseline"]])
            rounds = ", ".join(
                f"{a['rps'] / b['rps']:.2f}"
                for a, b in zip(by_app["pressline"], by_app["baseline"], strict=False)
            )
            lines.append(
                f"{endpoint}: pressline {now:,.0f}/s against baseline {then:,.0f}/s = "
                f"{now / then:.2f}x (per round {rounds})"
            )
    return lines


def summarise(report: dict[str, Any]) -> str:
    results = report["results"]
    postgres = report["kind"] == "postgres"
    rows = []
    for endpoint, by_app in results.items():
        if endpoint in ITEM_RUNS or endpoint in MOVES:
            continue
        for app_name in ("baseline", "pressline"):
            if app_name in by_app:
                rows.append(summary_row(endpoint, app_name, by_app, postgres))
    headers = [
        "endpoint", "Pressline req/s", "floor req/s", "ratio", "Pressline p50/p99 ms",
        "floor p50/p99 ms", "Pressline CPU ms/req", "floor CPU ms/req", "Pressline db CPU",
        "floor db CPU", "client CPU max",
        "target", "errors",
    ]  # fmt: skip
    rss = report["peak_rss_kib"]
    lines = [
        f"## {report['database']} ({report['kind']}), client {report['client']}",
        f"machine: {report['machine']}",
        "settings: "
        + ", ".join(f"{k} {v}" for k, v in report["settings"].items())
        + " (medians over rounds)",
        "",
        common.table(headers, rows) if rows else "(no load rounds)",
        "",
        "peak RSS: " + ", ".join(f"{name} {kib / 1024:.1f} MiB" for name, kib in rss.items()),
        "RSS after each server's load (max over rounds): "
        + ", ".join(
            f"{name} {kib / 1024:.1f} MiB"
            for name, kib in report.get("rss_after_load_kib", {}).items()
        ),
    ]
    items = items_rows(results, postgres)
    if items:
        item_headers = [
            "app", "items creates/s", "lines creates/s", "ratio", "items p50/p99 ms",
            "lines p50/p99 ms", "CPU ms/req items / lines", "db CPU items / lines",
            "ratio per round", "target", "errors",
        ]  # fmt: skip
        lines += [
            "",
            "POST /orders, 5 items x 6 sizes x 2 imprints against the same order as its 40 "
            "plain lines (16 clients, medians over rounds):",
            "",
            common.table(item_headers, items),
        ]
    moved = moves_rows(results, postgres)
    if moved:
        move_headers = [
            "endpoint", "app", "moves/s", "per round", "p50/p99 ms", "CPU ms/req", "db CPU ms/req",
            "requests", "non-2xx",
        ]  # fmt: skip
        lines += [
            "",
            f"POST /orders/{{id}}/advance, {' <-> '.join(MOVE_STAGES)} (16 clients, medians over "
            "rounds):",
            "",
            common.table(move_headers, moved),
        ]
    compared = against_baseline(results)
    if compared:
        lines += ["", "against the baseline, same rounds:", *compared]
    soak = report.get("soak")
    if soak:
        lines.append(
            f"soak: {soak['requests']:,} requests, RSS {soak['start_mib']:.1f} -> "
            f"{soak['end_mib']:.1f} MiB (max {soak['max_mib']:.1f}, "
            f"{soak['growth_pct']:+.1f}%; target within +-10%)"
        )
    lines.extend(f"note: {note}" for note in report["notes"])
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.http", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--seconds", type=float, default=10, help="per endpoint per round")
    parser.add_argument("--warmup", type=float, default=2, help="seconds before each run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--client", choices=("auto", "wrk", "python"), default="auto")
    everything = ",".join([*READ_ENDPOINTS, *CREATES, "items", *MOVES])
    parser.add_argument(
        "--endpoints", default=everything, help="comma-separated subset of " + everything
    )
    parser.add_argument(
        "--move-orders",
        type=int,
        default=0,
        help=f"orders moved by `advance`, per server (default: one per benchmark user, at "
        f"least {MIN_MOVE_ORDERS})",
    )
    parser.add_argument(
        "--subscriptions",
        type=int,
        default=0,
        help="first give every workspace at least N webhook subscriptions to every event "
        "(nothing listens, no worker runs), so creates and moves record deliveries",
    )
    parser.add_argument("--soak", type=int, default=0, help="then N requests watching RSS")
    parser.add_argument("--soak-max-seconds", type=float, default=1200)
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="also serve Pressline from this checkout (e.g. `git archive` of an earlier "
        "commit) in every round, for before/after figures taken in the same run",
    )
    parser.add_argument(
        "--baseline-database",
        help="the baseline's own database (seeded and migrated by its checkout), when its "
        "schema differs; default: the same database",
    )
    parser.add_argument("--smoke", action="store_true", help="tiny throwaway databases")
    args = parser.parse_args()
    args.endpoints = set(args.endpoints.split(","))
    if args.smoke:
        args.seconds, args.warmup, args.rounds = 1, 0, 1
        args.soak = args.soak or 500
        args.soak_max_seconds = 20
    return args


async def smoke(args: argparse.Namespace) -> list[dict[str, Any]]:
    reports = []
    for backend in await common.smoke_backends():
        async with common.throwaway(backend) as url:
            common.run_seed(url, "--smoke")
            reports.append(benchmark(url, args))
    return reports


def main() -> None:
    args = parse_args()
    reports = asyncio.run(smoke(args)) if args.smoke else [benchmark(common.database_url(), args)]
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1))
    for report in reports:
        print()
        print(summarise(report))
        bad = [
            (endpoint, name)
            for endpoint, by_app in report["results"].items()
            for name, runs in by_app.items()
            if any(r["non_2xx"] or r["socket_errors"] for r in runs)
        ]
        if bad:
            print(f"ERRORS in {bad}: the figures above are not valid")
            sys.exit(1)


if __name__ == "__main__":
    main()
