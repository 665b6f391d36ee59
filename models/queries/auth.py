"""The single lookup behind every authenticated request: token → user → workspace."""

from __future__ import annotations

from models import statements
from models.statements import Row

# Columns, in order: token id, expires_at, revoked_at, user id, name, email, is_active,
# workspace id, plan, trial_ends_at, timezone, currency.
PRINCIPAL = statements.Sql(
    """
    SELECT t.id, t.expires_at, t.revoked_at, u.id, u.name, u.email, u.is_active,
           w.id, w.plan, w.trial_ends_at, w.timezone, w.currency
    FROM api_tokens t
    LEFT JOIN users u ON u.id = t."user"
    LEFT JOIN workspaces w ON w.id = t.workspace
    WHERE t.digest = $1
    LIMIT 1
    """
)


async def token_principal(digest: str) -> Row | None:
    """One statement, an equality on the unique digest: the token's state, its user and the
    workspace settings requests need (columns as listed on PRINCIPAL)."""
    async with statements.connection() as reader:
        return await reader.row(PRINCIPAL, digest)
