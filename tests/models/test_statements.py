"""The statement runner (models/statements.py): fresh data on every request, a write's own
rows inside a transaction, the bound engine followed, stored timestamps read exactly."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from models import clock, db, statements
from models.orders import queries as order_queries
from models.tables import Order
from tests import factories

T0 = dt.datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=dt.UTC)


async def test_each_request_sees_what_was_committed_just_before(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    first = await client.get("/api/v1/orders", headers=auth)
    assert first.json()["total"] == 0

    await factories.order(ws, c)
    second = await client.get("/api/v1/orders", headers=auth)
    await Order.update({Order.stage: "print_queue"}).where(Order.workspace == ws.id)
    third = await client.get("/api/v1/orders", headers=auth)

    assert second.json()["total"] == 1
    assert third.json()["data"][0]["stage"] == "print_queue"


async def test_a_read_inside_a_transaction_sees_the_transactions_own_rows(client):
    ws, _, _ = await factories.account()
    c = await factories.customer(ws)
    async with db.transaction():
        o = await factories.order(ws, c, lines=[("Tee", 2, 500), ("Hoodie", 1, 2500)])
        inside = await order_queries.get_order(ws.id, o.id)
        assert inside is not None
        assert [line.description for line in inside.lines] == ["Tee", "Hoodie"]
        assert [entry.to_stage for entry in inside.history] == ["artwork"]
    assert await order_queries.get_order(ws.id, o.id) is not None


async def test_a_rolled_back_write_is_never_read(client):
    ws, _, _ = await factories.account()
    c = await factories.customer(ws)
    with pytest.raises(RuntimeError):
        async with db.transaction():
            o = await factories.order(ws, c)
            raise RuntimeError("abandon")
    assert await order_queries.get_order(ws.id, o.id) is None


async def test_reads_follow_the_engine_bound_now(client, tmp_path: Path):
    if db.is_postgres():
        pytest.skip("switches to a second SQLite file")
    bound = db.engine()
    ws, _, _ = await factories.account()
    c = await factories.customer(ws)
    o = await factories.order(ws, c)
    other = db.engine_from_url(f"sqlite:///{tmp_path / 'other.sqlite3'}")
    db.bind(other)
    try:
        await db.migrate()
        assert await order_queries.get_order(ws.id, o.id) is None  # an empty database
    finally:
        db.bind(bound)
    assert await order_queries.get_order(ws.id, o.id) is not None


@pytest.mark.parametrize(
    "stored",
    [
        "2026-03-01 09:30:15.123456+00:00",  # what models/db.py writes
        "2026-03-01 09:30:15+00:00",  # str(datetime) without microseconds
        "2026-03-01 09:30:15",  # SQLite's CURRENT_TIMESTAMP default
    ],
)
async def test_sqlite_timestamp_texts_read_as_piccolo_reads_them(client, stored: str):
    if db.is_postgres():
        pytest.skip("SQLite stores timestamps as text")
    ws, _, auth = await factories.account()
    o = await factories.order(ws, await factories.customer(ws))
    await db.engine().run_ddl(f"UPDATE orders SET updated_at = '{stored}' WHERE id = {o.id}")

    body = (await client.get(f"/api/v1/orders/{o.id}", headers=auth)).json()

    assert body["updated_at"] == "2026-03-01T09:30:15+00:00"


def test_iso_matches_the_api_form_for_every_shape_of_value():
    expected = clock.iso(T0)
    assert statements.iso(T0) == expected
    assert statements.iso(T0.astimezone(dt.timezone(dt.timedelta(hours=5)))) == expected
    assert statements.iso("2026-03-01 09:30:15.123456+00:00") == expected
    assert statements.iso("2026-03-01T09:30:15+00:00") == expected  # rendered by PostgreSQL
    assert statements.iso("2026-03-01 09:30:15") == expected
    assert statements.when("2026-03-01 09:30:15.123456+00:00") == T0


def test_one_statement_text_per_engine():
    sql = statements.Sql(
        """
        SELECT UTC_TEXT(o.created_at), o.id FROM orders o
        WHERE o.workspace = $1 AND o.id = ANY($2) LIMIT $3
        """
    )
    assert sql.postgres == (
        """SELECT to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"'), """
        "o.id FROM orders o WHERE o.workspace = $1 AND o.id = ANY($2) LIMIT $3"
    )
    assert sql.sqlite == (
        "SELECT o.created_at, o.id FROM orders o WHERE o.workspace = ?1 "
        "AND o.id IN (SELECT value FROM json_each(?2)) LIMIT ?3"
    )
