"""The admin order list's search (`q`, models/orders/search.py): what a term matches on
both engines, and on PostgreSQL that the search statements are answered from the trigram
indexes (never by reading the workspace's orders), with a fixed number of statements a page."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import asyncpg
import httpx
import pytest

from models import db
from models.statements import watch
from models.tables import Customer, Order
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import statement_count

ORDER_TRIGRAMS = {"orders_number_trgm", "orders_external_ref_trgm"}
# the indexes that read a workspace's orders in some order: a search must not walk them
WHOLE_WORKSPACE = {"orders_workspace", "orders_ws_created", "orders_ws_stage_created",
                   "orders_ws_updated"}  # fmt: skip


def numbers(page: httpx.Response) -> set[str]:
    return set(re.findall(r'href="/admin/orders/(ORD-[\d-]+)"', page.text))


async def found(shop: Shop, q: str, **query: str) -> set[str]:
    page = await shop.client.get("/admin/orders", params={"q": q, **query})
    assert page.status_code == 200, page.text
    return numbers(page)


async def order(shop: Shop, customer: Customer, number: str, **fields: Any) -> Order:
    """An order of `customer` numbered `number` (the factory's numbers follow a counter shared
    by the whole run, so they could contain the digits searched for)."""
    made = await factories.order(shop.ws, customer, **fields)
    await Order.update({Order.number: number}).where(Order.id == made.id)
    made.number = number
    return made


async def test_a_term_is_looked_for_inside_number_reference_and_customer_name(shop: Shop) -> None:
    acme = await factories.customer(shop.ws, "Acme Tees")
    fox = await factories.customer(shop.ws, "Harbour Fox Club")
    by_ref = await order(shop, acme, "ORD-2026-0001", external_ref="WEB-7731")
    by_number = await order(shop, acme, "ORD-2026-7731")
    by_name = await order(shop, fox, "ORD-2026-0002")
    percent = await order(shop, fox, "ORD-2026-0003", external_ref="PO-100%-X")
    plain = await order(shop, fox, "ORD-2026-0004", external_ref="PO-1000")
    other = await factories.workspace()
    await factories.order(
        other, await factories.customer(other, "Acme Tees"), external_ref="WEB-7731"
    )

    assert await found(shop, "7731") == {by_ref.number, by_number.number}
    assert await found(shop, "ord-2026-7731") == {by_number.number}  # number-shaped: the
    assert await found(shop, "2026-7731") == {by_number.number}  # index finds 7731, all checked
    assert await found(shop, "web-77") == {by_ref.number}
    assert await found(shop, "OUR FOX") == {by_name.number, percent.number, plain.number}
    assert await found(shop, "cme t") == {by_ref.number, by_number.number}
    assert await found(shop, "100%") == {percent.number}  # % is the character, not a wildcard
    assert await found(shop, "po-1_00") == set()
    assert await found(shop, "no such thing") == set()
    assert await found(shop, "fox", stage="artwork") == {
        by_name.number, percent.number, plain.number
    }  # fmt: skip
    assert await found(shop, "fox", stage="dispatched") == set()
    assert await found(shop, "7731", customer=str(fox.id)) == set()


async def test_a_short_term_is_the_reference_or_the_start_of_the_name(shop: Shop) -> None:
    """One or two letters or digits: no trigram to look up, and inside every text they would
    match nearly everything; the reference equal to the term, or the name starting with it."""
    ab = await factories.customer(shop.ws, "AB Studio")
    lab = await factories.customer(shop.ws, "Lab Co")
    ref_42 = await order(shop, lab, "ORD-2026-0001", external_ref="42")
    ref_ab = await order(shop, lab, "ORD-2026-0002", external_ref="Ab")
    ab_order = await order(shop, ab, "ORD-2026-0003", external_ref="X-142")
    await order(shop, lab, "ORD-2026-0042")

    assert await found(shop, "42") == {ref_42.number}
    assert await found(shop, "aB") == {ref_ab.number, ab_order.number}
    assert await found(shop, "a") == {ab_order.number}
    assert await found(shop, "#4") == set()  # one digit: the reference "#4" or a name "#4…"
    assert await found(shop, "142") == {ab_order.number}  # three digits: inside the texts
    page = await shop.client.get("/admin/orders", params={"q": "z"})
    assert page.status_code == 200 and "No orders match these filters." in page.text


async def test_search_pages_count_every_match_and_cost_the_same(shop: Shop, statements) -> None:
    fox = await factories.customer(shop.ws, "Fox Events")
    first = await factories.order(shop.ws, fox)
    one = await statement_count(shop.client, statements, "/admin/orders?q=fox")
    short = await statement_count(shop.client, statements, "/admin/orders?q=fo")
    for _ in range(51):
        await factories.order(shop.ws, fox, artwork=False)
    await factories.order(shop.ws, await factories.customer(shop.ws, "Quiet Oak"))
    assert await statement_count(shop.client, statements, "/admin/orders?q=fox") == one
    assert await statement_count(shop.client, statements, "/admin/orders?q=fo") == short
    page = await shop.client.get("/admin/orders", params={"q": "fox"})
    assert "52 orders, 50 on this page." in page.text
    second = await shop.client.get("/admin/orders", params={"q": "fox", "page": "2"})
    assert second.text.count('id="order-') == 2 and first.number in numbers(second)
    past = await shop.client.get("/admin/orders", params={"q": "fox", "page": "3"})
    assert "52 orders, 0 on this page." in past.text and 'id="order-' not in past.text
    listed = await statement_count(shop.client, statements, "/admin/orders")
    assert one == short == listed - 1  # a search page is one statement: its count rides along


# --- PostgreSQL: the plan ------------------------------------------------------------------

ORDERS, CUSTOMERS = 20_000, 500
# Set-based rows for one workspace, enough that reading all of them costs the planner far more
# than the trigram indexes do: customers "Customer <n>" (one "Zebra Prints"), orders
# ORD-2026-<00001…>, a third with an external reference SHOP-<n>, each with its artwork row.
MANY_CUSTOMERS = """
    INSERT INTO customers (workspace, name, slug)
    SELECT {ws}, CASE WHEN i = 7 THEN 'Zebra Prints' ELSE 'Customer ' || i END, 'c-' || i
    FROM generate_series(1, {n}) AS i
