"""Fill a database with a reproducible benchmark data set, fast (COPY on PostgreSQL,
one executemany transaction on SQLite), and write the benchmark users' tokens to a file.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench python -m benchmarks.seed
    DATABASE_URL=sqlite:////tmp/bench.sqlite3 python -m benchmarks.seed --orders 1000000

Defaults: 100 workspaces on the premium plan, 10,000 customers, 50,000 SKUs, 100,000 orders
with 1-5 lines each (stage history, artwork, invoices for dispatched orders), 10 users with a
token per workspace. `--scale F` multiplies customers, SKUs and orders. `--events N` adds N
webhook events (the events feed) of random orders, spread over the same three years.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import datetime as dt
import hashlib
import json
import os
import random
import sqlite3
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from zoneinfo import ZoneInfo

from benchmarks import common
from models.invoices import terms

END = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)  # the data set's "today" (fixed: reproducible)
SPAN = dt.timedelta(days=3 * 365)
TOKEN_EXPIRY = dt.datetime(2099, 1, 1, tzinfo=dt.UTC)
CHUNK = 20_000
FINISH = "(stock, sequences, vacuum)"  # orders generated and written per batch

TIMEZONES = ("Europe/London", "UTC", "America/New_York", "Europe/Berlin", "Australia/Sydney")
CURRENCIES = (("GBP", Decimal("20.00")), ("EUR", Decimal("19.00")), ("USD", Decimal("8.25")))
ADJECTIVES = ("Northern", "Blue", "Red", "Golden", "Urban", "Coastal", "Iron", "Silver",
              "Green", "Royal", "Bright", "Wild", "Quiet", "Bold", "Swift", "Lucky", "Atlas",
              "Harbour", "Summit", "Union")  # fmt: skip
NOUNS = ("Fox", "Anchor", "Oak", "Lantern", "Falcon", "River", "Bridge", "Forge", "Orchard",
         "Canyon", "Meadow", "Comet", "Beacon", "Harbor", "Pine", "Arrow", "Crown", "Stone",
         "Tide", "Ember")  # fmt: skip
SUFFIXES = ("Ltd", "Club", "FC", "Brewing", "Events", "Studio", "Academy", "Festival", "Co")
STYLES = (
    ("Classic Tee", "CT"),
    ("Heavy Hoodie", "HH"),
    ("Zip Hoodie", "ZH"),
    ("Polo", "PO"),
    ("Sweatshirt", "SW"),
    ("Tank Top", "TT"),
    ("Long Sleeve", "LS"),
    ("Tote Bag", "TB"),
    ("Beanie", "BN"),
    ("Cap", "CP"),
)
BRANDS = ("Gildan", "Fruit of the Loom", "Stanley/Stella", "AWDis", "Bella+Canvas")
COLOURS = (
    ("Black", "BLK", "#000000"),
    ("White", "WHT", "#FFFFFF"),
    ("Navy", "NVY", "#1F2A44"),
    ("Heather Grey", "HGR", "#B2B4B3"),
    ("Red", "RED", "#C8102E"),
    ("Forest", "FOR", "#2C5234"),
    ("Royal", "ROY", "#1D4F91"),
    ("Sand", "SND", "#D7C4A3"),
    ("Maroon", "MAR", "#6C1D45"),
    ("Orange", "ORG", "#FF8200"),
)
SIZES = ("S", "M", "L", "XL", "2XL")
CARRIERS = ("Royal Mail", "DPD", "UPS", "DHL", "")
TERMS = ("prepaid", "on_receipt", "net_7", "net_15", "net_30", "net_60")
PRICE_LISTS = (
    ("Standard", Decimal("0.00")),
    ("Trade", Decimal("5.00")),
    ("Club", Decimal("12.50")),
)
DECORATIONS = ("screen print 1 colour", "screen print 3 colours", "embroidery", "DTG full front")
SEQUENCE = ("artwork", "print_queue", "in_production", "qc_pack", "dispatched")


@dataclass
class Scale:
    workspaces: int = 100
    users_per_workspace: int = 10
    customers: int = 10_000
    skus: int = 50_000
    orders: int = 100_000
    events: int = 0  # webhook events, readable through the events feed


@dataclass
class WorkspaceInfo:
    id: int
    timezone: ZoneInfo
    currency: str
    tax_rate: Decimal
    customers: list[tuple[int, bool]] = field(default_factory=list)  # (id, tax_exempt)
    skus: list[tuple[int, str]] = field(default_factory=list)  # (id, label)
    sample_orders: list[int] = field(default_factory=list)
    sample_skus: list[str] = field(default_factory=list)


# --- row generation ------------------------------------------------------------------------


class Generator:
    """Deterministic rows for every table, given the scale and the seed."""

    def __init__(self, scale: Scale, seed: int) -> None:
        self.scale = scale
        self.rng = random.Random(seed)
        self.workspaces: list[WorkspaceInfo] = []
        self.tokens: list[dict[str, Any]] = []
        self.order_seq: dict[tuple[int, int], int] = defaultdict(int)
        self.invoice_seq: dict[tuple[int, int], int] = defaultdict(int)
        self.ids: dict[str, int] = defaultdict(int)
        # what an event needs of its order: workspace, id, number, customer, due_by
        self.event_orders: list[tuple[WorkspaceInfo, int, str, int, dt.datetime | None]] = []
        self.customer_refs: dict[int, dict[str, Any]] = {}
        self.customer_terms: dict[int, str] = {}  # an invoice's due date follows them

    def next_id(self, table: str) -> int:
        self.ids[table] += 1
        return self.ids[table]

    def tenancy(self) -> dict[str, list[tuple[Any, ...]]]:
        rng = self.rng
        workspaces, users, tokens = [], [], []
        created = END - SPAN - dt.timedelta(days=30)
        for index in range(self.scale.workspaces):
            ws_id = self.next_id("workspaces")
            timezone = TIMEZONES[index % len(TIMEZONES)]
            currency, tax_rate = CURRENCIES[index % len(CURRENCIES)]
            self.workspaces.append(WorkspaceInfo(ws_id, ZoneInfo(timezone), currency, tax_rate))
            # premium plan; the override keeps repeated create benchmarks clear of the
            # plan's 500 open orders (the limit is still checked on every create)
            workspaces.append(
                (ws_id, f"Bench Print Shop {index + 1:03d}", "premium", None, currency,
                 tax_rate, timezone, False, False, 1_000_000, created, created)
            )  # fmt: skip
            for number in range(self.scale.users_per_workspace):
                user_id = self.next_id("users")
                users.append(
                    (user_id, ws_id, f"Bench User {user_id}",
                     f"user{number + 1}@shop{ws_id}.example", True, None, created, created)
                )  # fmt: skip
                token = "plk_" + base64.urlsafe_b64encode(rng.randbytes(32)).decode().rstrip("=")
                token_id = self.next_id("api_tokens")
                digest = hashlib.sha256(token.encode()).hexdigest()
                tokens.append(
                    (token_id, ws_id, user_id, "benchmark", digest, token[:8], created,
                     TOKEN_EXPIRY, None)
                )  # fmt: skip
                self.tokens.append({"token": token, "user_id": user_id, "workspace_id": ws_id})
        return {"workspaces": workspaces, "users": users, "api_tokens": tokens}

    def customers(self) -> dict[str, list[tuple[Any, ...]]]:
        rng = self.rng
        price_lists, customers, contacts = [], [], []
        per_ws = max(1, self.scale.customers // self.scale.workspaces)
        at = END - SPAN
        for ws in self.workspaces:
            list_ids = []
            for name, discount in PRICE_LISTS:
                list_id = self.next_id("price_lists")
                list_ids.append(list_id)
                price_lists.append((list_id, ws.id, name, discount, at, at))
            for number in range(per_ws):
                customer_id = self.next_id("customers")
                name = (
                    f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {rng.choice(SUFFIXES)} "
                    f"{number + 1}"
                )
                slug = name.lower().replace(" ", "-")
                price_list = rng.choice(list_ids) if rng.random() < 0.7 else None
                tax_exempt = rng.random() < 0.05
                updated = at + dt.timedelta(seconds=rng.randrange(int(SPAN.total_seconds())))
                payment_terms = rng.choice(TERMS)
                customers.append(
                    (customer_id, ws.id, name, slug, price_list, payment_terms,
                     rng.choice(CARRIERS), tax_exempt, at, updated)
                )  # fmt: skip
                self.customer_terms[customer_id] = payment_terms
                ws.customers.append((customer_id, tax_exempt))
                self.customer_refs[customer_id] = {"id": customer_id, "name": name, "slug": slug}
                for position in range(rng.randint(1, 3)):
                    contacts.append(
                        (self.next_id("contacts"), ws.id, customer_id,
                         f"Contact {position + 1} of {name}",
                         f"contact{position + 1}@{slug}.example",
                         f"+44 20 7946 {rng.randrange(10_000):04d}", position == 0, at)
                    )  # fmt: skip
        return {"price_lists": price_lists, "customers": customers, "contacts": contacts}

    def skus(self) -> dict[str, list[tuple[Any, ...]]]:
        rng = self.rng
        rows = []
        per_ws = max(1, self.scale.skus // self.scale.workspaces)
        block = len(COLOURS) * len(SIZES)
        at = END - SPAN
        for ws in self.workspaces:
            for j in range(per_ws):
                style, style_code = STYLES[(j // block) % len(STYLES)]
                colour, colour_code, colour_hex = COLOURS[(j // len(SIZES)) % len(COLOURS)]
                size = SIZES[j % len(SIZES)]
                code = f"{style_code}{j // block:03d}-{colour_code}-{size}"
                brand = BRANDS[(j // block) % len(BRANDS)]
                sku_id = self.next_id("skus")
                updated = at + dt.timedelta(seconds=rng.randrange(int(SPAN.total_seconds())))
                rows.append(
                    (sku_id, ws.id, code, style, brand, colour, colour_hex, size,
                     rng.randint(0, 600), 0, rng.randint(10, 60), rng.random() < 0.02, at,
                     updated)
                )  # fmt: skip
                ws.skus.append((sku_id, f"{brand} {style} {colour} {size}"))
                if len(ws.sample_skus) < 20:
                    ws.sample_skus.append(code)
        return {"skus": rows}

    def _number(self, counters: dict[tuple[int, int], int], ws: WorkspaceInfo, prefix: str,
                at: dt.datetime) -> tuple[str, int, int]:  # fmt: skip
        year = at.astimezone(ws.timezone).year
        counters[(ws.id, year)] += 1
        seq = counters[(ws.id, year)]
        return f"{prefix}-{year}-{seq:04d}", year, seq

    def _stage(self, age: dt.timedelta) -> str:
        rng = self.rng
        if age > dt.timedelta(days=30):
            return "cancelled" if rng.random() < 0.05 else "dispatched"
        days = age.days
        weights = {
            "artwork": max(0, 10 - days),
            "print_queue": max(0, 14 - abs(days - 6)),
            "in_production": max(0, 14 - abs(days - 10)),
            "qc_pack": max(0, 10 - abs(days - 14)),
            "dispatched": max(0, days - 8) * 2,
            "cancelled": 1,
        }
        stages, values = zip(*weights.items(), strict=True)
        return rng.choices(stages, values)[0]

    def orders(self) -> Iterator[dict[str, list[tuple[Any, ...]]]]:
        """Orders in creation order (ids grow with created_at), in chunks of CHUNK."""
        rng = self.rng
        total = self.scale.orders
        step = SPAN / max(total, 1)
        start = END - SPAN
        for first in range(0, total, CHUNK):
            batch: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
            for index in range(first, min(first + CHUNK, total)):
                created = start + step * index + dt.timedelta(seconds=rng.random())
                self._order(batch, created, rng)
            yield batch

    def _order(self, batch: dict[str, list[tuple[Any, ...]]], created: dt.datetime,
               rng: random.Random) -> None:  # fmt: skip
        ws = rng.choice(self.workspaces)
        order_id = self.next_id("orders")
        if len(ws.sample_orders) < 20:
            ws.sample_orders.append(order_id)
        customer_id, tax_exempt = rng.choice(ws.customers)
        stage = self._stage(END - created)
        number, year, seq = self._number(self.order_seq, ws, "ORD", created)

        # lines and totals
        subtotal = 0
        lines = []
        for position in range(1, rng.randint(1, 5) + 1):
            sku_id, sku_label = rng.choice(ws.skus) if rng.random() < 0.6 else (None, "Custom")
            quantity = rng.choice((1, 5, 10, 12, 24, 25, 50, 100, 150, 250))
            price = rng.randrange(150, 2_500)
            description = f"{sku_label} - {rng.choice(DECORATIONS)}"
            subtotal += quantity * price
            lines.append(
                (self.next_id("order_lines"), ws.id, order_id, position, description, quantity,
                 price, quantity * price, sku_id)
            )  # fmt: skip
        tax = 0
        if not tax_exempt:
            tax = int((Decimal(subtotal) * ws.tax_rate / 100).quantize(Decimal(1), ROUND_HALF_UP))

        # stage history: artwork, then each step of the sequence up to the stage
        if stage == "cancelled":
            path = ["artwork", *SEQUENCE[1 : rng.randint(1, 3)], "cancelled"]
        else:
            path = list(SEQUENCE[: SEQUENCE.index(stage) + 1])
        moments = [created]
        for _ in path[1:]:
            moments.append(min(moments[-1] + dt.timedelta(hours=rng.uniform(4, 60)), END))
        previous = None
        for to_stage, at in zip(path, moments, strict=True):
            batch["stage_history"].append(
                (self.next_id("stage_history"), ws.id, order_id, previous, to_stage,
                 "api" if previous is None else "operator", None, at)
            )  # fmt: skip
            previous = to_stage
        updated = moments[-1]

        # dispatch and invoice
        dispatched_at = carrier = tracking = None
        if stage == "dispatched":
            dispatched_at = moments[-1]
            carrier = rng.choice(CARRIERS[:4])
            tracking = f"TRK{order_id:010d}"
            inv_number, inv_year, inv_seq = self._number(self.invoice_seq, ws, "INV", dispatched_at)
            paid_at = dispatched_at + dt.timedelta(days=rng.randint(5, 45))
            status = "paid" if paid_at < END and rng.random() < 0.85 else "issued"
            if status == "paid":
                updated = max(updated, paid_at)
            # due by the customer's terms from issue; a paid invoice paid in full (as the
            # migration that added both columns fills in the invoices issued before it)
            batch["invoices"].append(
                (self.next_id("invoices"), ws.id, order_id, customer_id, inv_number, inv_year,
                 inv_seq, status, subtotal + tax, ws.currency, dispatched_at,
                 paid_at if status == "paid" else None, dispatched_at, updated,
                 terms.due_at(dispatched_at, self.customer_terms[customer_id]),
                 subtotal + tax if status == "paid" else 0)
            )  # fmt: skip

        # artwork: proofed and approved once the order left the artwork stage
        if stage == "artwork":
            status, version, approved_at = rng.choice(
                (("awaiting_proof", 0, None), ("awaiting_approval", 1, None),
                 ("changes_requested", 1, None))
            )  # fmt: skip
        else:
            status, version, approved_at = "approved", rng.randint(1, 3), moments[1]
        batch["artwork"].append(
            (self.next_id("artwork"), ws.id, order_id, status, version, approved_at,
             approved_at or created)
        )  # fmt: skip

        due_by = None
        if rng.random() < 0.6:
            local = (created + dt.timedelta(days=rng.randint(7, 21))).astimezone(ws.timezone)
            due_by = local.replace(hour=0, minute=0, second=0, microsecond=0).astimezone(dt.UTC)
        consumed = any(line[-1] for line in lines) and stage in (
            "in_production",
            "qc_pack",
            "dispatched",
        )
        substage = None
        if stage == "in_production":
            substage = rng.choice(("press 1", "press 2", "embroidery"))
        batch["orders"].append(
            (order_id, ws.id, customer_id, number, year, seq, stage, substage, due_by,
             dispatched_at, carrier, tracking, ws.currency, subtotal, tax, subtotal + tax, "",
             f"SHOP-{order_id}" if rng.random() < 0.3 else None, consumed, created, updated)
        )  # fmt: skip
        batch["order_lines"].extend(lines)
        if self.scale.events:
            self.event_orders.append((ws, order_id, number, customer_id, due_by))

    def events(self) -> Iterator[dict[str, list[tuple[Any, ...]]]]:
        """Webhook events of random orders over the same three years, ids growing with
        `created_at` (as they are recorded), bodies written by the outbox's own code."""
        from models.webhooks import events as outbox

        rng = self.rng
        total = self.scale.events
        step = SPAN / max(total, 1)
        start = END - SPAN
        # The events of a shop's history: stage moves outnumber the rest.
        names = (
            "order.stage_changed",
            "order.dispatched",
            "invoice.issued",
            "invoice.paid",
            "artwork.approved",
        )
        weights = (50, 12, 12, 12, 14)
        for first in range(0, total, CHUNK):
            rows = []
            for index in range(first, min(first + CHUNK, total)):
                at = start + step * index + dt.timedelta(seconds=rng.random())
                ws, order_id, number, customer_id, due_by = rng.choice(self.event_orders)
                name = rng.choices(names, weights)[0]
                if name.startswith("order."):
                    dispatched = name == "order.dispatched"
                    fields = outbox.order_fields(
                        order_id=order_id, order_number=number,
                        from_stage="qc_pack" if dispatched else rng.choice(SEQUENCE[:3]),
                        to_stage="dispatched" if dispatched else rng.choice(SEQUENCE[1:4]),
                        customer=self.customer_refs[customer_id], due_by=due_by,
                        timezone=ws.timezone.key,
                    )  # fmt: skip
                elif name.startswith("invoice."):
                    fields = outbox.invoice_fields(
                        order_id=order_id, order_number=number, invoice_id=order_id,
                        invoice_number=f"INV-{at.year}-{rng.randrange(1, 9_999):04d}",
                        invoice_status=name.removeprefix("invoice."),
                        total=rng.randrange(5_000, 500_000), currency=ws.currency,
                    )  # fmt: skip
                else:
                    fields = outbox.artwork_fields(
                        order_id=order_id, order_number=number, artwork_version=rng.randint(1, 3)
                    )
                event_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
                body = outbox.encode_body(name, event_id, at, fields, workspace_id=ws.id)
                rows.append(
                    (self.next_id("webhook_events"), ws.id, event_id, name, order_id,
                     customer_id, body, at)
                )  # fmt: skip
            yield {"webhook_events": rows}

    def sequences(self) -> dict[str, list[tuple[Any, ...]]]:
        rows = []
        for kind, counters in (("order", self.order_seq), ("invoice", self.invoice_seq)):
            for (ws_id, year), last in sorted(counters.items()):
                rows.append((self.next_id("number_sequences"), ws_id, kind, year, last))
        return {"number_sequences": rows}


