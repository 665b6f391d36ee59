"""`statements.snapshot()`: every statement of a read sees the same committed state, so an
order's detail (items, then their imprints, in two statements) never shows half of an edit
committed between them."""

from __future__ import annotations

from models import db, statements
from models.statements import Sql
from models.tables import Customer
from tests import factories

COUNT = Sql("SELECT COUNT(*) FROM customers WHERE workspace = $1")


async def test_a_snapshot_reads_one_state_while_a_change_commits_between_its_statements(
    backend: str,
):
    if not db.is_postgres():
        await db.start()  # WAL, as every process runs SQLite (a reader never blocks a writer)
    ws = await factories.workspace()
    await factories.customer(ws, "Before")
    async with statements.snapshot() as reader:
        [[first]] = await reader.rows(COUNT, ws.id)
        await factories.customer(ws, "Meanwhile")  # committed on another connection
        [[second]] = await reader.rows(COUNT, ws.id)
    assert (first, second) == (1, 1)
    async with statements.snapshot() as reader:
        [[after]] = await reader.rows(COUNT, ws.id)
    assert after == 2
    assert await Customer.count().where(Customer.workspace == ws.id) == 2


async def test_a_plain_connection_reads_each_statement_afresh(backend: str):
    """What the snapshot is for: without it the second statement sees the change."""
    ws = await factories.workspace()
    await factories.customer(ws, "Before")
    async with statements.connection() as reader:
        [[first]] = await reader.rows(COUNT, ws.id)
        await factories.customer(ws, "Meanwhile")
        [[second]] = await reader.rows(COUNT, ws.id)
    assert (first, second) == (1, 2)
