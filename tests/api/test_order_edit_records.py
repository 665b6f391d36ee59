"""PATCH /api/v1/orders/{id} records each edit in `order_edits` (models/orders/editing.py): its
revision, the fields it changed and the token that made it, in the edit's transaction; a
refused, stale, empty or replayed PATCH records nothing."""

from __future__ import annotations

import json
from typing import Any

from models.tables import ApiToken, OrderEditRecord
from tests.api.item_helpers import get, item, items_body, patch, stocked
from tests.api.order_helpers import Shop, advance, create, shop


async def records(order_id: int) -> list[dict[str, Any]]:
    rows = (
        await OrderEditRecord.select(
            OrderEditRecord.workspace, OrderEditRecord.revision, OrderEditRecord.changed,
            OrderEditRecord.actor_kind, OrderEditRecord.user, OrderEditRecord.token,
        )
        .where(OrderEditRecord.order == order_id)
        .order_by(OrderEditRecord.id)
    )  # fmt: skip
    return [{**row, "changed": json.loads(row["changed"])} for row in rows]


async def new_order(client, s: Shop) -> dict[str, Any]:
    tee = item(style="G5000", colour="Black", sizes={"M": 2}, unit_price_cents=500)
    response = await create(client, s.auth, items_body(s.customer.id, tee))
    assert response.status_code == 201, response.text
    return response.json()


async def test_a_patch_records_its_revision_fields_and_token(client):
    s = await shop()
    await stocked(s.ws)
    order = await new_order(client, s)
    token = await ApiToken.select(ApiToken.id).where(ApiToken.user == s.user.id).first()
    assert token is not None and await records(order["id"]) == []

    response = await patch(client, s.auth, order["id"], {"notes": "Side door", "due_by": None})
    assert response.status_code == 200, response.text
    assert await records(order["id"]) == [
        {
            "workspace": s.ws.id, "revision": 2, "changed": ["due_by", "notes"],
            "actor_kind": "token", "user": s.user.id, "token": token["id"],
        }
    ]  # fmt: skip
    lines = {"lines": [{"description": "Tee", "quantity": 1, "unit_price_cents": 100}]}
    assert (await patch(client, s.auth, order["id"], lines)).status_code == 200
    assert [(r["revision"], r["changed"]) for r in await records(order["id"])] == [
        (2, ["due_by", "notes"]), (3, ["lines"]),
    ]  # fmt: skip


async def test_a_refused_stale_empty_or_replayed_patch_records_nothing(client):
    s = await shop()
    await stocked(s.ws)
    order = await new_order(client, s)
    stale = (await get(client, s.auth, order["id"])).headers["etag"]
    key = {"Idempotency-Key": "edit-once"}
    assert (await patch(client, s.auth, order["id"], {"notes": "a"}, **key)).status_code == 200
    assert len(await records(order["id"])) == 1

    unstocked = {"items": [item(style="G5000", colour="Black", sizes={"XXL": 1})]}
    refused = await patch(client, s.auth, order["id"], unstocked)
    assert refused.status_code == 422, refused.text
    outdated = await patch(client, s.auth, order["id"], {"notes": "b"}, **{"If-Match": stale})
    assert outdated.status_code == 412, outdated.text
    assert (await patch(client, s.auth, order["id"], {})).status_code == 200
    replayed = await patch(client, s.auth, order["id"], {"notes": "a"}, **key)
    assert replayed.status_code == 200, replayed.text
    for stage in ("print_queue", "in_production"):
        assert (await advance(client, s.auth, order["id"], stage)).status_code == 200
    late = await patch(client, s.auth, order["id"], {"lines": [{"description": "x",
                       "quantity": 1, "unit_price_cents": 1}]})  # fmt: skip
    assert late.status_code == 422, late.text
    assert [(r["revision"], r["changed"]) for r in await records(order["id"])] == [(2, ["notes"])]