COLUMNS: dict[str, tuple[str, ...]] = {
    "workspaces": ("id", "name", "plan", "trial_ends_at", "currency", "tax_rate", "timezone",
                   "require_artwork_approval", "strict_sequence", "open_order_limit",
                   "created_at", "updated_at"),
    "users": ("id", "workspace", "name", "email", "is_active", "deactivated_at", "created_at",
              "updated_at"),
    "api_tokens": ("id", "workspace", "user", "name", "digest", "prefix", "created_at",
                   "expires_at", "revoked_at"),
    "price_lists": ("id", "workspace", "name", "discount_percent", "created_at", "updated_at"),
    "customers": ("id", "workspace", "name", "slug", "price_list", "payment_terms",
                  "default_carrier", "tax_exempt", "created_at", "updated_at"),
    "contacts": ("id", "workspace", "customer", "name", "email", "phone", "is_primary",
                 "created_at"),
    "skus": ("id", "workspace", "code", "style", "brand", "colour", "colour_hex", "size",
             "on_hand", "reserved", "reorder_point", "discontinued", "created_at", "updated_at"),
    "orders": ("id", "workspace", "customer", "number", "number_year", "number_seq", "stage",
               "substage", "due_by", "dispatched_at", "carrier", "tracking_number", "currency",
               "subtotal_cents", "tax_cents", "total_cents", "notes", "external_ref",
               "stock_consumed", "created_at", "updated_at"),
    "order_lines": ("id", "workspace", "order", "position", "description", "quantity",
                    "unit_price_cents", "line_total_cents", "sku"),
    "stage_history": ("id", "workspace", "order", "from_stage", "to_stage", "source", "user",
                      "at"),
    "invoices": ("id", "workspace", "order", "customer", "number", "number_year", "number_seq",
                 "status", "total_cents", "currency", "issued_at", "paid_at", "created_at",
                 "updated_at", "due_at", "paid_cents"),
    "artwork": ("id", "workspace", "order", "status", "version", "approved_at", "updated_at"),
    "number_sequences": ("id", "workspace", "kind", "year", "last_value"),
    "webhook_events": ("id", "workspace", "event_id", "name", "order", "customer", "body",
                       "created_at"),
}  # fmt: skip

