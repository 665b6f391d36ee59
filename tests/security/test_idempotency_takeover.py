"""A keyed POST whose web process is killed mid-request: its key is not stuck.
The retry, answered by another web process, gets 409 with Retry-After; once the lease ends the
retry creates the order afresh; never two orders."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import httpx
import pytest

from models import idempotency
from models.settings import Settings
from models.tables import IdempotencyKey, Order
from tests.api.order_helpers import create, order_body, shop
from tests.security.processes import web_process

LEASE = 10  # seconds (IDEMPOTENCY_LEASE for these tests; the default is 60)
KEY = {"Idempotency-Key": "order-7f3a"}


def test_the_lease_is_60_seconds_by_default() -> None:
    assert Settings().idempotency_lease == 60


async def _poll(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not await condition():
        assert time.monotonic() < deadline, f"{what} within {seconds} s"
        await asyncio.sleep(0.05)


async def _until_created(base: str, s, body) -> tuple[list[httpx.Response], httpx.Response]:
    """Retry as a client would, honouring Retry-After, until the order is created."""
    busy: list[httpx.Response] = []
    deadline = time.monotonic() + LEASE + 10
    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        while True:
            answer = await create(client, s.auth, body, **KEY)
            if answer.status_code != 409:
                return busy, answer
            busy.append(answer)
            assert time.monotonic() < deadline, "the key was not taken over in time"
            await asyncio.sleep(int(answer.headers["retry-after"]))  # as told


@pytest.mark.slow
@pytest.mark.postgres_only(reason="a PostgreSQL row lock holds the create half-way")
async def test_a_killed_process_leaves_no_stuck_key_and_no_second_order(
    backend: str, tmp_path
) -> None:
    s = await shop()
    body = order_body(s.customer.id)
    log = tmp_path / "web.log"
    lease = {"IDEMPOTENCY_LEASE": str(LEASE)}
    # The replacement process is up before the first is killed, as a platform restarting a
    # crashed process would have it (a cold start here can take longer than the lease).
    with web_process(backend, log, **lease) as replacement:
        # Hold the workspace row the create locks, so the request stops after claiming its key.
        holder = await asyncpg.connect(backend)
        try:
            holder_tx = holder.transaction()
            await holder_tx.start()
            await holder.execute("SELECT id FROM workspaces WHERE id = $1 FOR UPDATE", s.ws.id)
            with web_process(backend, log, **lease) as first:
                client = httpx.AsyncClient(base_url=first.base, timeout=30)
                running = asyncio.create_task(create(client, s.auth, body, **KEY))

                async def claimed_and_waiting() -> bool:
                    rows = await IdempotencyKey.count().where(IdempotencyKey.status == "running")
                    waiting = await holder.fetchval(
                        "SELECT count(*) FROM pg_locks WHERE NOT granted"
                    )
                    return rows == 1 and waiting > 0

                await _poll(claimed_and_waiting, 15, "the keyed POST claimed its key and waited")
                first.kill()
                with pytest.raises(httpx.TransportError):
                    await running
                await client.aclose()
            await holder_tx.rollback()
        finally:
            await holder.close()
        assert await Order.count() == 0
        assert await IdempotencyKey.count().where(IdempotencyKey.status == "running") == 1

        busy, created = await _until_created(replacement.base, s, body)
        assert busy, "the retry right after the kill is told to wait"
        assert len(busy) <= LEASE + 1  # told a second at a time until the lease ended
        for answer in busy:
            assert answer.json() == {
                "message": "A request with this Idempotency-Key is still being processed; "
                "retry in 1 second.",
                "code": "idempotency_in_progress",
                "details": {},
            }
            assert answer.headers["retry-after"] == "1"
        assert created.status_code == 201, created.text
        assert "idempotent-replayed" not in created.headers
        async with httpx.AsyncClient(base_url=replacement.base, timeout=10) as client:
            again = await create(client, s.auth, body, **KEY)
    assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
    assert again.json() == created.json()
    assert await Order.count() == 1


async def test_a_claim_left_by_a_dead_request_is_taken_over_after_its_lease(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same on both engines, in-process: a claim whose request never finished (its process
    died after claiming) is refused with `Retry-After: 1` until its lease ends, then taken
    over by a retry that did as Retry-After said."""
    monkeypatch.setenv("IDEMPOTENCY_LEASE", "2")
    s = await shop()
    body = order_body(s.customer.id)
    from api.idempotency import request_hash

    fingerprint = request_hash(
        "POST", "/api/v1/orders", httpx.Request("POST", "/", json=body).content
    )
    dead = await idempotency.claim(s.user.id, KEY["Idempotency-Key"], fingerprint)
    assert isinstance(dead, idempotency.Claim)
    refused: list[httpx.Response] = []
    deadline = time.monotonic() + 10
    while (answer := await create(client, s.auth, body, **KEY)).status_code == 409:
        refused.append(answer)
        assert answer.headers["retry-after"] == "1"
        assert time.monotonic() < deadline, "the key was not taken over in time"
        await asyncio.sleep(1)  # as Retry-After said
    assert refused, "the retry right after the claim is told to wait"
    assert answer.status_code == 201, answer.text
    assert await Order.count() == 1


async def test_the_openapi_schema_documents_retry_after_on_409(client: httpx.AsyncClient) -> None:
    schema = (await client.get("/schema/openapi.json")).json()
    conflicts = [
        operation["responses"]["409"]
        for item in schema["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "409" in operation.get("responses", {})
    ]
    assert conflicts, "the keyed POSTs document their 409"
    for conflict in conflicts:
        header = conflict["headers"]["Retry-After"]
        assert header["required"] is True and header["schema"]["type"] == "integer"
        assert header["schema"]["enum"] == [1]
        assert header["description"].startswith("Always 1")
