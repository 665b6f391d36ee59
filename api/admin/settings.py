"""Email settings of the workspace (owners edit, staff read): Reply-To address and the stages
whose moves email the customer. Same domain function as `pressline workspace set --email`."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get, post
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import form, many, text
from api.admin.pages import page
from api.admin.security import PREFIX, owner_only
from models.errors import InvalidFields
from models.mail import workspace as mail
from models.mail.render import STAGE_WORDS
from models.mail.stages import EMAIL_STAGES


class SettingsController(Controller):
    path = "/settings"

    async def _page(
        self,
        request: Request[Any, Any, Any],
        *,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        typed: mail.MailSettings | None = None,
        notice: str = "",
    ) -> Template:
        current = typed or await mail.mail_settings(request.user.workspace_id)
        return page(
            request, "settings.html", status_code=status_code, here="settings",
            title="Settings", settings=current, errors=errors or {}, notice=notice,
            stages=[(stage, STAGE_WORDS[stage]) for stage in EMAIL_STAGES],
        )  # fmt: skip

    @get("/")
    async def show_settings(self, request: Request[Any, Any, Any]) -> Template:
        shown = await flash.take(request)
        return await self._page(request, notice=shown.notice)

    @post("/", status_code=303, guards=[owner_only])
    async def save_settings(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        fields = await form(request)
        email, stages = text(fields, "email"), many(fields, "mail_stages")
        try:
            await mail.set_mail_settings(request.user.workspace_id, email=email, mail_stages=stages)
        except InvalidFields as invalid:
            typed = mail.MailSettings(email=email, mail_stages=stages)
            return await self._page(request, status_code=422, errors=invalid.errors, typed=typed)
        return await flash.redirect(request, f"{PREFIX}/settings", "The settings were saved.")
