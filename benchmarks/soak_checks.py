"""The soak's webhook receivers, and its invariants read from the database after the drain.

Every check is computed from the rows themselves and from what the receivers heard, never by
calling the code under test: which deliveries an event should have is worked out again from
the events' names and bodies and the subscriptions' filters and scopes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import asyncpg
from aiohttp import web

PRODUCTION = ("in_production", "qc_pack", "dispatched")
OPENING_KINDS = ("import", "created", "opening", "adjustment")
# A receipt may be read by its receiver a moment after the worker that sent it was killed
# (the request was already in the socket); a re-send comes a lease later at the earliest.
KILL_SLACK = 2.0
SHOWN = 5  # examples listed per failing check
# A delivery's id as receivers see it (webhook-id, X-SVC-Delivery): docs/webhooks.md.
DELIVERY_ID = re.compile(r"^dlv_[a-z2-7]{26,}$")


@dataclass
class Receipt:
    at: float  # time.monotonic() when the receiver read it
    delivery: str  # X-SVC-Delivery: the delivery's public id (dlv_…)
    attempt: int
    event: str
    body: bytes
    signature: str
    webhook_id: str = ""
    workspace: str = ""  # X-SVC-Workspace
    timestamp: str = ""  # webhook-timestamp
    standard_signature: str = ""  # webhook-signature


class Receiver:
    """One subscription's endpoint on 127.0.0.1: healthy (200 at once), keeps every request."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.secret = ""
        self.subscription = 0
        self.receipts: list[Receipt] = []
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def start(self) -> Receiver:
        app = web.Application()
        app.router.add_post("/hook/{name}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}/hook/{self.name}"
        return self

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        headers = request.headers
        self.receipts.append(
            Receipt(
                at=time.monotonic(),
                delivery=headers.get("X-SVC-Delivery", ""),
                attempt=int(headers.get("X-SVC-Attempt", "0")),
                event=headers.get("X-SVC-Event", ""),
                body=body,
                signature=headers.get("X-SVC-Signature", ""),
                webhook_id=headers.get("webhook-id", ""),
                workspace=headers.get("X-SVC-Workspace", ""),
                timestamp=headers.get("webhook-timestamp", ""),
                standard_signature=headers.get("webhook-signature", ""),
            )
        )
        return web.Response(text="ok")

    def signed(self, receipt: Receipt) -> bool:
        """Both signatures hold: `X-SVC-Signature` over the body, and Standard Webhooks'
        `webhook-signature` over `{webhook-id}.{webhook-timestamp}.{body}` (keyed with the
        base64 decoding of the secret after `whsec_`), checked here with the standard library."""
        digest = hmac.new(self.secret.encode(), receipt.body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest("sha256=" + digest, receipt.signature):
            return False
        key = base64.b64decode(self.secret.removeprefix("whsec_"))
        signed = f"{receipt.webhook_id}.{receipt.timestamp}.".encode() + receipt.body
        expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        return any(
            hmac.compare_digest(entry.removeprefix("v1,"), expected)
            for entry in receipt.standard_signature.split(" ")
        )

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


@dataclass
class Check:
    name: str
    ok: bool
    details: list[str] = field(default_factory=list)


@dataclass
class Context:
    """What the checks need besides the database."""

    watermark: int  # the last event id before the load: later events are the soak's
    receivers: dict[int, Receiver]  # by subscription id
    worker_kills: list[float]  # time.monotonic() of each SIGKILL sent to the worker
    max_in_flight: int
    figures: dict[str, Any] = field(default_factory=dict)


def _failed(name: str, problems: list[str]) -> Check:
    shown = problems[:SHOWN]
    if len(problems) > SHOWN:
        shown.append(f"… and {len(problems) - SHOWN} more")
    return Check(name, not problems, shown)


# --- stock -----------------------------------------------------------------------------------

_SKU_LEVELS = """
SELECT s.id, s.code, s.on_hand, s.reserved,
       coalesce(m.on_hand, 0), coalesce(m.reserved, 0), coalesce(m.opening, 0),
       coalesce(l.live, 0), coalesce(l.consumed, 0)
FROM skus s
LEFT JOIN (SELECT sku, sum(delta_on_hand) AS on_hand, sum(delta_reserved) AS reserved,
                  sum(delta_on_hand) FILTER (WHERE kind = ANY($1::text[])) AS opening
           FROM stock_movements GROUP BY sku) m ON m.sku = s.id
LEFT JOIN (SELECT l.sku,
                  sum(l.quantity) FILTER (WHERE NOT o.stock_consumed
                                            AND o.stage <> 'cancelled') AS live,
                  sum(l.quantity) FILTER (WHERE o.stock_consumed) AS consumed
           FROM order_lines l JOIN orders o ON o.id = l."order"
           WHERE l.sku IS NOT NULL GROUP BY l.sku) l ON l.sku = s.id
ORDER BY s.id
"""
_ORDER_MOVEMENTS = """
WITH q AS (SELECT "order", sku, sum(quantity) AS qty FROM order_lines
           WHERE sku IS NOT NULL GROUP BY 1, 2),
     m AS (SELECT "order", sku, sum(delta_on_hand) AS dh, sum(delta_reserved) AS dr
           FROM stock_movements WHERE "order" IS NOT NULL GROUP BY 1, 2)
SELECT o.id, o.number, o.stage, o.stock_consumed, coalesce(q.sku, m.sku),
       coalesce(q.qty, 0), coalesce(m.dh, 0), coalesce(m.dr, 0)
FROM q FULL JOIN m ON q."order" = m."order" AND q.sku = m.sku
JOIN orders o ON o.id = coalesce(q."order", m."order")
"""
_CONSUMED_FLAGS = """
SELECT o.number, o.stage, o.stock_consumed,
       EXISTS (SELECT 1 FROM stage_history h WHERE h."order" = o.id
               AND h.to_stage = ANY($1::text[])) AS reached
FROM orders o
"""


async def check_stock(conn: asyncpg.Connection) -> Check:
    """Each SKU's levels are the sum of its movements and what the live orders say: reserved
    is the SKU lines of orders not yet consumed, on hand the opening stock less the lines of
    consumed orders; and each order's own movements net to its lines."""
    problems = []
    for row in await conn.fetch(_SKU_LEVELS, list(OPENING_KINDS)):
        _, code, on_hand, reserved, m_on_hand, m_reserved, opening, live, consumed = row
        if (on_hand, reserved) != (m_on_hand, m_reserved):
            problems.append(
                f"{code}: on_hand/reserved {on_hand}/{reserved}, movements say "
                f"{m_on_hand}/{m_reserved}"
            )
        if (on_hand, reserved) != (opening - consumed, live):
            problems.append(
                f"{code}: on_hand/reserved {on_hand}/{reserved}, orders say "
                f"{opening - consumed}/{live} (opening {opening}, consumed {consumed})"
            )
        if on_hand < 0:
            problems.append(f"{code}: on_hand {on_hand} below 0")
    for row in await conn.fetch(_ORDER_MOVEMENTS):
        _, number, stage, consumed, sku, qty, dh, dr = row
        want = (-qty, 0) if consumed else ((0, 0) if stage == "cancelled" else (0, qty))
        if (dh, dr) != want:
            problems.append(
                f"{number} ({stage}, consumed={consumed}) SKU {sku}: lines {qty}, movements "
                f"on_hand {dh:+} reserved {dr:+} (want {want[0]:+} {want[1]:+})"
            )
    for number, stage, consumed, reached in await conn.fetch(_CONSUMED_FLAGS, list(PRODUCTION)):
        if consumed != reached or (stage in PRODUCTION and not consumed):
            problems.append(
                f"{number}: stage {stage}, stock_consumed={consumed}, reached production={reached}"
            )
    return _failed("stock exact", problems)


# --- money -----------------------------------------------------------------------------------

_INVOICES = """
SELECT i.number, i.status, i.total_cents, i.paid_cents, i.paid_at IS NOT NULL,
       coalesce(sum(p.amount_cents), 0), count(p.id), coalesce(min(p.amount_cents), 1),
       o.total_cents, o.number
FROM invoices i JOIN orders o ON o.id = i."order"
LEFT JOIN payments p ON p.invoice = i.id
GROUP BY i.id, o.id
"""
_INVOICES_PER_ORDER = """
SELECT o.number, o.stage, count(i.id) FROM orders o
LEFT JOIN invoices i ON i."order" = o.id GROUP BY o.id
"""


async def check_money(conn: asyncpg.Connection) -> Check:
    """Each invoice's paid is the sum of its payments, never above its total, and it is paid
    exactly when nothing is left; one invoice per dispatched order, for the order's total."""
    problems = []
    for row in await conn.fetch(_INVOICES):
        number, status, total, paid, has_paid_at, summed, count, smallest, order_total, order = row
        if paid != summed:
            problems.append(f"{number}: paid {paid}, its {count} payments sum to {summed}")
        if not 0 <= paid <= total:
            problems.append(f"{number}: paid {paid} outside 0..{total}")
        if smallest <= 0:
            problems.append(f"{number}: a payment of {smallest}")
        if (status == "paid") != (paid == total) or has_paid_at != (status == "paid"):
            problems.append(f"{number}: status {status}, paid {paid} of {total}")
        if status not in ("issued", "paid"):
            problems.append(f"{number}: status {status}")
        if total != order_total:
            problems.append(f"{number}: total {total}, order {order} total {order_total}")
    for number, stage, invoices in await conn.fetch(_INVOICES_PER_ORDER):
        if invoices != (1 if stage == "dispatched" else 0):
            problems.append(f"{number} ({stage}) has {invoices} invoices")
    return _failed("money exact", problems)


# --- numbers ---------------------------------------------------------------------------------


async def check_numbers(conn: asyncpg.Connection) -> Check:
    """Order and invoice numbers: per workspace and year 1..N with no gap or repeat, N the
    counter's last value, each number spelled from its sequence."""
    problems = []
    counters = {
        (r["workspace"], r["kind"], r["year"]): r["last_value"]
        for r in await conn.fetch("SELECT workspace, kind, year, last_value FROM number_sequences")
    }
    for kind, table, prefix in (("order", "orders", "ORD"), ("invoice", "invoices", "INV")):
        seen: dict[tuple[int, int], list[int]] = defaultdict(list)
        rows = await conn.fetch(
            f"SELECT workspace, number_year, number_seq, number FROM {table}"  # noqa: S608
        )
        for workspace, year, seq, number in rows:
            seen[(workspace, year)].append(seq)
            if number != f"{prefix}-{year}-{seq:04d}":
                problems.append(f"{kind} {number}: sequence {seq}")
        for (workspace, year), seqs in seen.items():
            n = counters.get((workspace, kind, year), 0)
            if sorted(seqs) != list(range(1, n + 1)):
                repeated = [s for s, c in Counter(seqs).items() if c > 1]
                missing = sorted(set(range(1, n + 1)) - set(seqs))
                problems.append(
                    f"workspace {workspace} {kind}s {year}: {len(seqs)} numbers, counter {n}, "
                    f"repeated {repeated[:5]}, missing {missing[:5]}"
                )
    return _failed("numbers gapless and unique", problems)


# --- idempotency -----------------------------------------------------------------------------


async def check_idempotency(conn: asyncpg.Connection, conflicts: list[str]) -> Check:
    """One order per create key (its notes carry the key), one payment per payment key (its
    reference), and every 2xx answer to one key named the same record."""
    problems = list(conflicts)
    for notes, count in await conn.fetch(
        "SELECT notes, count(*) FROM orders WHERE notes LIKE 'soak key %' "
        "GROUP BY notes HAVING count(*) > 1"
    ):
        problems.append(f"{count} orders created with {notes!r}")
    for reference, count in await conn.fetch(
        "SELECT reference, count(*) FROM payments WHERE reference LIKE 'soak-%' "
        "GROUP BY reference HAVING count(*) > 1"
    ):
        problems.append(f"{count} payments recorded with key {reference!r}")
    return _failed("idempotency keys used once", problems)


# --- webhooks --------------------------------------------------------------------------------


def _wants(events: str, name: str) -> bool:
    names = {part.strip() for part in events.split(",")}
    return "*" in names or name in names


def _event_customer(body: dict[str, Any], order_customers: dict[int, int]) -> int | None:
    """The customer an event is about, read from its body (invoice events name only the order)."""
    if "customer_id" in body:
        return int(body["customer_id"])
    if isinstance(body.get("customer"), dict):
        return int(body["customer"]["id"])
    if "order_id" in body:
        return order_customers.get(int(body["order_id"]))
    return None


async def check_webhooks(conn: asyncpg.Connection, ctx: Context) -> list[Check]:
    subs = await conn.fetch(
        "SELECT id, workspace, events, customer, is_active, deactivated_reason, in_flight,"
        " consecutive_failures FROM webhook_subscriptions ORDER BY id"
    )
    events = await conn.fetch(
        "SELECT id, workspace, name, body FROM webhook_events WHERE id > $1", ctx.watermark
    )
    order_customers = {r["id"]: r["customer"] for r in await conn.fetch(
        "SELECT id, customer FROM orders"
    )}  # fmt: skip
    deliveries = await conn.fetch(
        "SELECT d.id, d.public_id, d.workspace, d.event, d.subscription, d.status, d.attempts,"
        " e.body, e.name FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event"
        " WHERE d.event > $1",
        ctx.watermark,
    )

    wanted = set()
    for e in events:
        customer = _event_customer(json.loads(e["body"]), order_customers)
        for s in subs:
            in_scope = s["customer"] is None or s["customer"] == customer
            if s["workspace"] == e["workspace"] and _wants(s["events"], e["name"]) and in_scope:
                wanted.add((e["id"], s["id"]))
    pairs = Counter((d["event"], d["subscription"]) for d in deliveries)
    set_problems = [f"event {e} for subscription {s}: no delivery" for e, s in wanted - set(pairs)]
    set_problems += [f"event {e} for subscription {s}: unwanted" for e, s in set(pairs) - wanted]
    set_problems += [f"event {e} for subscription {s}: {n} deliveries" for (e, s), n in
                     pairs.items() if n > 1]  # fmt: skip

    active = {s["id"] for s in subs if s["is_active"]}
    by_delivery: dict[str, list[Receipt]] = defaultdict(list)
    owner: dict[str, int] = {}
    stray = []
    known = {d["public_id"]: d["subscription"] for d in deliveries}
    for sub_id, receiver in ctx.receivers.items():
        for r in receiver.receipts:
            by_delivery[r.delivery].append(r)
            owner.setdefault(r.delivery, sub_id)
            if known.get(r.delivery) != sub_id:
                stray.append(f"{receiver.name} heard delivery {r.delivery} ({r.event})")
            elif not receiver.signed(r):
                stray.append(f"{receiver.name}: delivery {r.delivery} badly signed")
    received_problems = list(stray)
    statuses: Counter[str] = Counter()
    for d in deliveries:
        statuses[d["status"]] += 1
        heard = by_delivery.get(d["public_id"], [])
        if d["subscription"] in active and d["status"] != "succeeded":
            received_problems.append(
                f"delivery {d['id']} ({d['name']}) {d['status']} after {d['attempts']} attempts"
            )
        if d["status"] == "succeeded" and not heard:
            received_problems.append(f"delivery {d['id']} ({d['name']}) succeeded, never heard")
        body = d["body"].encode()
        for r in heard:
            if r.body != body or r.event != d["name"]:
                received_problems.append(f"delivery {d['id']}: heard other bytes than its event's")
                break

    dup = _duplicates(by_delivery, owner, ctx)
    whose = _whose(deliveries, subs, ctx)
    deactivated = [
        f"subscription {s['id']} deactivated: {s['deactivated_reason']}"
        for s in subs
        if not s["is_active"]
    ]
    in_flight = [
        f"subscription {s['id']}: in_flight {s['in_flight']} after the drain"
        for s in subs
        if s["in_flight"]
    ]
    ctx.figures.update(
        events=len(events),
        deliveries=len(deliveries),
        delivery_statuses=dict(statuses),
        received=sum(len(r.receipts) for r in ctx.receivers.values()),
        duplicates=dup["extra"],
        duplicates_per_kill=dup["per_kill"],
        consecutive_failures={s["id"]: s["consecutive_failures"] for s in subs},
    )
    return [
        _failed("deliveries are exactly the wanted (event, subscription) pairs", set_problems),
        _failed("every wanted delivery succeeded and was received intact", received_problems),
        _failed("duplicates only from worker kills", dup["problems"]),
        _failed("every request names its workspace and its delivery's own dlv_ id", whose),
        _failed("no subscription deactivated", deactivated),
        _failed("no attempt left in flight", in_flight),
    ]


def _whose(deliveries: list[Any], subs: list[Any], ctx: Context) -> list[str]:
    """Each request carries its subscription's workspace in `X-SVC-Workspace` and in the body's
    `workspace_id` (the event's workspace), and its delivery's id in `webhook-id` and
    `X-SVC-Delivery` alike: `dlv_…`, one per delivery, never another delivery's."""
    problems = []
    ids = [d["public_id"] for d in deliveries]
    problems += [
        f"delivery id {i} held by {n} deliveries" for i, n in Counter(ids).items() if n > 1
    ]
    problems += [f"delivery {d['id']}: id {d['public_id']!r}" for d in deliveries
                 if not DELIVERY_ID.match(d["public_id"] or "")]  # fmt: skip
    workspace_of = {s["id"]: s["workspace"] for s in subs}
    for sub_id, receiver in ctx.receivers.items():
        expected = str(workspace_of.get(sub_id))
        for r in receiver.receipts:
            name = f"{receiver.name}: delivery {r.delivery}"
            if r.webhook_id != r.delivery or not DELIVERY_ID.match(r.webhook_id):
                problems.append(f"{name}: webhook-id {r.webhook_id!r}")
            if r.workspace != expected:
                problems.append(f"{name}: X-SVC-Workspace {r.workspace!r}, not {expected}")
            body_workspace = json.loads(r.body).get("workspace_id")
            if str(body_workspace) != expected:
                problems.append(f"{name}: workspace_id {body_workspace!r}, not {expected}")
    return problems


def _duplicates(
    by_delivery: dict[str, list[Receipt]], owner: dict[str, int], ctx: Context
) -> dict[str, Any]:
    """A receipt of a delivery already heard is explained by a worker kill between the two
    (the kill lost the first attempt's result); each kill may explain at most the attempts a
    subscription can have in flight."""
    kills = sorted(ctx.worker_kills)
    per_kill: Counter[tuple[int, int]] = Counter()
    problems = []
    extra = 0
    for delivery, receipts in by_delivery.items():
        receipts.sort(key=lambda r: r.at)
        for before, again in itertools.pairwise(receipts):
            extra += 1
            between = [n for n, k in enumerate(kills, 1) if before.at - KILL_SLACK <= k <= again.at]
            if not between:
                problems.append(
                    f"delivery {delivery} heard again {again.at - before.at:.1f} s later "
                    f"(attempt {again.attempt}) with no worker kill between"
                )
            else:
                per_kill[(between[-1], owner[delivery])] += 1
    for (kill, sub), count in sorted(per_kill.items()):
        if count > ctx.max_in_flight:
            problems.append(
                f"kill {kill}: subscription {sub} heard {count} deliveries again "
                f"(more than the {ctx.max_in_flight} it may have in flight)"
            )
    shown = {f"kill {k} sub {s}": n for (k, s), n in sorted(per_kill.items())}
    return {"extra": extra, "per_kill": shown, "problems": problems}


# --- everything ------------------------------------------------------------------------------


async def check_all(
    url: str, ctx: Context, *, client_checks: list[Check], idempotency_conflicts: list[str]
) -> list[Check]:
    conn = await asyncpg.connect(url)
    try:
        checks = list(client_checks)
        checks.append(await check_stock(conn))
        checks.append(await check_money(conn))
        checks.append(await check_numbers(conn))
        checks.append(await check_idempotency(conn, idempotency_conflicts))
        checks += await check_webhooks(conn, ctx)
        ctx.figures.update(await _counts(conn))
    finally:
        await conn.close()
    return checks


async def _counts(conn: asyncpg.Connection) -> dict[str, Any]:
    stages = {r[0]: r[1] for r in await conn.fetch(
        "SELECT stage, count(*) FROM orders GROUP BY stage ORDER BY stage"
    )}  # fmt: skip
    row = await conn.fetchrow(
        "SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM invoices),"
        " (SELECT count(*) FROM invoices WHERE status = 'paid'), (SELECT count(*) FROM payments),"
        " (SELECT count(*) FROM order_edits), (SELECT count(*) FROM stock_movements)"
    )
    assert row is not None
    return {
        "orders": row[0],
        "orders_by_stage": stages,
        "invoices": row[1],
        "invoices_paid": row[2],
        "payments": row[3],
        "order_edits": row[4],
        "stock_movements": row[5],
    }
