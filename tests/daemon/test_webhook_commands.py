"""`pressline webhook ...`, run in-process on the test database (both engines)."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from models import clock
from models.tables import WebhookAttempt, WebhookSubscription
from tests import factories
from tests.daemon import support
from tests.daemon.support import FakeClock, Receiver

pytestmark = pytest.mark.usefixtures("backend")


async def test_create_shows_the_secret_and_stores_the_subscription(pressline):
    ws = await factories.workspace()
    customer = await factories.customer(ws)
    run = await pressline(
        "webhook", "create", "--workspace", ws.id, "--url", "https://hooks.example.com/in",
        "--events", "order.dispatched, invoice.paid", "--customer", customer.id, "--json",
    )  # fmt: skip
    assert run.code == 0, run.err
    data = run.data
    row = await WebhookSubscription.objects().where(WebhookSubscription.id == data["id"]).first()
    assert row is not None
    assert data["secret"] == row.secret and row.secret.startswith("whsec_")
    assert len(row.secret) > 40
    assert (row.events, row.customer, row.is_active) == (
        "invoice.paid,order.dispatched",
        customer.id,
        True,
    )

    human = await pressline("webhook", "create", "--workspace", ws.id, "--url", "http://a.test/")
    assert human.code == 0, human.err
    assert human.out.startswith("webhook subscription ")
    assert "(*)" in human.out and "\nsecret: whsec_" in human.out


async def test_create_refuses_bad_input_with_every_problem(pressline):
    ws, other = await factories.workspace(), await factories.workspace()
    run = await pressline(
        "--json", "webhook", "create", "--workspace", ws.id, "--url", "ftp://x",
        "--events", "order.created,*",
    )  # fmt: skip
    assert run.code == 1
    assert set(run.data["errors"]) == {"url", "events"}
    run = await pressline(
        "webhook", "create", "--workspace", ws.id, "--url", "http://x", "--events", "order.made"
    )
    assert run.code == 1
    assert "Unknown event order.made" in run.err and "artwork.approved" in run.err
    stranger = await factories.customer(other)
    run = await pressline(
        "webhook", "create", "--workspace", ws.id, "--url", "http://x", "--customer", stranger.id
    )
    assert run.code == 1 and f"Customer {stranger.id} not found" in run.err
    run = await pressline("webhook", "create", "--workspace", 999999, "--url", "http://x")
    assert run.code == 1 and "Workspace 999999 not found" in run.err
    assert await WebhookSubscription.count() == 0


async def test_list_disable_enable(pressline):
    ws = await factories.workspace()
    sub = await support.subscription(ws, "https://hooks.example.com/a")
    run = await pressline("webhook", "disable", sub.id, "--json")
    assert run.code == 0 and run.data["is_active"] is False
    run = await pressline("webhook", "list", "--workspace", ws.id)
    assert run.code == 0
    assert run.out.startswith(f"{sub.id}  https://hooks.example.com/a  events=*  inactive since")
    assert "(disabled by an operator)" in run.out
    run = await pressline("webhook", "enable", sub.id, "--json")
    assert run.code == 0 and run.data["is_active"] is True and run.data["requeued"] == 0
    run = await pressline("webhook", "list", "--workspace", ws.id, "--json")
    assert [s["id"] for s in run.data["subscriptions"]] == [sub.id]
    assert "secret" not in run.data["subscriptions"][0]
    run = await pressline("webhook", "enable", 424242)
    assert run.code == 1 and "Webhook subscription 424242 not found" in run.err
    run = await pressline("webhook", "list", "--workspace", ws.id + 1000)
    assert run.out.strip() == "no webhook subscriptions"


async def test_deliveries_attempts_and_redeliver(
    pressline, make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    await make_dispatcher().run_once()

    run = await pressline("webhook", "deliveries", sub.id, "--json")
    [row] = run.data["deliveries"]
    assert (row["id"], row["status"], row["attempts"], row["last_status_code"]) == (
        d.id,
        "succeeded",
        1,
        200,
    )
    human = await pressline("webhook", "deliveries", sub.id)
    assert human.out.startswith(f"{d.id}  order.stage_changed  succeeded  attempts=1")

    run = await pressline("webhook", "attempts", d.id, "--json")
    [attempt] = run.data["attempts"]
    assert attempt["status_code"] == 200 and json.loads(attempt["response_body"]) == {"ok": True}
    human = await pressline("webhook", "attempts", d.id)
    assert human.out.startswith("#1  ") and "HTTP 200  body 12 bytes" in human.out

    run = await pressline("webhook", "redeliver", d.id, "--json")
    assert run.code == 0 and run.data["status"] == "pending" and run.data["attempts"] == 0
    fake_clock.advance(1)
    await make_dispatcher().run_once()
    assert receiver.deliveries() == [d.public_id, d.public_id]  # a redelivery: the same id

    run = await pressline("webhook", "attempts", 999999)
    assert run.code == 1 and "Webhook delivery 999999 not found" in run.err


async def test_redeliver_refuses_a_delivery_being_sent_or_of_an_inactive_subscription(
    pressline,
):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    [d] = await support.queued(
        ws, sub, leased_by="w", lease_expires_at=clock.now() + dt.timedelta(minutes=1)
    )
    run = await pressline("webhook", "redeliver", d.id)
    assert run.code == 1 and "is being sent right now" in run.err
    off = await support.subscription(ws, "http://127.0.0.1:9/off", is_active=False)
    [done] = await support.queued(ws, off, status="failed", attempts=5)
    run = await pressline("webhook", "redeliver", done.id)
    assert run.code == 1 and f"Subscription {off.id} is inactive" in run.err
    assert "Re-enable the subscription first" in run.err
    assert (await support.load(done)).status == "failed"


async def test_rotate_secret_and_test_event(pressline, make_dispatcher, receiver: Receiver):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url(), events="invoice.paid")
    run = await pressline("webhook", "rotate-secret", sub.id, "--overlap-hours", "2", "--json")
    assert run.code == 0, run.err
    new = run.data["secret"]
    assert new.startswith("whsec_") and new in run.out and run.data["previous_secret_until"]
    row = await support.load_subscription(sub)
    assert (row.secret, row.previous_secret) == (new, support.SECRET)
    too_long = await pressline("webhook", "rotate-secret", sub.id, "--overlap-hours", "169")
    assert too_long.code == 2

    receiver.secret = new
    run = await pressline("webhook", "test", sub.id, "--json")
    assert run.code == 0, run.err
    await make_dispatcher().run_once()
    [got] = receiver.requests
    body = json.loads(got.body)
    assert body["event"] == "webhook.test" and body["subscription_id"] == sub.id
    assert set(body) == {"event", "event_id", "occurred_at", "workspace_id", "subscription_id"}
    assert body["workspace_id"] == ws.id and got.headers["X-SVC-Workspace"] == str(ws.id)
    assert got.headers["webhook-id"] == run.data["webhook_id"]
    assert got.headers["X-SVC-Signature-Previous"].startswith("sha256=")
    assert len(got.headers["webhook-signature"].split(" ")) == 2
    assert (await support.load_subscription(sub)).consecutive_failures == 0

    none = await pressline("webhook", "rotate-secret", sub.id, "--overlap-hours", "0", "--json")
    row = await support.load_subscription(sub)
    assert (row.secret, row.previous_secret) == (none.data["secret"], None)


async def test_enable_requeue_since_takes_an_iso_time(pressline):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook", is_active=False)
    await support.queued(ws, sub, status="skipped")
    run = await pressline("webhook", "enable", sub.id, "--requeue-since", "2000-01-01T00:00:00Z")
    assert run.code == 0, run.err
    assert run.out.strip().endswith("1 failed or skipped delivery queued again")
    usage = await pressline("webhook", "enable", sub.id, "--requeue-since", "yesterday")
    assert usage.code == 2 and "expected an ISO 8601 date-time" in usage.err


async def test_attempts_are_numbered_across_redeliveries_with_headers_as_objects(
    pressline, make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    ws = await support.workspace()
    sub = await support.subscription(ws, receiver.url())
    [d] = await support.queued(ws, sub)
    await make_dispatcher().run_once()
    assert (await pressline("webhook", "redeliver", d.id)).code == 0
    fake_clock.advance(1)
    await make_dispatcher().run_once()

    run = await pressline("webhook", "attempts", d.id, "--json")
    attempts = run.data["attempts"]
    # Both rounds sent X-SVC-Attempt 1; the delivery's attempts still count 1, 2.
    assert [(a["number"], a["sent_as"]) for a in attempts] == [(1, 1), (2, 1)]
    stored = await WebhookAttempt.select(WebhookAttempt.number).where(
        WebhookAttempt.delivery == d.id
    )
    assert [row["number"] for row in stored] == [1, 1]
    for attempt in attempts:
        assert isinstance(attempt["response_headers"], dict)
        assert attempt["response_headers"]["Content-Type"].startswith("application/json")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", attempt["started_at"])
    human = await pressline("webhook", "attempts", d.id)
    numbered = [line.split()[0] for line in human.out.splitlines() if line.startswith("#")]
    assert numbered == ["#1", "#2"]
    assert '    {"ok":true}' in human.out or '    {"ok": true}' in human.out
    assert "+00:00" not in human.out and " UTC  " in human.out


async def test_attempts_show_the_response_body_cut_for_people(pressline):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    [d] = await support.queued(ws, sub, status="failed", attempts=1)
    body = "".join(f"line {n:04d} of the receiver's error page\n" for n in range(200))
    await WebhookAttempt(
        delivery=d.id, number=1, started_at=clock.now(), duration_ms=30, status_code=500,
        error="HTTP 500", response_headers='{"Content-Type": "text/plain", "X-Trace": "abc"}',
        response_body=body, response_length=len(body),
    ).save()  # fmt: skip
    run = await pressline("webhook", "attempts", d.id, "--json")
    [attempt] = run.data["attempts"]
    assert attempt["response_body"] == body  # whole
    assert attempt["response_headers"] == {"Content-Type": "text/plain", "X-Trace": "abc"}
    human = await pressline("webhook", "attempts", d.id)
    assert human.out.startswith("#1  ") and f"HTTP 500  body {len(body)} bytes" in human.out
    assert "line 0000 of the receiver's error page" in human.out
    assert "line 0199" not in human.out
    shown = f"… the first 2000 of {len(body)} characters shown; --json shows all of them"
    assert shown in human.out


async def test_deliveries_show_the_order_and_wait_for_re_enable(pressline):
    ws = await support.workspace()
    sub = await support.subscription(ws, "http://127.0.0.1:9/hook")
    customer = await factories.customer(ws)
    order = await factories.order(ws, customer)
    event = await support.event(ws, order=order.id)
    d = await support.delivery(event, sub, next_attempt_at=clock.now() + dt.timedelta(minutes=5))
    run = await pressline("webhook", "deliveries", sub.id, "--json")
    [row] = run.data["deliveries"]
    assert (row["order_number"], row["waiting_for_reenable"]) == (order.number, False)
    assert row["next_attempt_at"] is not None and row["next_attempt_at"].endswith("+00:00")
    human = await pressline("webhook", "deliveries", sub.id)
    assert human.out.startswith(f"{d.id}  order.stage_changed  pending  attempts=0")
    assert f"order={order.number}  next=20" in human.out and " UTC" in human.out

    await pressline("webhook", "disable", sub.id)
    run = await pressline("webhook", "deliveries", sub.id, "--json")
    [row] = run.data["deliveries"]
    assert row["waiting_for_reenable"] is True and row["next_attempt_at"] is None
    assert row["subscription_active"] is False
    human = await pressline("webhook", "deliveries", sub.id)
    assert "next=waiting for re-enable" in human.out
    await pressline("webhook", "enable", sub.id)
    run = await pressline("webhook", "deliveries", sub.id, "--json")
    assert run.data["deliveries"][0]["waiting_for_reenable"] is False