RESERVED_SQL = """
UPDATE skus SET reserved = COALESCE((
    SELECT SUM(l.quantity) FROM order_lines l JOIN orders o ON o.id = l."order"
    WHERE l.sku = skus.id AND o.stage IN ('artwork', 'print_queue')
), 0)
"""


# --- writers -------------------------------------------------------------------------------


class Writer:
    counts: dict[str, int]
    seconds: dict[str, float]

    def __init__(self) -> None:
        self.counts = defaultdict(int)
        self.seconds = defaultdict(float)

    async def write(self, batch: dict[str, list[tuple[Any, ...]]]) -> None:
        for name in COLUMNS:  # parents before children
            rows = batch.get(name)
            if rows:
                began = time.perf_counter()
                await self._write(name, rows)
                self.seconds[name] += time.perf_counter() - began
                self.counts[name] += len(rows)

    async def _write(self, name: str, rows: Sequence[tuple[Any, ...]]) -> None:
        raise NotImplementedError


class PostgresWriter(Writer):
    def __init__(self, conn: Any) -> None:
        super().__init__()
        self.conn = conn

    async def is_empty(self) -> bool:
        return not await self.conn.fetchval("SELECT EXISTS (SELECT 1 FROM workspaces)")

    async def begin(self) -> None:
        await self.conn.execute("SET synchronous_commit = off")

    async def _write(self, name: str, rows: Sequence[tuple[Any, ...]]) -> None:
        await self.conn.copy_records_to_table(name, records=rows, columns=list(COLUMNS[name]))

    async def finish(self) -> None:
        await self.conn.execute(RESERVED_SQL)
        for name in COLUMNS:
            await self.conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "  # noqa: S608
                f"(SELECT COALESCE(MAX(id), 0) + 1 FROM {name}), false)"
            )
        # a long-lived database is vacuumed: COUNT(*) can then use index-only scans
        await self.conn.execute("VACUUM ANALYZE")

    async def reset(self, tables: list[str]) -> None:
        quoted = ", ".join(f'"{name}"' for name in tables)
        await self.conn.execute(f"TRUNCATE {quoted} RESTART IDENTITY CASCADE")


