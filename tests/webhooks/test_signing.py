"""Standard Webhooks signatures: the official `standardwebhooks` package verifies what an attempt
carries with the secret as shown; tampering fails; a rotation's overlap verifies with both."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import time

import pytest
from aiohttp import web
from standardwebhooks import Webhook, WebhookVerificationError

from models import clock
from models.tables import WebhookSubscription
from models.webhooks import signing, subscriptions
from tests.daemon import support
from tests.daemon.support import FakeClock, Receiver

BODY = b'{"event":"invoice.paid","event_id":"e-1","total":1250}'
WEBHOOK_ID = "dlv_abcdefghijklmnopqrstuvwxyz"


def _signed(secret: str, timestamp: int) -> dict[str, str]:
    """The headers of an `invoice.paid` attempt of BODY, signed with `secret` at `timestamp`."""
    return signing.headers(
        event="invoice.paid",
        secret=secret,
        body=BODY,
        webhook_id=WEBHOOK_ID,
        workspace_id=3,
        attempt=1,
        timestamp=timestamp,
    )


def test_new_secrets_are_whsec_and_base64_of_32_random_bytes():
    secret = signing.new_secret()
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 32
    assert signing.new_secret() != secret


def test_standardwebhooks_verifies_with_the_secret_as_shown():
    secret = signing.new_secret()
    now = int(time.time())
    headers = _signed(secret, now)
    assert Webhook(secret).verify(BODY, headers) == {
        "event": "invoice.paid",
        "event_id": "e-1",
        "total": 1250,
    }
    # The same check in the standard library, as docs/webhooks.md shows it.
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{WEBHOOK_ID}.{now}.".encode() + BODY
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    assert headers["webhook-signature"] == f"v1,{expected}"
    # Secrets issued before (whsec_ + hex) verify too: the hex text decodes as base64.
    legacy = "whsec_" + "ab" * 32
    old = _signed(legacy, now)
    Webhook(legacy).verify(BODY, old)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("body", BODY.replace(b"1250", b"1251")),
        ("webhook-id", "dlv_abcdefghijklmnopqrstuvwxy2"),
        ("webhook-timestamp", "shift"),
    ],
)
def test_a_tampered_body_id_or_timestamp_fails(field: str, value: object):
    secret = signing.new_secret()
    now = int(time.time())
    headers = _signed(secret, now)
    body = BODY
    if field == "body":
        body = value  # type: ignore[assignment]
    elif field == "webhook-timestamp":
        headers[field] = str(now - 1)
    else:
        headers[field] = str(value)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(body, headers)


def test_an_old_timestamp_is_refused_by_the_library():
    secret = signing.new_secret()
    stale = int(time.time()) - signing.REPLAY_WINDOW_SECONDS - 60
    headers = _signed(secret, stale)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(BODY, headers)


async def test_during_a_rotation_both_secrets_verify_and_after_it_only_the_new(
    make_dispatcher, receiver: Receiver, fake_clock: FakeClock
):
    seen: list[dict[str, str]] = []

    async def keep(request: web.Request, _: int) -> web.Response:
        seen.append(dict(request.headers))
        return web.Response(text="ok")

    receiver.behaviour = keep
    ws = await support.workspace()
    first, _ = await subscriptions.create(ws.id, receiver.url())
    old = (await WebhookSubscription.select().where(WebhookSubscription.id == first["id"]))[0][
        "secret"
    ]
    row, new = await subscriptions.rotate_secret(first["id"], overlap_hours=1)
    assert row["previous_secret_until"] is not None
    sub = await support.load_subscription(WebhookSubscription(id=first["id"]))
    receiver.secret = new  # X-SVC-Signature carries the new secret's
    await support.queued(ws, sub)
    await make_dispatcher().run_once()

    [request] = [received for received in receiver.requests]
    body, headers = request.body, request.headers
    assert request.signature_ok
    assert len(headers["webhook-signature"].split(" ")) == 2
    Webhook(new).verify(body, headers)
    Webhook(old).verify(body, headers)
    previous = "sha256=" + hmac.new(old.encode(), body, hashlib.sha256).hexdigest()
    assert headers["X-SVC-Signature-Previous"] == previous

    # After the overlap: the old secret no longer signs, and housekeeping erases it.
    fake_clock.advance(2 * 3600)
    await support.queued(ws, sub)
    await make_dispatcher().run_once()
    last = receiver.requests[-1]
    Webhook(new).verify(last.body, last.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(old).verify(last.body, last.headers)
    assert "X-SVC-Signature-Previous" not in last.headers
    assert await subscriptions.erase_expired_secrets(clock.now() + dt.timedelta(hours=2)) == 1
    erased = await support.load_subscription(sub)
    assert (erased.previous_secret, erased.previous_secret_expires_at) == (None, None)
