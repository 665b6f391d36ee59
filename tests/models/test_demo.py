"""`pressline demo`: the printed token reads a believable shop through the real API."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

import cli
from models import clock
from models.demo import WORKSPACE_NAME
from models.stages import STAGES
from models.tables import ApiToken, Order, Sku, Workspace
from tests.admin.support import log_in

pytestmark = pytest.mark.usefixtures("backend")


async def demo(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    code = await cli.run(["demo", "--json", *extra])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def fingerprint(workspace_id: int) -> list[Any]:
    """What a rebuild must reproduce: stock levels and every order's figures and stage."""
    skus = await Sku.select(Sku.code, Sku.on_hand, Sku.reserved, Sku.reorder_point).where(
        Sku.workspace == workspace_id
    )
    orders = await (
        Order.select(Order.number, Order.stage, Order.total_cents, Order.tax_cents, Order.carrier)
        .where(Order.workspace == workspace_id)
        .order_by(Order.number)
    )
    return [sorted(skus, key=lambda row: row["code"]), orders]


async def test_demo_token_reads_orders_in_every_stage(capsys, client):
    data = await demo(capsys)
    assert data["created"] is True
    assert data["counts"]["skus"] >= 35 and data["counts"]["customers"] >= 4
    auth = bearer(data["token"])
    assert data["curl"] == (
        f'curl -H "Authorization: Bearer {data["token"]}" http://127.0.0.1:8000/api/v1/orders'
    )
    ws = await Workspace.objects().where(Workspace.id == data["workspace_id"]).first()
    assert ws is not None and ws.name == WORKSPACE_NAME
    # A trial: starter plan, premium (with the API) for another 14 days.
    assert ws.plan == "starter" and ws.currency == "GBP" and ws.timezone == "Europe/London"
    assert ws.trial_ends_at - clock.now() > dt.timedelta(days=13)

    response = await client.get("/api/v1/orders", headers=auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["total"] == data["counts"]["orders"] == len(body["data"])
    assert {row["stage"] for row in body["data"]} == set(STAGES)
    assert all(row["lines"] for row in body["data"])

    dispatched = next(row for row in body["data"] if row["stage"] == "dispatched")
    detail = (await client.get(f"/api/v1/orders/{dispatched['id']}", headers=auth)).json()
    assert [entry["to"] for entry in detail["stage_history"]] == [
        "artwork", "print_queue", "in_production", "qc_pack", "dispatched",
    ]  # fmt: skip
    assert detail["invoices"] and detail["artwork"]["status"] == "approved"
    assert detail["tracking_number"]

    statuses = set()
    for row in body["data"]:
        if row["stage"] == "artwork":
            order = await client.get(f"/api/v1/orders/{row['id']}", headers=auth)
            statuses.add(order.json()["artwork"]["status"])
    assert statuses == {"awaiting_proof", "awaiting_approval", "approved"}

    inventory = (await client.get("/api/v1/inventory", headers=auth)).json()
    assert inventory["total"] == data["counts"]["skus"]
    stock = {row["status"] for row in inventory["data"]}
    assert {"in_stock", "low_stock", "out_of_stock"} <= stock

    customers = (await client.get("/api/v1/customers", headers=auth)).json()["data"]
    assert len(customers) == data["counts"]["customers"]
    assert any(row["discount"] != "0.00" for row in customers)
    assert any(row["price_list"] is None for row in customers)
    first = (await client.get(f"/api/v1/customers/{customers[0]['id']}", headers=auth)).json()
    assert first["contacts"] and sum(c["is_primary"] for c in first["contacts"]) == 1
    assert first["name"] == "Hop & Barley Brewing Co."
    assert first["lifetime_value_cents"] > 0  # its dispatched order's invoice is paid


async def test_demo_again_reuses_the_workspace_with_a_fresh_token(capsys, client, monkeypatch):
    first = await demo(capsys)
    orders = await Order.count()
    monkeypatch.setenv("PORT", "9123")
    second = await demo(capsys)
    assert second["created"] is False and second["workspace_id"] == first["workspace_id"]
    assert second["token"] != first["token"]
    assert "http://127.0.0.1:9123/api/v1/orders" in second["curl"]
    assert await Order.count() == orders
    # one demo token alive at a time, for 30 days
    assert (first["revoked_tokens"], second["revoked_tokens"]) == (0, 1)
    assert await ApiToken.count() == 2
    old = await client.get("/api/v1/me", headers=bearer(first["token"]))
    assert old.status_code == 401 and "revoked" in old.json()["message"]
    response = await client.get("/api/v1/me", headers=bearer(second["token"]))
    assert response.status_code == 200, response.text
    lifetime = dt.datetime.fromisoformat(second["expires_at"]) - clock.now()
    assert dt.timedelta(days=29) < lifetime <= dt.timedelta(days=30)

    # Once the trial is over the old token answers 422; the demo starts a new trial.
    past = clock.now() - dt.timedelta(days=1)
    await Workspace.update({Workspace.trial_ends_at: past}).where(
        Workspace.id == first["workspace_id"]
    )
    assert (await client.get("/api/v1/me", headers=bearer(second["token"]))).status_code == 422
    third = await demo(capsys)
    assert third["trial_renewed"] is True
    assert (await client.get("/api/v1/me", headers=bearer(third["token"]))).status_code == 200


async def test_demo_human_output_and_reproducible_data(capsys):
    code = await cli.run(["demo"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0].startswith("built workspace ") and "orders" in out[0]
    token = out[2]
    assert token.startswith("plk_")
    assert out[-1] == f'curl -H "Authorization: Bearer {token}" http://127.0.0.1:8000/api/v1/orders'
    ws = await Workspace.objects().where(Workspace.name == WORKSPACE_NAME).first()
    assert ws is not None
    before = await fingerprint(ws.id)

    # Rename the first so a second build starts from scratch beside it.
    await Workspace.update({Workspace.name: "Old demo"}).where(Workspace.id == ws.id)
    rebuilt = await demo(capsys)
    assert rebuilt["created"] is True and rebuilt["workspace_id"] != ws.id
    assert await fingerprint(rebuilt["workspace_id"]) == before


async def test_demo_prints_the_real_port_and_the_admin_login(capsys, client, monkeypatch):
    monkeypatch.setenv("PORT", "9123")
    data = await demo(capsys)
    assert data["curl"].endswith(" http://127.0.0.1:9123/api/v1/orders")
    assert data["admin_url"] == "http://127.0.0.1:9123/admin"
    given = await demo(capsys, "--port", "9555")
    assert given["curl"].endswith(" http://127.0.0.1:9555/api/v1/orders")
    assert given["admin_url"] == "http://127.0.0.1:9555/admin"
    assert given["admin_email"] == data["admin_email"]
    assert given["admin_password"] is None  # the first run's password is kept
    login = await log_in(client, data["admin_email"], data["admin_password"])
    assert login.status_code == 303 and login.headers["location"] == "/admin/"

    code = await cli.run(["demo", "--port", "9556"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    admin = next(line for line in out if line.startswith("admin: "))
    assert admin.startswith("admin: http://127.0.0.1:9556/admin  email ")
    assert admin.endswith(
        f"password unchanged (`pressline user set-password {data['user_id']}` sets a new one)"
    )
    assert out[-1].endswith(" http://127.0.0.1:9556/api/v1/orders")
    assert await cli.run(["demo", "--port", "70000"]) == 2
    assert "70000 is not in the range 1<=x<=65535" in capsys.readouterr().err


async def test_demo_again_keeps_a_password_the_owner_changed(capsys, client):
    from models import members

    first = await demo(capsys)
    await members.set_password(first["user_id"], "my own password, changed")
    second = await demo(capsys)
    assert second["admin_password"] is None
    assert (await log_in(client, first["admin_email"], first["admin_password"])).status_code == 400
    login = await log_in(client, first["admin_email"], "my own password, changed")
    assert login.status_code == 303
