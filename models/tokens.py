"""Personal access tokens: generated once, stored only as a SHA-256 digest."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from models import clock
from models.tables import ApiToken

TOKEN_PREFIX = "plk_"  # noqa: S105 - a public marker, not a secret
DEFAULT_LIFETIME = dt.timedelta(days=365)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def generate() -> str:
    # 32 random bytes = 256 bits; the prefix lets secret scanners recognise leaked tokens.
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


async def create_token(
    *,
    workspace_id: int,
    user_id: int,
    name: str = "",
    expires_at: dt.datetime | None = None,
) -> tuple[ApiToken, str]:
    """Create a token row; returns it with the clear token, which is never stored."""
    token = generate()
    row = ApiToken(
        workspace=workspace_id,
        user=user_id,
        name=name,
        digest=digest(token),
        prefix=token[:8],
        created_at=clock.now(),
        expires_at=expires_at or clock.now() + DEFAULT_LIFETIME,
    )
    await row.save()
    return row, token