"""
MANY_ORDERS = """
    INSERT INTO orders (workspace, customer, number, number_year, number_seq, currency,
                        external_ref, created_at, updated_at)
    SELECT {ws}, first.id + i % {customers}, 'ORD-2026-' || lpad(i::text, 5, '0'), 2026, i,
           'GBP', CASE WHEN i % 3 = 0 THEN 'SHOP-' || i END,
           now() - i * interval '1 minute', now()
    FROM generate_series(1, {n}) AS i,
         (SELECT MIN(id) AS id FROM customers WHERE workspace = {ws}) AS first
"""
MANY_ARTWORK = """
    INSERT INTO artwork (workspace, "order", status) SELECT workspace, id, 'approved'
    FROM orders WHERE workspace = {ws}
"""


def literal(value: Any) -> str:
    if isinstance(value, int):
        return str(value)
    assert isinstance(value, str), value
    return "'" + value.replace("'", "''") + "'"


def index_scans(plan: Any) -> tuple[set[str], set[str]]:
    """The indexes a JSON plan reads, and the tables it reads whole (Seq Scan)."""
    indexes: set[str] = set()
    whole: set[str] = set()
    stack = [plan[0]["Plan"]]
    while stack:
        node = stack.pop()
        if "Index Name" in node:
            indexes.add(node["Index Name"])
        if node["Node Type"] == "Seq Scan":
            whole.add(node["Relation Name"])
        stack.extend(node.get("Plans", []))
    return indexes, whole


async def plans(url: str, sent: Sequence[tuple[str, Sequence[Any]]]) -> list[tuple[set, set]]:
    """Each statement's plan as the planner makes it for these values (custom) and for any
    values (generic: what a prepared statement may switch to after five runs)."""
    conn = await asyncpg.connect(url)
    try:
        found: list[tuple[set, set]] = []
        for number, (sql, args) in enumerate(sent):
            await conn.execute(f"PREPARE search_{number} AS {sql}")
            call = f"EXECUTE search_{number}({', '.join(literal(a) for a in args)})"
            for mode in ("force_custom_plan", "force_generic_plan"):
                await conn.execute(f"SET plan_cache_mode = {mode}")
                plan = await conn.fetchval(f"EXPLAIN (FORMAT JSON) {call}")
                found.append(index_scans(json.loads(plan)))
        return found
    finally:
        await conn.close()


# term → (orders it matches, the trigram indexes its statements must read)
TERMS = {
    "ORD-2026-01234": (1, ORDER_TRIGRAMS),  # the number's index asked for "01234" alone
    "2026-0123": (10, ORDER_TRIGRAMS),  # ORD-2026-01230 … 01239
    "zebra": (ORDERS // CUSTOMERS, ORDER_TRIGRAMS),
    "shop-1234": (3, ORDER_TRIGRAMS),  # SHOP-12342, -12345, -12348
    "ze": (ORDERS // CUSTOMERS, {"orders_external_ref_trgm"}),  # short: reference is "ze"
}


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_postgres_search_reads_the_trigram_indexes_not_the_workspace(
    shop: Shop, backend: str
) -> None:
    """Planned both ways (for the values, and generic), with the indexes' statistics fresh,
    each statement of a search finds the orders through a trigram index and never walks the
    workspace's orders: with 20,000 orders that walk already costs the planner several times
    more, and the gap only grows with the workspace."""
    engine = db.engine()
    await engine.run_ddl(MANY_CUSTOMERS.format(ws=shop.ws.id, n=CUSTOMERS))
    await engine.run_ddl(MANY_ORDERS.format(ws=shop.ws.id, n=ORDERS, customers=CUSTOMERS))
    await engine.run_ddl(MANY_ARTWORK.format(ws=shop.ws.id))
    for table in ("customers", "orders", "artwork"):
        await engine.run_ddl(f"ANALYZE {table}")
    for q, (matches, trigrams) in TERMS.items():
        sent: list[tuple[str, Sequence[Any]]] = []
        with watch(lambda sql, args: sent.append((sql, args))):  # noqa: B023 - used at once
            page = await shop.client.get("/admin/orders", params={"q": q})
            assert len(sent) == 1, sent  # the page with its count: one statement
            past = await shop.client.get("/admin/orders", params={"q": q, "page": "999"})
        assert page.status_code == 200 and past.status_code == 200
        assert f"{matches} order" in page.text and f"{matches} order" in past.text, q
        searches = [(sql, args) for sql, args in sent if " orders o " in sql]
        assert len(searches) == 3, sent  # then, past the last page, the page and COUNT alone
        for indexes, whole in await plans(backend, searches):
            assert not whole & {"orders", "artwork"}, (q, indexes, whole)
            assert not indexes & WHOLE_WORKSPACE, (q, indexes)
            assert trigrams <= indexes, (q, indexes)
