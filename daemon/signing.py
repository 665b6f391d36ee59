"""The signature and headers every delivery carries (docs/webhooks.md)."""

from __future__ import annotations

import hashlib
import hmac

USER_AGENT = "Service-Webhooks/1.0"


def signature(secret: str, body: bytes) -> str:
    """`sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the secret."""
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


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
