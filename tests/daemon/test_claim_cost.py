"""The claim's cost follows the work due now, not the subscriptions waiting (PostgreSQL).

Thousands of subscriptions each hold a retry due later, and the planner's statistics were
taken while every one of them was due: the claim must still read only a few pages, reach the
subscriptions through their indexes (never a scan of the table), and take what is due."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import asyncpg
import pytest

from daemon import claim
from models import db
from tests.daemon import support
from tests.daemon.support import FakeClock

pytestmark = pytest.mark.postgres_only(reason="PG_CLAIM and its plan are PostgreSQL's")

WAITING = 3000
DUE = 6
BIG_TABLES = {"webhook_subscriptions", "webhook_deliveries"}


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


async def _seed(conn: asyncpg.Connection, ws: int, due_sub: int, now: dt.datetime) -> None:
    """WAITING subscriptions with one delivery each, retried once and due in an hour (set in
    the past first, and analysed so: the statistics say every subscription is due)."""
    past, later = now - dt.timedelta(minutes=5), now + dt.timedelta(hours=1)
    await conn.execute(
        "INSERT INTO webhook_subscriptions (workspace, url, events, secret, is_active, "
        "consecutive_failures, created_at, updated_at) SELECT $1, 'http://127.0.0.1:9/w/' || n, "
        "'*', 'whsec_x', true, 1, $2, $2 FROM generate_series(1, $3) n",
        ws, now, WAITING,
    )  # fmt: skip
    await conn.execute(
        "INSERT INTO webhook_events (workspace, event_id, name, body, created_at) "
        "SELECT $1, 'wait-' || s.id, 'order.stage_changed', '{}', $2 "
        "FROM webhook_subscriptions s WHERE s.workspace = $1 AND s.id <> $3",
        ws, now, due_sub,
    )  # fmt: skip
    await conn.execute(
        "INSERT INTO webhook_deliveries (workspace, event, subscription, status, attempts, "
        "next_attempt_at, created_at, updated_at) SELECT $1, e.id, s.id, 'pending', 1, $2, $3, $3 "
        "FROM webhook_events e JOIN webhook_subscriptions s ON e.event_id = 'wait-' || s.id "
        "WHERE s.workspace = $1",
        ws, past, now,
    )  # fmt: skip
    await conn.execute(claim.FOLD_DUE)  # as a claim would: every subscription is due
    await conn.execute("ANALYZE webhook_subscriptions, webhook_deliveries")
    await conn.execute(
        "UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE workspace = $1 AND attempts = 1",
        ws, later,
    )  # fmt: skip
    # What the claims that made those attempts left (a delivery moved later never raises it):
    # they folded the due marks, then raised the value.
    await conn.execute(claim.FOLD_DUE)
    await conn.execute(
        "UPDATE webhook_subscriptions SET next_due_at = $3 WHERE workspace = $1 AND id <> $2",
        ws, due_sub, later,
    )  # fmt: skip


async def test_a_claim_reads_the_due_work_only_whatever_the_statistics_say(
    backend: str, fake_clock: FakeClock
):
    ws = await support.workspace()
    due = await support.subscription(ws, "http://127.0.0.1:9/due")
    await support.queued(ws, due, DUE)
    now = fake_clock()
    conn = await asyncpg.connect(**db.engine().config)  # type: ignore[attr-defined]
    plans = []
    try:
        await _seed(conn, ws.id, due.id, now)
        types = "timestamptz, integer, integer, integer, timestamptz, text"
        await conn.execute(f"PREPARE claim_q({types}) AS {claim.PG_CLAIM}")
        lease = now + dt.timedelta(seconds=60)
        execute = f"EXECUTE claim_q('{now.isoformat()}', 4, 20, 1024, '{lease.isoformat()}', 'w')"
        for mode in ("custom", "generic"):  # the plan cache's choice, either way
            transaction = conn.transaction()
            await transaction.start()
            try:  # EXPLAIN ANALYZE claims: rolled back, so both plans claim the same rows
                await conn.execute(f"SET LOCAL plan_cache_mode = force_{mode}_plan")
                [[text]] = await conn.fetch("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + execute)
                plans.append((json.loads(text) if isinstance(text, str) else text)[0])
            finally:
                await transaction.rollback()
    finally:
        await conn.close()
    for top in plans:
        nodes = list(_nodes(top["Plan"]))
        scanned = {n["Relation Name"]: n["Node Type"] for n in nodes if "Relation Name" in n}
        assert not [
            n for n in nodes if n["Node Type"] == "Seq Scan" and n["Relation Name"] in BIG_TABLES
        ], scanned
        assert any(n.get("Index Name") == "subscriptions_due" for n in nodes), scanned
        # 3,000 subscriptions backing off cost nothing: a few dozen pages, not thousands.
        pages = top["Plan"]["Shared Hit Blocks"] + top["Plan"]["Shared Read Blocks"]
        assert pages < 200, pages
        assert top["Plan"]["Actual Rows"] == 4  # the due subscription's cap
