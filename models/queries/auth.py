"""The single lookup behind every authenticated request: token → user → workspace."""

from __future__ import annotations

from decimal import Decimal

import msgspec

from models import statements
from models.statements import Select, Stamp


class PrincipalRow(msgspec.Struct, array_like=True, frozen=True):
    """The token's state, its user and the workspace settings requests need (a token's user
    and workspace are required foreign keys, so their columns are never NULL)."""

    token_id: int
    expires_at: Stamp
    revoked_at: Stamp | None
    user_id: int
    name: str
    email: str
    user_active: bool | int  # SQLite gives 0/1
    workspace_id: int
    plan: str
    trial_ends_at: Stamp | None
    timezone: str
    currency: str
    workspace_name: str
    tax_rate: Decimal | float  # NUMERIC on PostgreSQL, REAL-like on SQLite
    require_artwork_approval: bool | int  # SQLite gives 0/1
    role: str  # the token's user's: owner | staff


PRINCIPAL = Select(
    PrincipalRow,
    """
    SELECT t.id, t.expires_at, t.revoked_at, u.id, u.name, u.email, u.is_active,
           w.id, w.plan, w.trial_ends_at, w.timezone, w.currency, w.name, w.tax_rate,
           w.require_artwork_approval, u.role
    FROM api_tokens t
    LEFT JOIN users u ON u.id = t."user"
    LEFT JOIN workspaces w ON w.id = t.workspace
    WHERE t.digest = $1
    LIMIT 1
    """,
)


async def token_principal(digest: str) -> PrincipalRow | None:
    """One statement, an equality on the unique digest."""
    async with statements.connection() as reader:
        return await reader.one(PRINCIPAL, digest)
