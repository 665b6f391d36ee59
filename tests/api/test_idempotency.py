"""`Idempotency-Key` on both POST endpoints (docs/api.md §4.6): replays, conflicts, mismatches,
expiry, per-user keys, and what a failed first request leaves behind (nothing)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from api.idempotency import request_hash
from models import clock, db, idempotency
from models.errors import ConflictError, InvalidFields
from models.tables import IdempotencyKey, Order, StageChange, Workspace
from tests import factories
from tests.api.order_helpers import advance, create, line, order_body, shop, snapshot

KEY = "Idempotency-Key"


async def test_a_retried_create_replays_the_first_response(client):
    s = await shop()
    body = order_body(s.customer.id, external_ref="shop-77")
    first = await create(client, s.auth, body, **{KEY: "create-1"})
    assert first.status_code == 201, first.text
    assert "idempotent-replayed" not in first.headers
    state = await snapshot()
    retry = await create(client, s.auth, body, **{KEY: "create-1"})
    assert retry.status_code == 201
    assert retry.content == first.content
    assert retry.headers["location"] == first.headers["location"]
    assert retry.headers["idempotent-replayed"] == "true"
    assert retry.headers["content-type"] == "application/json"
    assert await snapshot() == state
    assert await Order.count() == 1


async def test_the_stored_row_keeps_the_response_for_24_hours(client):
    s = await shop()
    before = clock.now()
    first = await create(client, s.auth, order_body(s.customer.id), **{KEY: "k"})
    row = await IdempotencyKey.objects().first()
    assert (row.user, row.key, row.status) == (s.user.id, "k", "completed")
    assert (row.response_status, row.response_body) == (201, first.text)
    assert row.response_location == first.headers["location"]
    assert row.expires_at - row.created_at == dt.timedelta(hours=24)
    assert row.created_at >= before - dt.timedelta(seconds=1)


async def test_the_same_json_in_another_layout_is_the_same_request(client):
    s = await shop()
    compact = (
        f'{{"customer_id":{s.customer.id},"lines":[{{"description":"Tee","quantity":2,'
        '"unit_price_cents":500}]}'
    )
    spaced = (
        '{\n  "lines": [ {"unit_price_cents": 500, "quantity": 2, "description": "Tee"} ],\n'
        f'  "customer_id": {s.customer.id}\n}}'
    )
    headers = {**s.auth, KEY: "layout", "Content-Type": "application/json"}
    first = await client.post("/api/v1/orders", content=compact.encode(), headers=headers)
    second = await client.post("/api/v1/orders", content=spaced.encode(), headers=headers)
    assert first.status_code == second.status_code == 201
    assert second.headers["idempotent-replayed"] == "true"
    assert await Order.count() == 1


async def test_the_same_key_with_another_body_is_422(client):
    s = await shop()
    first = await create(client, s.auth, order_body(s.customer.id), **{KEY: "k1"})
    assert first.status_code == 201
    other = order_body(s.customer.id, lines=[line(quantity=11)])
    response = await create(client, s.auth, other, **{KEY: "k1"})
    assert response.status_code == 422
    assert response.json() == {
        "message": (
            "This Idempotency-Key was already used for a different request; "
            "use a new key for a new request."
        ),
        "code": "idempotency_mismatch",
        "errors": {
            KEY: [
                "This Idempotency-Key was already used for a different request; "
                "use a new key for a new request."
            ]
        },
        "details": {},
    }
    # ... and on another endpoint.
    order_id = first.json()["id"]
    moved = await advance(client, s.auth, order_id, "print_queue", headers={KEY: "k1"})
    assert moved.status_code == 422
    assert list(moved.json()["errors"]) == [KEY]
    assert moved.json()["code"] == "idempotency_mismatch"
    assert await Order.count() == 1
    assert await StageChange.count() == 1


def _hash(body: dict) -> str:
    """The fingerprint of a create with this body (layout does not matter)."""
    return request_hash("POST", "/api/v1/orders", json.dumps(body).encode())


async def _running(user_id: int, key: str, body: dict, started: dt.datetime) -> None:
    await IdempotencyKey(
        user=user_id,
        key=key,
        request_hash=_hash(body),
        status="running",
        created_at=started,
        expires_at=started + dt.timedelta(hours=24),
    ).save()


async def test_while_the_first_is_running_a_retry_gets_409(client):
    s = await shop()
    body = order_body(s.customer.id)
    await _running(s.user.id, "busy", body, clock.now() - dt.timedelta(seconds=15))
    response = await create(client, s.auth, body, **{KEY: "busy"})
    assert response.status_code == 409
    # The lease (60 s) ends in 45 s, but the client is told a second: a running request is
    # usually done by then, and waiting for the lease would be 45 s for nothing.
    assert response.headers["retry-after"] == "1"
    assert response.json() == {
        "message": "A request with this Idempotency-Key is still being processed; "
        "retry in 1 second.",
        "code": "idempotency_in_progress",
        "details": {},
    }
    assert await Order.count() == 0
    assert await IdempotencyKey.select(IdempotencyKey.status) == [{"status": "running"}]


async def test_an_abandoned_running_key_is_taken_over(client):
    s = await shop()
    body = order_body(s.customer.id)
    await _running(s.user.id, "stale", body, clock.now() - dt.timedelta(seconds=61))
    response = await create(client, s.auth, body, **{KEY: "stale"})
    assert response.status_code == 201, response.text
    rows = await IdempotencyKey.select(IdempotencyKey.status, IdempotencyKey.response_status)
    assert rows == [{"status": "completed", "response_status": 201}]
    # The 60 s lease is the threshold: a younger running row is still in progress.
    await _running(s.user.id, "young", body, clock.now() - dt.timedelta(seconds=58))
    busy = await create(client, s.auth, body, **{KEY: "young"})
    assert busy.status_code == 409 and 1 <= int(busy.headers["retry-after"]) <= 2


async def test_an_expired_key_runs_again(client):
    s = await shop()
    body = order_body(s.customer.id)
    first = await create(client, s.auth, body, **{KEY: "old"})
    assert first.status_code == 201
    past = clock.now() - dt.timedelta(hours=25)
    await IdempotencyKey.update(
        {IdempotencyKey.created_at: past, IdempotencyKey.expires_at: past + dt.timedelta(hours=24)}
    ).where(IdempotencyKey.key == "old")
    again = await create(client, s.auth, body, **{KEY: "old"})
    assert again.status_code == 201
    assert "idempotent-replayed" not in again.headers
    assert again.json()["id"] != first.json()["id"]
    assert await IdempotencyKey.count() == 1


async def test_keys_belong_to_one_user(client):
    s = await shop()
    colleague = await factories.user(s.ws)
    colleague_auth = {"Authorization": f"Bearer {await factories.token(colleague)}"}
    body = order_body(s.customer.id)
    assert (await create(client, s.auth, body, **{KEY: "shared"})).status_code == 201
    response = await create(client, colleague_auth, body, **{KEY: "shared"})
    assert response.status_code == 201
    assert "idempotent-replayed" not in response.headers
    assert await Order.count() == 2
    # Another token of the same user shares the user's keys.
    second_token = {"Authorization": f"Bearer {await factories.token(s.user)}"}
    replay = await create(client, second_token, body, **{KEY: "shared"})
    assert replay.headers["idempotent-replayed"] == "true"
    assert await Order.count() == 2


async def test_a_failed_first_request_keeps_nothing_and_can_be_retried(client):
    s = await shop(open_order_limit=1)
    assert (await create(client, s.auth, order_body(s.customer.id))).status_code == 201
    body = order_body(s.customer.id)
    refused = await create(client, s.auth, body, **{KEY: "retry-me"})
    assert refused.status_code == 422
    assert await IdempotencyKey.count() == 0
    await Workspace.update({Workspace.open_order_limit: 2}).where(Workspace.id == s.ws.id)
    retried = await create(client, s.auth, body, **{KEY: "retry-me"})
    assert retried.status_code == 201
    assert "idempotent-replayed" not in retried.headers


async def test_a_validation_failure_keeps_nothing(client):
    s = await shop()
    response = await create(client, s.auth, {"customer_id": "x"}, **{KEY: "bad"})
    assert response.status_code == 422
    assert await IdempotencyKey.count() == 0


async def test_a_crash_midway_releases_the_key(client):
    """The create fails after drawing a clashing number (500): the key is free again."""
    s = await shop()
    clash = await factories.order(s.ws, s.customer)
    await Order.update({Order.number: f"ORD-{clock.now().year}-0001"}).where(Order.id == clash.id)
    body = order_body(s.customer.id)
    assert (await create(client, s.auth, body, **{KEY: "crash"})).status_code == 500
    assert await IdempotencyKey.count() == 0


async def test_a_retried_advance_moves_once_and_replays(client):
    s = await shop()
    order_id = (await create(client, s.auth, order_body(s.customer.id))).json()["id"]
    first = await advance(client, s.auth, order_id, "dispatched", headers={KEY: "ship-1"})
    assert first.status_code == 200
    retry = await advance(client, s.auth, order_id, "dispatched", headers={KEY: "ship-1"})
    assert retry.status_code == 200
    assert retry.content == first.content
    assert retry.headers["idempotent-replayed"] == "true"
    assert "location" not in retry.headers
    assert await StageChange.count() == 2
    # Without the key the same request is a new one, and the policy refuses it.
    again = await advance(client, s.auth, order_id, "dispatched")
    assert again.status_code == 422


async def test_a_replay_is_the_first_response_not_the_current_state(client):
    s = await shop()
    order_id = (await create(client, s.auth, order_body(s.customer.id))).json()["id"]
    first = await advance(client, s.auth, order_id, "print_queue", headers={KEY: "pq"})
    await advance(client, s.auth, order_id, "qc_pack")
    replay = await advance(client, s.auth, order_id, "print_queue", headers={KEY: "pq"})
    assert replay.json()["stage"] == "print_queue"
    assert replay.content == first.content
    current = await client.get(f"/api/v1/orders/{order_id}", headers=s.auth)
    assert current.json()["stage"] == "qc_pack"


async def test_the_same_key_on_another_order_is_a_different_request(client):
    s = await shop()
    a = (await create(client, s.auth, order_body(s.customer.id))).json()["id"]
    b = (await create(client, s.auth, order_body(s.customer.id))).json()["id"]
    assert (await advance(client, s.auth, a, "qc_pack", headers={KEY: "q"})).status_code == 200
    response = await advance(client, s.auth, b, "qc_pack", headers={KEY: "q"})
    assert response.status_code == 422
    assert list(response.json()["errors"]) == [KEY]


async def test_a_taken_over_claim_cannot_complete(backend):
    """If a request presumed dead was only slow, its late completion must roll back."""
    ws = await factories.workspace()
    user = await factories.user(ws)
    first = await idempotency.claim(user.id, "slow", "h" * 64)
    assert isinstance(first, idempotency.Claim)
    old = clock.now() - idempotency.lease() - dt.timedelta(seconds=1)
    await IdempotencyKey.update({IdempotencyKey.created_at: old}).where(
        IdempotencyKey.id == first.row_id
    )
    stale = idempotency.Claim(first.row_id, old)
    second = await idempotency.claim(user.id, "slow", "h" * 64)
    assert isinstance(second, idempotency.Claim)
    with pytest.raises(ConflictError):
        async with db.transaction():  # complete() runs in the change's transaction
            await idempotency.complete(stale, status=201, body="{}", location=None)
    await idempotency.release(stale)  # a stale owner cannot drop the new claim either
    async with db.transaction():
        await idempotency.complete(second, status=201, body="{}", location=None)
    stored = await idempotency.claim(user.id, "slow", "h" * 64)
    assert stored == idempotency.StoredResponse(status=201, body="{}", location=None)


async def test_an_abandoned_key_keeps_its_request(backend):
    ws = await factories.workspace()
    user = await factories.user(ws)
    first = await idempotency.claim(user.id, "k", "a" * 64)
    assert isinstance(first, idempotency.Claim)
    old = clock.now() - idempotency.lease() - dt.timedelta(seconds=1)
    await IdempotencyKey.update({IdempotencyKey.created_at: old}).where(
        IdempotencyKey.id == first.row_id
    )
    with pytest.raises(InvalidFields):
        await idempotency.claim(user.id, "k", "b" * 64)


async def test_purge_removes_only_expired_keys(backend):
    ws = await factories.workspace()
    user = await factories.user(ws)
    now = clock.now()
    for key, expires in (
        ("gone", now - dt.timedelta(seconds=1)),
        ("kept", now + dt.timedelta(hours=1)),
    ):
        await IdempotencyKey(
            user=user.id, key=key, request_hash="x", status="completed", expires_at=expires
        ).save()
    assert await idempotency.purge_expired(now) == 1
    assert [r["key"] for r in await IdempotencyKey.select(IdempotencyKey.key)] == ["kept"]


async def test_a_replay_stored_by_an_earlier_version_goes_back_as_stored(client):
    """An order answer kept under a key before its detail gained fields is replayed as it was
    stored, without an ETag (a GET gives the current one), never a 500."""
    s = await shop()
    first = await create(client, s.auth, order_body(s.customer.id))
    order_id = first.json()["id"]
    path = f"/api/v1/orders/{order_id}"
    raw = json.dumps({"notes": "gift wrap"}).encode()
    claimed = await idempotency.claim(s.user.id, "old-shape", request_hash("PATCH", path, raw))
    assert isinstance(claimed, idempotency.Claim)
    old_body = json.dumps({"id": order_id, "stage": "artwork"})
    async with db.transaction():
        await idempotency.complete(claimed, status=200, body=old_body, location=None)
    headers = {**s.auth, KEY: "old-shape", "Content-Type": "application/json"}
    answer = await client.patch(path, content=raw, headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.text == old_body
    assert answer.headers["idempotent-replayed"] == "true"
    assert "etag" not in answer.headers
