"""`python -m daemon` as real processes sending email: SIGKILL mid-send and mid-drain, two
workers (started by the `spawn` fixture of tests/e2e/test_worker_processes.py)."""

from __future__ import annotations

import asyncio
import signal
from collections import Counter

import pytest

from models import clock
from models.actors import OPERATOR
from models.orders.stage_moves import advance_order
from models.tables import CustomerMessage
from tests import factories
from tests.api.order_helpers import shop
from tests.mail.smtp_server import MailServer


async def _queue_moves(count: int) -> None:
    s = await shop()
    for _ in range(count):
        order = await factories.order(s.ws, s.customer)
        await advance_order(
            actor=OPERATOR, workspace_id=s.ws.id, order_id=order.id, to_stage="in_production"
        )


async def _all_sent(count: int, seconds: float = 30.0) -> None:
    async with asyncio.timeout(seconds):
        while True:
            if await CustomerMessage.count().where(CustomerMessage.status == "sent") >= count:
                return
            await asyncio.sleep(0.1)


async def test_a_worker_killed_mid_send_leaves_the_message_to_the_next(spawn, smtp: MailServer):
    hang, first_data = asyncio.Event(), asyncio.Event()

    async def hang_first(n: int) -> str:
        if n == 1:
            first_data.set()
            await hang.wait()  # the worker is killed while waiting for this reply
        return "250 OK"

    smtp.behaviour = hang_first
    await _queue_moves(1)
    settings = {"SMTP_URL": smtp.url, "WEBHOOK_TIMEOUT": "1.5", "WEBHOOK_LEASE": "3"}
    worker = await spawn(**settings)
    await worker.started()
    try:
        async with asyncio.timeout(20):
            await first_data.wait()
    except TimeoutError:
        pytest.fail("the worker never sent the message:\n" + worker.output())
    worker.process.send_signal(signal.SIGKILL)
    await worker.process.wait()
    row = await CustomerMessage.select().first()
    assert row["status"] == "queued" and row["leased_by"] is not None

    await (await spawn(**settings)).started()
    await _all_sent(1)
    await smtp.wait_for(1)
    row = await CustomerMessage.select().first()
    assert smtp.message_ids() == [row["message_id"]]
    assert smtp.attempts == 2
    hang.set()


async def test_two_workers_send_each_message_once(spawn, smtp: MailServer):
    async def quick(n: int) -> str:
        await asyncio.sleep(0.003 * (n % 4))
        return "250 OK"

    smtp.behaviour = quick
    for _ in range(2):
        await (await spawn(SMTP_URL=smtp.url, MAIL_CONCURRENCY="3")).started()
    for _ in range(4):  # in waves, so both workers are claiming at the same time
        await _queue_moves(15)
        await asyncio.sleep(0.1)
    await _all_sent(60)
    await smtp.wait_for(60)
    ids = await CustomerMessage.select(CustomerMessage.message_id)
    assert Counter(smtp.message_ids()) == Counter({row["message_id"]: 1 for row in ids})
    assert smtp.attempts == 60


async def _queue_rows(count: int) -> list[str]:
    """`count` queued messages, due now, in one insert; their Message-IDs in claim order."""
    s = await shop()
    order = await factories.order(s.ws, s.customer)
    now = clock.now()
    rows = [
        CustomerMessage(
            workspace=s.ws.id, order=order.id, customer=s.customer.id, contact=s.contact.id,
            kind="order.in_production", subject=f"Message {n}", body="Hello", status="queued",
            recipient=f"customer{n}@example.com", from_name="Shop",
            message_id=f"<crash-{n:03d}@test.example>", next_attempt_at=now, created_at=now,
            updated_at=now,
        )
        for n in range(count)
    ]  # fmt: skip
    await CustomerMessage.insert(*rows)
    return [str(row.message_id) for row in rows]


async def test_a_worker_killed_mid_drain_sends_again_at_most_its_lanes_messages(
    spawn, smtp: MailServer
):
    """200 queued, SIGKILL while the server holds its 93rd message, a second worker sends the
    rest. Each of the 4 lanes (SMTP connections) sends one message at a time and records its outcome
    before taking the next, so when the worker dies each lane has at most one message the
    server may have accepted without the worker recording it: the server receives every
    message, none more than twice, at most 4 of them twice, and the held one (which the
    server accepted but the worker never heard of) exactly twice. With outcomes recorded per
    batch (32 rows at 4 lanes) the whole batch in flight was sent twice: 32 duplicates."""
    lanes, total, kill_at = 4, 200, 93
    reached, killed = asyncio.Event(), asyncio.Event()

    async def hold_the_93rd(n: int) -> None:
        if n == kill_at:  # accepted, but the worker is killed before it hears the 250
            reached.set()
            await killed.wait()

    smtp.before_reply = hold_the_93rd
    ids = await _queue_rows(total)
    settings = {
        "SMTP_URL": smtp.url,
        "MAIL_CONCURRENCY": str(lanes),
        "WEBHOOK_TIMEOUT": "2",
        "WEBHOOK_LEASE": "5",
    }
    first = await spawn(**settings)
    try:
        async with asyncio.timeout(60):
            await reached.wait()
    except TimeoutError:
        pytest.fail("the worker never reached the 93rd message:\n" + first.output())
    first.process.send_signal(signal.SIGKILL)
    await first.process.wait()
    killed.set()
    held = smtp.data_ids[kill_at]
    assert held in smtp.message_ids()

    await (await spawn(**settings)).started()
    await _all_sent(total, seconds=60)

    received = Counter(smtp.message_ids())
    assert set(received) == set(ids)  # every message arrived
    twice = {message_id for message_id, n in received.items() if n > 1}
    assert max(received.values()) == 2
    assert 1 <= len(twice) <= lanes, sorted(twice)
    assert held in twice
