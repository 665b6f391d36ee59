"""The admin's banner: webhook subscriptions stopped by failures, until they are re-enabled.
Fetched by every admin page once it has loaded (htmx), so pages pay nothing for it."""

from __future__ import annotations

from typing import Any

from litestar import Request, get
from litestar.response import Template

from api.admin.pages import page
from models import proofs
from models.mail import notices


@get("/notices/banner")
async def banner(request: Request[Any, Any, Any]) -> Template:
    stopped = await notices.deactivated(request.user.workspace_id)
    return page(request, "_banner.html", stopped=stopped)


@get("/notices/changes")
async def changes_requested(request: Request[Any, Any, Any]) -> Template:
    """The overview's list of proofs the customer asked to change."""
    found = await proofs.changes_requested(request.user.workspace_id)
    return page(request, "_changes_requested.html", changes=found)
