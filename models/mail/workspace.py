"""A workspace's email settings: its own address (Reply-To of customer emails) and the stages
whose moves email the customer. Shared by the admin's settings page and `pressline workspace
set`."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from models import clock
from models.errors import FieldErrors, NotFoundError
from models.mail.stages import EMAIL_STAGES, parse_mail_stages
from models.tables import Workspace


class MailSettings(msgspec.Struct, frozen=True):
    email: str  # "" when unset: customer emails then carry no Reply-To
    mail_stages: list[str]  # stages whose moves email the customer (proofs always do)


async def mail_settings(workspace_id: int) -> MailSettings:
    row = await (
        Workspace.select(Workspace.email, Workspace.mail_stages)
        .where(Workspace.id == workspace_id)
        .first()
    )
    if row is None:
        raise NotFoundError(f"Workspace {workspace_id} not found")
    return MailSettings(email=row["email"], mail_stages=list(parse_mail_stages(row["mail_stages"])))


async def set_mail_settings(
    workspace_id: int, *, email: str | None = None, mail_stages: Sequence[str] | None = None
) -> MailSettings:
    """Change what is given (an empty email removes it); every problem in one InvalidFields."""
    errors = FieldErrors()
    changes: dict[object, object] = {}
    if email is not None:
        changes[Workspace.email] = errors.email("email", email) if email.strip() else ""
    if mail_stages is not None:
        unknown = sorted(set(mail_stages) - set(EMAIL_STAGES))
        if unknown:
            errors.add(
                "mail_stages",
                f"unknown stage {unknown[0]!r}; the stages are {', '.join(EMAIL_STAGES)}",
            )
        changes[Workspace.mail_stages] = ",".join(parse_mail_stages(",".join(mail_stages)))
    errors.check()
    if not await Workspace.exists().where(Workspace.id == workspace_id):
        raise NotFoundError(f"Workspace {workspace_id} not found")
    if changes:
        changes[Workspace.updated_at] = clock.now()
        await Workspace.update(changes).where(Workspace.id == workspace_id)  # type: ignore[arg-type]
    return await mail_settings(workspace_id)