class SqliteWriter(Writer):
    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__()
        self.conn = conn

    async def is_empty(self) -> bool:
        return self.conn.execute("SELECT 1 FROM workspaces LIMIT 1").fetchone() is None

    async def begin(self) -> None:
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=OFF")
        self.conn.execute("BEGIN")

    async def _write(self, name: str, rows: Sequence[tuple[Any, ...]]) -> None:
        columns = ", ".join(f'"{c}"' for c in COLUMNS[name])
        marks = ", ".join("?" * len(COLUMNS[name]))
        # Piccolo stores NUMERIC as a float on SQLite
        if name in ("workspaces", "price_lists"):
            rows = [tuple(float(v) if isinstance(v, Decimal) else v for v in r) for r in rows]
        self.conn.executemany(f'INSERT INTO "{name}" ({columns}) VALUES ({marks})', rows)  # noqa: S608

    async def finish(self) -> None:
        self.conn.execute(RESERVED_SQL)
        self.conn.execute("COMMIT")
        self.conn.execute("PRAGMA synchronous=NORMAL")

    async def reset(self, tables: list[str]) -> None:
        for name in reversed(tables):
            self.conn.execute(f'DELETE FROM "{name}"')  # noqa: S608


# --- bulk orders (set-based, PostgreSQL) ------------------------------------------------------

