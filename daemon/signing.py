"""The signature and headers every delivery carries (docs/webhooks.md)."""

from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache

USER_AGENT = "Service-Webhooks/1.0"
_KEYS_KEPT = 4096  # subscriptions whose keyed HMAC state is kept ready


@lru_cache(maxsize=_KEYS_KEPT)
def _keyed(secret: str) -> hmac.HMAC:
    """HMAC-SHA256 with the key already absorbed; each signature starts from a copy of it."""
    return hmac.new(secret.encode("utf-8"), digestmod=hashlib.sha256)


def signature(secret: str, body: bytes) -> str:
    """`sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the secret."""
    mac = _keyed(secret).copy()
    mac.update(body)
    return "sha256=" + mac.hexdigest()


def headers(
    *, event: str, secret: str, body: bytes, delivery_id: int, attempt: int
) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-SVC-Event": event,
        "X-SVC-Signature": signature(secret, body),
        "X-SVC-Delivery": str(delivery_id),
        "X-SVC-Attempt": str(attempt),
    }
