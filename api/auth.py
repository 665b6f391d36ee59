"""Bearer-token authentication, in the check order of docs/api.md §2.2: 401 → 403 → 422.

The token is looked up by its SHA-256 digest (an indexed equality, so no comparison of
secrets happens in Python), then the user and the workspace's plan are checked on every
request, so revocation, deactivation and downgrades take effect on the next call.
"""

from __future__ import annotations

import datetime as dt

import msgspec

from api.errors import Forbidden, Refused, Unauthorized
from models import accounts, clock, plans, statements, token_use, tokens
from models.errors import ErrorCode
from models.queries.auth import PrincipalRow, token_principal


class Principal(msgspec.Struct, frozen=True):
    """Who is calling: the user and the workspace every query is scoped to."""

    user_id: int
    name: str
    email: str
    workspace_id: int
    timezone: str
    currency: str
    token_id: int
    workspace_name: str
    tax_rate: str  # two decimals, as the API shows percentages
    require_artwork_approval: bool
    role: str = "owner"  # the token's user's (models.members): owner | staff


def bearer_token(header: str) -> str:
    """The token of an Authorization header's value ("" when the header is missing)."""
    scheme, _, value = header.partition(" ")
    if not header:
        raise Unauthorized("Missing bearer token: send 'Authorization: Bearer <token>'")
    if scheme.lower() != "bearer" or not value.strip():
        raise Unauthorized("Malformed Authorization header: expected 'Bearer <token>'")
    return value.strip()


async def authenticate(token: str) -> Principal:
    row = await token_principal(tokens.digest(token))
    now = clock.now()
    if row is None:
        raise Unauthorized("Invalid token")
    principal = admit(row, now)
    token_use.note(row.token_id, now)  # in memory; written once a minute (models/token_use.py)
    return principal


def admit(row: PrincipalRow, now: dt.datetime) -> Principal:
    """The checks of docs/api.md §2.2 on a found token, in order (revoked, expired: 401;
    deactivated user: 403; plan without API access: 422)."""
    if row.revoked_at is not None:
        raise Unauthorized("Token revoked")
    if statements.when(row.expires_at) <= now:
        raise Unauthorized("Token expired")
    if not row.user_active:
        raise Forbidden("User is deactivated")
    trial_end = None if row.trial_ends_at is None else statements.when(row.trial_ends_at)
    plan = plans.effective_plan(row.plan, trial_end, now)
    if not plans.includes_api(plan):
        raise Refused(
            f"The workspace's plan ({plan}) does not include API access; "
            "upgrade to Premium or Enterprise",
            code=ErrorCode.PLAN_EXCLUDES_API,
        )
    return Principal(
        user_id=row.user_id,
        name=row.name,
        email=row.email,
        workspace_id=row.workspace_id,
        timezone=row.timezone,
        currency=row.currency,
        token_id=row.token_id,
        workspace_name=row.workspace_name,
        tax_rate=accounts.tax_rate_text(row.tax_rate),
        require_artwork_approval=bool(row.require_artwork_approval),
        role=row.role,
    )
