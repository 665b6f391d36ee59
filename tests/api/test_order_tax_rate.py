"""An order keeps the rate its tax was computed at (`orders.tax_rate`, printed on its invoice):
the workspace's when created, 0 for a tax-exempt customer, the workspace's rate of the day when
an edit prices its content again, and unchanged by an edit that does not."""

from __future__ import annotations

from decimal import Decimal

import httpx

from models.tables import Order, Workspace
from tests import factories
from tests.api.order_helpers import create, line, order_body, shop


async def _rate(order_id: int) -> Decimal | None:
    row = await Order.select(Order.tax_rate).where(Order.id == order_id).first()
    assert row is not None
    return None if row["tax_rate"] is None else Decimal(str(row["tax_rate"]))


async def test_a_new_order_keeps_the_workspace_rate(client: httpx.AsyncClient) -> None:
    s = await shop(tax_rate=Decimal("17.50"))

    created = await create(client, s.auth, order_body(s.customer.id))

    assert created.status_code == 201, created.text
    assert await _rate(created.json()["id"]) == Decimal("17.5")
    assert created.json()["totals"]["tax_cents"] == 2188  # 17.5 % of 125.00


async def test_a_tax_exempt_customer_is_taxed_at_zero(client: httpx.AsyncClient) -> None:
    s = await shop()
    exempt = await factories.customer(s.ws, "Charity Shirts", tax_exempt=True)

    created = await create(client, s.auth, order_body(exempt.id))

    assert created.status_code == 201, created.text
    assert await _rate(created.json()["id"]) == Decimal(0)


async def test_an_edit_of_the_content_takes_the_rate_of_the_day_and_others_keep_it(
    client: httpx.AsyncClient,
) -> None:
    s = await shop()
    created = await create(client, s.auth, order_body(s.customer.id))
    order_id = created.json()["id"]
    await Workspace.update({Workspace.tax_rate: Decimal("5.00")}).where(Workspace.id == s.ws.id)
    path = f"/api/v1/orders/{order_id}"

    notes = await client.patch(path, json={"notes": "Fold, do not hang"}, headers=s.auth)

    assert notes.status_code == 200, notes.text
    assert await _rate(order_id) == Decimal(20)

    lines = await client.patch(path, json={"lines": [line(quantity=20)]}, headers=s.auth)

    assert lines.status_code == 200, lines.text
    assert await _rate(order_id) == Decimal(5)
    assert lines.json()["totals"]["tax_cents"] == 1250  # 5 % of 250.00