# One statement writes `$2` orders for workspace `$1` over the data set's three years (ids and
# numbers grow with created_at), spread over the workspace's customers, 30% with an external
# reference (SHOP-<n>); the last 30 days are in the open stages; each with its artwork row
# (BULK_ARTWORK). No lines or history: what the order list shows and searches, made by the
# server, not row by row.
BULK_ORDERS = """
WITH picked AS (  -- the workspace's customers, numbered from 0
    SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM customers WHERE workspace = $1
), made AS (
    SELECT i, $3::timestamptz + ($4::interval * (i::float8 / $2)) AS created,
           ($2 - i)::float8 / $2 * extract(day FROM $4::interval) AS age,
           (i * 2654435761) % (SELECT COUNT(*) FROM picked) AS k
    FROM generate_series(1, $2::bigint) AS i
), numbered AS (
    SELECT made.*, extract(year FROM created AT TIME ZONE 'UTC')::int AS year,
           row_number() OVER (
               PARTITION BY extract(year FROM created AT TIME ZONE 'UTC') ORDER BY i
           )::int AS seq
    FROM made
)
INSERT INTO orders (workspace, customer, number, number_year, number_seq, stage, due_by,
                    currency, subtotal_cents, tax_cents, total_cents, notes, external_ref,
                    stock_consumed, created_at, updated_at)
SELECT $1, picked.id,
       'ORD-' || year || '-' || CASE WHEN seq < 10000 THEN lpad(seq::text, 4, '0')
                                     ELSE seq::text END,
       year, seq,
       CASE WHEN age > 30 THEN CASE WHEN i % 20 = 0 THEN 'cancelled' ELSE 'dispatched' END
            ELSE (ARRAY['artwork', 'print_queue', 'in_production', 'qc_pack'])[1 + i % 4] END,
       CASE WHEN i % 5 < 3 THEN date_trunc('day', created) + interval '14 days' END,
       'GBP', (i * 7717) % 500000 + 1000, 0, (i * 7717) % 500000 + 1000, '',
       CASE WHEN i % 10 < 3 THEN 'SHOP-' || i END, false, created, created
FROM numbered JOIN picked USING (k)
ORDER BY i
"""
BULK_ARTWORK = """
INSERT INTO artwork (workspace, "order", status, version, approved_at, updated_at)
SELECT workspace, id,
       CASE WHEN stage = 'artwork' THEN 'awaiting_approval' ELSE 'approved' END,
       1, CASE WHEN stage <> 'artwork' THEN created_at END, created_at
FROM orders WHERE workspace = $1
"""
BULK_SEQUENCES = """
INSERT INTO number_sequences (workspace, kind, year, last_value)
SELECT $1, 'order', number_year, MAX(number_seq) FROM orders WHERE workspace = $1
GROUP BY number_year
ON CONFLICT (workspace, kind, year) DO UPDATE SET last_value = EXCLUDED.last_value
"""


