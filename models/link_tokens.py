"""The tokens of the links customers are emailed (a proof's page, an invoice's page): 192 random
bits, URL-safe, stored only as their SHA-256 digest, so a copy of the database opens no page."""

from __future__ import annotations

import hashlib
import re
import secrets

TOKEN_BYTES = 24  # 192 bits: 32 characters
# What a token issued here (of this length or an older one) can look like: URL-safe base64.
# Anything else is not looked up at all.
_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,100}")


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def digest(token: str) -> str:
    """What is stored and looked up: the token's SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def plausible(token: str) -> bool:
    """Whether `token` could be one this module issued; anything else is unknown unread."""
    return _SHAPE.fullmatch(token) is not None
