"""The admin's reads, every one scoped to the session's workspace (the admin's tenancy choke
point: an id from another workspace is simply not found)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from piccolo.columns import Column
from piccolo.table import Table

from models import clock, plans, statements
from models.errors import NotFoundError
from models.filters import MAX_ID
from models.tables import (
    ApiToken,
    Customer,
    Workspace,
)

PAGE_SIZE = 50


def _known(row_id: int | None) -> bool:
    return row_id is not None and 0 < row_id <= MAX_ID


async def ensure_in_workspace(table: type[Table], row_id: int, workspace_id: int) -> None:
    """NotFoundError unless the row exists in this workspace."""
    workspace: Column = table._meta.get_column_by_name("workspace")
    if not _known(row_id) or not await table.exists().where(
        (table._meta.primary_key == row_id) & (workspace == workspace_id)
    ):
        raise NotFoundError(f"{table._meta.tablename} {row_id} not found")


# --- overview --------------------------------------------------------------------------------


async def overview(workspace_id: int) -> dict[str, Any]:
    now = clock.now()
    ws = await Workspace.select().where(Workspace.id == workspace_id).first()
    if ws is None:
        raise NotFoundError("workspace not found")
    trial = None if ws["trial_ends_at"] is None else statements.when(ws["trial_ends_at"])
    plan = plans.effective_plan(ws["plan"], trial, now)
    return {
        "name": ws["name"],
        "plan": ws["plan"],
        "effective_plan": plan,
        "trial_ends_at": trial if trial is not None and trial > now else None,
        "includes_api": plans.includes_api(plan),
        "open_order_limit": plans.open_order_limit(plan, ws["open_order_limit"]),
    }


# --- tokens and customers --------------------------------------------------------------------


def token_state(row: dict[str, Any], now: dt.datetime) -> str:
    if row["revoked_at"] is not None:
        return "revoked"
    if statements.when(row["expires_at"]) <= now:
        return "expired"
    return "active"


async def tokens(workspace_id: int, user_id: int | None = None) -> list[dict[str, Any]]:
    """The workspace's tokens (one user's when `user_id` is given), newest first."""
    where: Any = ApiToken.workspace == workspace_id
    if user_id is not None:
        where &= ApiToken.user == user_id
    rows = (
        await ApiToken.select(
            ApiToken.id,
            ApiToken.name,
            ApiToken.prefix,
            ApiToken.user,
            ApiToken.user.name.as_alias("user_name"),
            ApiToken.created_at,
            ApiToken.expires_at,
            ApiToken.revoked_at,
            ApiToken.last_used_at,
        )
        .where(where)
        .order_by(ApiToken.id, ascending=False)
    )
    now = clock.now()
    for row in rows:
        row["state"] = token_state(row, now)
    return rows


async def token(workspace_id: int, token_id: int) -> dict[str, Any]:
    await ensure_in_workspace(ApiToken, token_id, workspace_id)
    rows = await tokens(workspace_id)
    return next(row for row in rows if row["id"] == token_id)


async def customers(workspace_id: int) -> list[dict[str, Any]]:
    return (
        await Customer.select(Customer.id, Customer.name)
        .where(Customer.workspace == workspace_id)
        .order_by(Customer.name)
        .order_by(Customer.id)
    )
