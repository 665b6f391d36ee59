"""First end-to-end checks of the read endpoints through HTTP."""

from tests import factories


async def test_me_returns_the_tokens_user(client):
    _, u, auth = await factories.account()
    response = await client.get("/api/v1/me", headers=auth)
    assert response.status_code == 200
    assert response.json() == {"id": u.id, "name": u.name, "email": u.email}


async def test_orders_list_and_detail(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws, "Acme Tees")
    o = await factories.order(ws, c, lines=[("Front print", 10, 1250), ("Back print", 5, 999)])
    response = await client.get("/api/v1/orders", headers=auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["total"] == 1
    assert body["data"][0]["lines"][1]["line_total_cents"] == 4995
    detail = await client.get(f"/api/v1/orders/{o.id}", headers=auth)
    assert detail.status_code == 200, detail.text
    assert detail.json()["stage_history"][0]["from"] is None
    assert (await client.get(f"/api/v1/orders/{o.number}", headers=auth)).status_code == 404


async def test_customers_and_inventory(client):
    ws, _, auth = await factories.account()
    pl = await factories.price_list(ws)
    c = await factories.customer(ws, "Zed 100%_Cotton", price_list=pl.id)
    await factories.contact(c, is_primary=True)
    await factories.sku(ws, "TEE-BLK-M", on_hand=5, reorder_point=10)
    customers = await client.get("/api/v1/customers", params={"search": "100%_c"}, headers=auth)
    assert customers.status_code == 200, customers.text
    assert [row["discount"] for row in customers.json()["data"]] == ["12.50"]
    detail = await client.get(f"/api/v1/customers/{c.id}", headers=auth)
    assert detail.status_code == 200, detail.text
    inventory = await client.get("/api/v1/inventory", params={"low": "true"}, headers=auth)
    assert inventory.status_code == 200, inventory.text
    assert inventory.json()["data"][0]["status"] == "low_stock"
