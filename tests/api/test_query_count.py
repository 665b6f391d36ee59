"""List pages cost a fixed number of SQL statements, whatever their size (no query per row).

Statements are counted where they leave for the database (the `statements` fixture of
tests/conftest.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from typing import Any

from tests import factories

T0 = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.UTC)
MAX_STATEMENTS = 5  # auth lookup + a few per list; far below one per row


async def _count(statements: list[str], request: Callable[[], Awaitable[Any]]) -> int:
    statements.clear()
    response = await request()
    assert response.status_code == 200, response.text
    return len(statements)


async def test_order_list_of_one_and_of_fifty_with_five_lines_cost_the_same(client, statements):
    small_ws, _, small_auth = await factories.account()
    await factories.order(small_ws, await factories.customer(small_ws))
    big_ws, _, big_auth = await factories.account()
    customers = [await factories.customer(big_ws) for _ in range(5)]
    five_lines = [(f"Line {n}", n + 1, 100 * (n + 1)) for n in range(5)]
    for n in range(50):
        await factories.order(
            big_ws, customers[n % 5], lines=five_lines, created_at=T0 + dt.timedelta(minutes=n)
        )

    one = await _count(statements, lambda: client.get("/api/v1/orders", headers=small_auth))
    response = await client.get("/api/v1/orders", headers=big_auth)
    fifty = await _count(statements, lambda: client.get("/api/v1/orders", headers=big_auth))

    body = response.json()
    assert len(body["data"]) == 50
    assert all(len(row["lines"]) == 5 for row in body["data"])
    assert one == fifty
    assert 2 <= fifty <= MAX_STATEMENTS, statements  # the spy sees the auth lookup and the page


async def test_filtered_order_list_costs_the_same(client, statements):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws, slug="acme")
    for _ in range(20):
        await factories.order(ws, c, stage="print_queue", lines=[("a", 1, 1)] * 3)

    plain = await _count(statements, lambda: client.get("/api/v1/orders", headers=auth))
    filtered = await _count(
        statements,
        lambda: client.get(
            "/api/v1/orders",
            params={"customer": "acme", "stage": "print_queue", "updated_since": "2000-01-01"},
            headers=auth,
        ),
    )

    assert filtered == plain


async def test_customer_list_cost_does_not_grow_with_rows(client, statements):
    small_ws, _, small_auth = await factories.account()
    c = await factories.customer(small_ws)
    await factories.order(small_ws, c)
    big_ws, _, big_auth = await factories.account()
    pl = await factories.price_list(big_ws)
    for n in range(50):
        big = await factories.customer(big_ws, price_list=pl.id)
        await factories.contact(big, is_primary=True)  # each row shows its primary's email
        if n % 10 == 0:
            await factories.order(big_ws, big)

    one = await _count(statements, lambda: client.get("/api/v1/customers", headers=small_auth))
    response = await client.get("/api/v1/customers", headers=big_auth)
    fifty = await _count(statements, lambda: client.get("/api/v1/customers", headers=big_auth))

    assert all(row["email"] for row in response.json()["data"])
    assert one == fifty <= MAX_STATEMENTS


async def test_inventory_list_cost_does_not_grow_with_rows(client, statements):
    small_ws, _, small_auth = await factories.account()
    await factories.sku(small_ws)
    big_ws, _, big_auth = await factories.account()
    for _ in range(100):
        await factories.sku(big_ws)

    one = await _count(statements, lambda: client.get("/api/v1/inventory", headers=small_auth))
    hundred = await _count(statements, lambda: client.get("/api/v1/inventory", headers=big_auth))

    assert one == hundred <= MAX_STATEMENTS


async def test_detail_costs_do_not_grow_with_lines_history_or_contacts(client, statements):
    ws, _, auth = await factories.account()
    small_c = await factories.customer(ws)
    small_o = await factories.order(ws, small_c)
    big_c = await factories.customer(ws)
    for _ in range(10):
        await factories.contact(big_c)
    big_o = await factories.order(ws, big_c, lines=[("x", 1, 1)] * 20)
    for n in range(10):
        await factories.stage_change(big_o, "artwork", "print_queue", T0 + dt.timedelta(hours=n))
        await factories.invoice(big_o, status="paid")

    def get(path: str) -> Callable[[], Awaitable[Any]]:
        return lambda: client.get(path, headers=auth)

    small_order = await _count(statements, get(f"/api/v1/orders/{small_o.id}"))
    big_order = await _count(statements, get(f"/api/v1/orders/{big_o.id}"))
    small_customer = await _count(statements, get(f"/api/v1/customers/{small_c.id}"))
    big_customer = await _count(statements, get(f"/api/v1/customers/{big_c.id}"))

    assert small_order == big_order
    assert small_customer == big_customer