async def bulk_orders(conn: Any, workspace_id: int, count: int) -> None:
    """Add `count` orders to a seeded workspace (its customers exist) on PostgreSQL, by
    BULK_ORDERS, and move its order numbering past them; the caller analyzes."""
    async with conn.transaction():
        await conn.execute("SET LOCAL synchronous_commit = off")
        await conn.execute("SET LOCAL work_mem = '256MB'")  # the numbering sorts in memory
        await conn.execute(BULK_ORDERS, workspace_id, count, END - SPAN, SPAN)
        await conn.execute(BULK_ARTWORK, workspace_id)
        await conn.execute(BULK_SEQUENCES, workspace_id)


# --- main ----------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.seed", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--scale", type=float, default=1.0, help="multiply customers/SKUs/orders")
    parser.add_argument("--orders", type=int, help="number of orders (default 100,000 x scale)")
    parser.add_argument(
        "--events", type=int, default=0, help="webhook events of those orders (default none)"
    )
    parser.add_argument("--workspaces", type=int, default=100)
    parser.add_argument("--users-per-workspace", type=int, default=10)
    parser.add_argument("--seed", type=int, default=42, help="random seed (reproducible data)")
    parser.add_argument("--reset", action="store_true", help="empty every table first")
    parser.add_argument("--smoke", action="store_true", help="tiny data set (seconds)")
    return parser.parse_args(argv)


