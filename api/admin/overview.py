"""The overview: the workspace's plan, the shop floor (open orders by stage, overdue orders,
low stock, unpaid invoices) and webhook health at a glance."""

from __future__ import annotations

import datetime as dt
from typing import Any

from litestar import Controller, Request, get
from litestar.response import Template

from api.admin.order_forms import STAGE_NAMES, Shown
from api.admin.pages import page
from models.queries import admin as queries
from models.queries.shop_figures import shop_figures
from models.webhooks import stats as webhook_stats


def duration(age: dt.timedelta) -> str:
    seconds = int(age.total_seconds())
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    if seconds < 172_800:
        return f"{seconds // 3600} h"
    return f"{seconds // 86_400} days"


class OverviewController(Controller):
    path = "/"

    @get("/")
    async def show_overview(self, request: Request[Any, Any, Any]) -> Template:
        user = request.user
        figures = {
            **await queries.overview(user.workspace_id),
            **await webhook_stats.health(user.workspace_id),
        }
        age = figures["oldest_pending_age"]
        shown = Shown(user.timezone)
        return page(
            request, "overview.html", here="overview", title="Overview", o=figures,
            age=duration(age) if age is not None else "", shown=shown, stage_names=STAGE_NAMES,
            shop=await shop_figures(user.workspace_id, shown.today),
        )  # fmt: skip
