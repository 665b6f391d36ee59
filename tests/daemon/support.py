"""A real HTTP receiver on 127.0.0.1, a controllable clock, and outbox rows for daemon tests."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import hmac
import itertools
import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from daemon.claim import Limits
from models import clock
from models.tables import WebhookDelivery, WebhookEvent, WebhookSubscription, Workspace

SECRET = "whsec_test_0123456789abcdef"
_seq = itertools.count(1)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    signature_ok: bool


Behaviour = Callable[[web.Request, int], Awaitable[web.StreamResponse]]


async def ok(_: web.Request, __: int) -> web.StreamResponse:
    return web.json_response({"ok": True})


async def down(_: web.Request, __: int) -> web.StreamResponse:
    """A receiver that is down: every request fails with a server error."""
    return web.Response(status=503, text="down")


@dataclass
class Receiver:
    """An integrator's endpoint: verifies the signature with `hmac` (401 when wrong), records
    every request, and answers with `behaviour(request, n)` (n = 1 for its first request)."""

    secret: str = SECRET
    behaviour: Behaviour = ok
    requests: list[Received] = field(default_factory=list)
    base_url: str = ""
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def url(self, path: str = "/hook") -> str:
        return self.base_url + path

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        expected = "sha256=" + hmac.new(self.secret.encode(), body, hashlib.sha256).hexdigest()
        given = request.headers.get("X-SVC-Signature", "")
        signature_ok = hmac.compare_digest(expected, given)
        self.requests.append(Received(request.path, dict(request.headers), body, signature_ok))
        self.arrived.set()
        if not signature_ok:
            return web.json_response({"error": "bad signature"}, status=401)
        return await self.behaviour(request, len(self.requests))

    def deliveries(self) -> list[str]:
        """The delivery id (`X-SVC-Delivery`, a delivery's `public_id`) of every request."""
        return [r.headers["X-SVC-Delivery"] for r in self.requests]

    async def wait_for(self, count: int, seconds: float = 10.0) -> None:
        async with asyncio.timeout(seconds):
            while len(self.requests) < count:
                self.arrived.clear()
                await self.arrived.wait()


async def start_receiver(receiver: Receiver) -> web.AppRunner:
    app = web.Application()
    app.router.add_route("POST", "/{tail:.*}", receiver.handle)
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    receiver.base_url = f"http://{host}:{port}"
    return runner


class FakeClock:
    """`now()` for the daemon. It starts an hour ahead of real time, so rows written during a
    test (due "now" by the real clock, however slow the machine) are due for the daemon."""

    def __init__(self) -> None:
        self.value = clock.now() + dt.timedelta(hours=1)

    def __call__(self) -> dt.datetime:
        return self.value

    def advance(self, seconds: float) -> None:
        self.value += dt.timedelta(seconds=seconds)


# --- rows ----------------------------------------------------------------------------------


async def workspace() -> Workspace:
    row = Workspace(name=f"Hooks {next(_seq)}")
    await row.save()
    return row


async def subscription(
    ws: Workspace, url: str, *, events: str = "*", secret: str = SECRET, **fields: Any
) -> WebhookSubscription:
    row = WebhookSubscription(workspace=ws.id, url=url, events=events, secret=secret, **fields)
    await row.save()
    return row


def body_for(name: str, event_id: str, **fields: Any) -> str:
    return json.dumps(
        {"event": name, "event_id": event_id, "occurred_at": clock.iso(clock.now()), **fields},
        ensure_ascii=False,
        separators=(",", ":"),
    )


async def event(
    ws: Workspace, name: str = "order.stage_changed", body: str | None = None, **fields: Any
) -> WebhookEvent:
    event_id = str(uuid.uuid4())
    row = WebhookEvent(
        workspace=ws.id,
        event_id=event_id,
        name=name,
        body=body if body is not None else body_for(name, event_id, order_number="ORD-1"),
        **fields,
    )
    await row.save()
    return row


async def delivery(ev: WebhookEvent, sub: WebhookSubscription, **fields: Any) -> WebhookDelivery:
    row = WebhookDelivery(workspace=ev.workspace, event=ev.id, subscription=sub.id, **fields)
    await row.save()
    return row


async def queued(
    ws: Workspace, sub: WebhookSubscription, count: int = 1, **fields: Any
) -> list[WebhookDelivery]:
    """`count` events, each with one pending delivery for `sub`."""
    return [await delivery(await event(ws), sub, **fields) for _ in range(count)]


async def load(row: WebhookDelivery) -> WebhookDelivery:
    fresh = await WebhookDelivery.objects().where(WebhookDelivery.id == row.id).first()
    assert fresh is not None
    return fresh


async def load_subscription(row: WebhookSubscription) -> WebhookSubscription:
    fresh = await WebhookSubscription.objects().where(WebhookSubscription.id == row.id).first()
    assert fresh is not None
    return fresh


def limits(room: int = 10, per_subscription: int = 1000, deactivate_after: int = 20) -> Limits:
    """What a claim may take (daemon/claim.py); by default no per-subscription cap to speak of."""
    return Limits(room=room, per_subscription=per_subscription, deactivate_after=deactivate_after)
