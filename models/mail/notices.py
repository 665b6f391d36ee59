"""Owners are told when a webhook subscription is deactivated: one email to
each active owner of its workspace (URL, reason, link to its admin page), and the admin shows
a banner until it is re-enabled.

The worker's mail job looks for deactivations not told yet on each poll
(`queue_deactivation_notices`), rather than the delivery code calling in: deactivation is
decided inside the delivery store's own batch statement (daemon/record.py, on a raw driver
connection), and a notice must not depend on which code path deactivated. A unique index on
(subscription, deactivation time, recipient) keeps it to one notice each, whichever workers
look at once. A subscription disabled by an operator is not announced: someone chose it."""

from __future__ import annotations

import datetime as dt
from typing import Any

from models import db, statements
from models.mail.ids import message_id
from models.mail.links import link
from models.mail.render import render
from models.statements import Sql
from models.tables import StaffNotice

OPERATOR_DISABLED = "disabled by an operator"  # models/webhooks/subscriptions.py's reason
LOOK_BACK = dt.timedelta(days=1)  # a deactivation older than this is not announced late

UNTOLD = Sql(
    """
    SELECT s.id, s.workspace, s.url, s.deactivated_reason, s.deactivated_at, w.name
    FROM webhook_subscriptions s JOIN workspaces w ON w.id = s.workspace
    WHERE NOT s.is_active AND s.deactivated_at >= $1 AND s.deactivated_reason <> $2
      AND NOT EXISTS (
        SELECT 1 FROM staff_notices n
        WHERE n.subscription_id = s.id AND n.about_time = s.deactivated_at
      )
    ORDER BY s.id
    LIMIT 50
    """
)
OWNERS = Sql(
    """
    SELECT id, name, email FROM users
    WHERE workspace = $1 AND role = 'owner' AND is_active AND email <> ''
    ORDER BY id
    """
)
DEACTIVATED = Sql(
    """
    SELECT id, url, deactivated_reason, UTC_TEXT(deactivated_at) FROM webhook_subscriptions
    WHERE workspace = $1 AND NOT is_active AND deactivated_reason <> $2
    ORDER BY deactivated_at DESC, id
    LIMIT 20
    """
)


async def queue_deactivation_notice(
    *,
    subscription_id: int,
    workspace_id: int,
    shop: str,
    url: str,
    reason: str,
    deactivated_at: dt.datetime,
    owners: list[Any],
    now: dt.datetime,
) -> int:
    """Queue the notice of one deactivation for each owner, inside the caller's transaction;
    returns how many were new."""
    queued = 0
    for owner_id, owner_name, email in owners:
        rendered = render(
            "deactivated",
            shop=shop,
            reply_to="",
            user_name=owner_name,
            subscription_id=subscription_id,
            url=url,
            reason=reason,
            link=link(f"/admin/webhooks/{subscription_id}"),
        )
        row = StaffNotice(
            workspace=workspace_id,
            user=owner_id,
            kind="webhook.deactivated",
            subject=rendered.subject,
            body=rendered.text,
            body_html=rendered.html,
            recipient=email,
            from_name="Pressline",
            reply_to="",
            message_id=message_id(),
            next_attempt_at=now,
            created_at=now,
            updated_at=now,
            subscription_id=subscription_id,
            about_time=deactivated_at,
        )
        added = await StaffNotice.insert(row).on_conflict(action="DO NOTHING")
        queued += len(added)
    return queued


async def queue_deactivation_notices(now: dt.datetime) -> int:
    """Notices for every recent deactivation not told yet (the mail job, each poll). The
    look is a plain read; a write transaction is opened only when there is something to tell
    (on SQLite a transaction takes the database's write lock)."""
    async with statements.connection() as conn:
        untold = await conn.rows(UNTOLD, now - LOOK_BACK, OPERATOR_DISABLED)
        owners = {ws: list(await conn.rows(OWNERS, ws)) for ws in {row[1] for row in untold}}
    if not untold:
        return 0

    async def write() -> int:
        queued = 0
        for sub_id, workspace_id, url, reason, at, shop in untold:
            queued += await queue_deactivation_notice(
                subscription_id=sub_id,
                workspace_id=workspace_id,
                shop=shop,
                url=url,
                reason=reason or "deactivated",
                deactivated_at=statements.when(at),
                owners=owners[workspace_id],
                now=now,
            )
        return queued

    return await db.atomic(write)


async def deactivated(workspace_id: int) -> list[dict[str, Any]]:
    """The workspace's subscriptions stopped by failures (the admin's banner)."""
    async with statements.connection() as conn:
        rows = await conn.rows(DEACTIVATED, workspace_id, OPERATOR_DISABLED)
    return [
        {"id": r[0], "url": r[1], "reason": r[2], "deactivated_at": statements.iso(r[3])}
        for r in rows
    ]
