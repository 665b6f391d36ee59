"""The single lookup behind every authenticated request: token → user → workspace."""

from __future__ import annotations

from typing import Any

from models.tables import ApiToken


async def token_principal(digest: str) -> dict[str, Any] | None:
    """One statement: the token's state, its user and the workspace settings requests need."""
    return await (
        ApiToken.select(
            ApiToken.id.as_alias("token_id"),
            ApiToken.expires_at,
            ApiToken.revoked_at,
            ApiToken.user.id.as_alias("user_id"),
            ApiToken.user.name.as_alias("user_name"),
            ApiToken.user.email.as_alias("user_email"),
            ApiToken.user.is_active.as_alias("user_active"),
            ApiToken.workspace.id.as_alias("workspace_id"),
            ApiToken.workspace.plan.as_alias("plan"),
            ApiToken.workspace.trial_ends_at.as_alias("trial_ends_at"),
            ApiToken.workspace.timezone.as_alias("timezone"),
            ApiToken.workspace.currency.as_alias("currency"),
        )
        .where(ApiToken.digest == digest)
        .first()
    )