def scale_from(args: argparse.Namespace) -> Scale:
    if args.smoke:
        return Scale(
            workspaces=4, users_per_workspace=3, customers=80, skus=400, orders=2_000,
            events=args.events or 2_000,
        )  # fmt: skip
    base = Scale(workspaces=args.workspaces, users_per_workspace=args.users_per_workspace)
    return Scale(
        workspaces=base.workspaces,
        users_per_workspace=base.users_per_workspace,
        customers=max(base.workspaces, round(base.customers * args.scale)),
        skus=max(base.workspaces, round(base.skus * args.scale)),
        orders=args.orders if args.orders is not None else round(base.orders * args.scale),
        events=args.events,
    )


async def migrate(url: str) -> None:
    from models import db

    db.bind(db.engine_from_url(url))
    await db.migrate()
    await db.stop()


async def seed(url: str, args: argparse.Namespace) -> None:
    scale = scale_from(args)
    began = time.perf_counter()
    await migrate(url)
    print(f"migrations applied in {time.perf_counter() - began:.1f} s", flush=True)
    from models import db

    tables = [table._meta.tablename for table in db.all_tables()]

    conn: Any
    writer: PostgresWriter | SqliteWriter
    if common.is_postgres(url):
        import asyncpg

        conn = await asyncpg.connect(url)
        writer = PostgresWriter(conn)
    else:
        conn = sqlite3.connect(db.sqlite_path(url), isolation_level=None)
        writer = SqliteWriter(conn)
    try:
        if not await writer.is_empty():
            if not args.reset:
                sys.exit("the database already has data: pass --reset to empty it first")
            await writer.reset(tables)
        gen = Generator(scale, args.seed)
        if common.is_postgres(url):
            await conn.execute("BEGIN")
        await writer.begin()
        await writer.write(gen.tenancy())
        await writer.write(gen.customers())
        await writer.write(gen.skus())
        for batch in gen.orders():
            await writer.write(batch)
            print(f"  {writer.counts['orders']:>9,} orders", flush=True)
        await writer.write(gen.sequences())
        for batch in gen.events():
            await writer.write(batch)
            print(f"  {writer.counts['webhook_events']:>9,} events", flush=True)
        finishing = time.perf_counter()
        if common.is_postgres(url):
            await conn.execute("COMMIT")
        await writer.finish()
        writer.seconds[FINISH] = time.perf_counter() - finishing
    finally:
        if common.is_postgres(url):
            await conn.close()
        else:
            conn.close()

    write_tokens(url, gen, scale, args.seed)
    total = time.perf_counter() - began
    fewest = min(sum(n for (w, _), n in gen.invoice_seq.items() if w == ws.id)
                 for ws in gen.workspaces)  # fmt: skip
    print(
        common.table(
            ["table", "rows", "seconds"],
            [
                *[(k, f"{writer.counts[k]:,}", f"{writer.seconds[k]:.1f}") for k in COLUMNS],
                ("(stock, sequences, analyze)", "", f"{writer.seconds[FINISH]:.1f}"),
            ],
        )
    )  # fmt: skip
    print(
        f"seeded {common.label(url)}: {sum(writer.counts.values()):,} rows in {total:.1f} s "
        f"(the fewest invoices in a workspace: {fewest:,}); tokens in {common.tokens_path(url)}"
    )


def write_tokens(url: str, gen: Generator, scale: Scale, seed: int) -> None:
    by_ws = {ws.id: ws for ws in gen.workspaces}
    invoices: dict[int, int] = defaultdict(int)  # per workspace: GET /invoices pages are 50
    for (ws_id, _), last in gen.invoice_seq.items():
        invoices[ws_id] += last
    users = []
    for entry in gen.tokens:
        ws = by_ws[entry["workspace_id"]]
        users.append(
            {
                **entry,
                "customers": [cid for cid, _ in ws.customers[:20]],
                "orders": ws.sample_orders[:20],
                "skus": ws.sample_skus,
                "invoices": invoices[ws.id],
            }
        )
    data = {
        "database": common.label(url),
        "seed": seed,
        "scale": scale.__dict__,
        "users": users,
    }
    path = common.tokens_path(url)
    path.write_text(json.dumps(data))
    path.chmod(0o600)


def main(argv: Sequence[str] | None = None) -> None:
    common.require_module_run(__package__, "seed")
    args = parse_args(argv)
    url = common.database_url()
    os.environ["DATABASE_URL"] = url
    asyncio.run(seed(url, args))


if __name__ == "__main__":
    main()
