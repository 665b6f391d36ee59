"""`python -m daemon` as real processes sending email: SIGKILL mid-send, two workers (started
by the `spawn` fixture of tests/e2e/test_worker_processes.py)."""

from __future__ import annotations

import asyncio
import signal
from collections import Counter

import pytest

from models.actors import OPERATOR
from models.stage_moves import advance_order
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
