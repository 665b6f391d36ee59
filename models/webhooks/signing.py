"""What every attempt carries: the spec's headers and the Standard Webhooks ones (docs/webhooks.md).

Two signatures of one attempt:
- `X-SVC-Signature` (the spec's): `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the
  secret string exactly as shown (`whsec_…`, UTF-8), as receivers written before rotation do;
- `webhook-signature` (Standard Webhooks): `v1,` + base64 HMAC-SHA256 of
  `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64 decoding of the part after
  `whsec_`, which is how the official `standardwebhooks` libraries read the secret as shown.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from functools import lru_cache

USER_AGENT = "Service-Webhooks/1.0"
SECRET_PREFIX = "whsec_"  # noqa: S105 - the form of a secret, not one
SECRET_BYTES = 32
REPLAY_WINDOW_SECONDS = 300  # receivers refuse a webhook-timestamp older than this
_KEYS_KEPT = 4096  # secrets whose keyed HMAC state is kept ready


def new_secret() -> str:
    """`whsec_` + base64 of 32 random bytes: the form Standard Webhooks libraries take."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def standard_key(secret: str) -> bytes:
    """The Standard Webhooks key: base64-decoded after `whsec_`, as the official libraries do
    (non-alphabet characters ignored). Secrets issued before were `whsec_` + hex, which decodes
    too; a hand-made secret that is not base64 at all signs with its UTF-8 bytes."""
    text = secret.removeprefix(SECRET_PREFIX)
    try:
        return base64.b64decode(text)
    except (binascii.Error, ValueError):
        return text.encode("utf-8")


@lru_cache(maxsize=_KEYS_KEPT)
def _keyed(key: bytes) -> hmac.HMAC:
    """HMAC-SHA256 with the key already absorbed; each signature starts from a copy of it."""
    return hmac.new(key, digestmod=hashlib.sha256)


@lru_cache(maxsize=_KEYS_KEPT)
def _standard_keyed(secret: str) -> hmac.HMAC:
    return _keyed(standard_key(secret))


def signature(secret: str, body: bytes) -> str:
    """`X-SVC-Signature`: `sha256=` + lowercase hex HMAC-SHA256 of the raw body."""
    mac = _keyed(secret.encode("utf-8")).copy()
    mac.update(body)
    return "sha256=" + mac.hexdigest()


def standard_signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """One `webhook-signature` entry: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`."""
    mac = _standard_keyed(secret).copy()
    mac.update(f"{message_id}.{timestamp}.".encode())
    mac.update(body)
    return "v1," + base64.b64encode(mac.digest()).decode()


def headers(
    *,
    event: str,
    secret: str,
    body: bytes,
    webhook_id: str,
    workspace_id: int,
    attempt: int,
    timestamp: int,
    previous_secret: str | None = None,
) -> dict[str, str]:
    """The header set of one attempt. `webhook_id` is the delivery's public id (`dlv_…`,
    models/delivery_ids.py): `webhook-id` and `X-SVC-Delivery`, the same on every attempt of
    the delivery, and signed. `X-SVC-Workspace` names the workspace the event belongs to.
    During a rotation's overlap `previous_secret` signs too: `webhook-signature` lists the new
    then the old, `X-SVC-Signature-Previous` carries the old."""
    message_id = webhook_id
    standard = standard_signature(secret, message_id, timestamp, body)
    result = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-SVC-Event": event,
        "X-SVC-Signature": signature(secret, body),
        "X-SVC-Delivery": message_id,
        "X-SVC-Workspace": str(workspace_id),
        "X-SVC-Attempt": str(attempt),
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": standard,
    }
    if previous_secret:
        old = standard_signature(previous_secret, message_id, timestamp, body)
        result["webhook-signature"] = f"{standard} {old}"
        result["X-SVC-Signature-Previous"] = signature(previous_secret, body)
    return result
