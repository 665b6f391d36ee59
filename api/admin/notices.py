"""The admin's banner: webhook subscriptions stopped by failures, until they are re-enabled.
Fetched by every admin page once it has loaded (htmx), so pages pay nothing for it."""

from __future__ import annotations

from typing import Any

from litestar import Request, get
from litestar.response import Template

from api.admin.pages import page
from models.mail import notices


@get("/notices/banner")
async def banner(request: Request[Any, Any, Any]) -> Template:
    stopped = await notices.deactivated(request.user.workspace_id)
    return page(request, "_banner.html", stopped=stopped)
