"""The feed's `data` is, byte for byte, the body a real receiver got for the same event."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from daemon.dispatch import Dispatcher, open_session
from models.tables import Customer
from tests.api.order_helpers import shop
from tests.api.test_events import every_event
from tests.daemon import support
from tests.daemon.conftest import config
from tests.daemon.support import FakeClock, Receiver, start_receiver


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    rec = Receiver()
    runner = await start_receiver(rec)
    yield rec
    await runner.cleanup()


async def test_data_is_the_delivered_body_byte_for_byte(client, backend, receiver: Receiver):
    s = await shop()
    # Text a re-encoding could change (escapes, non-ASCII) travels in the order events.
    await Customer.update({Customer.name: 'Café "Ünïcode" \\ </b>'}).where(
        Customer.id == s.customer.id
    )
    await support.subscription(s.ws, receiver.url(), events="*")
    await every_event(client, s)
    cfg = config()
    dispatcher = Dispatcher(cfg, open_session(cfg), worker="test", now=FakeClock())
    try:
        await dispatcher.run_once()
    finally:
        await dispatcher.close()
    assert len(receiver.requests) == 10  # every_event: an order's whole life, payment included
    assert all(r.signature_ok for r in receiver.requests)

    listed = await client.get("/api/v1/events", headers=s.auth)

    assert listed.status_code == 200, listed.text
    for received in receiver.requests:
        spliced = b'"data":' + received.body + b"}"
        assert spliced in listed.content
        row = next(r for r in listed.json()["data"] if r["id"].encode() in received.body)
        detail = await client.get(f"/api/v1/events/{row['id']}", headers=s.auth)
        assert detail.status_code == 200
        assert detail.content.endswith(spliced)
        assert row["type"] == received.headers["X-SVC-Event"]
