"""The workspace's settings (owners edit, staff read), in two forms: the order rules (tax rate,
time zone, artwork approval, stages in sequence; same domain function as `pressline workspace
set`) and the customer emails (Reply-To address and the stages whose moves email the customer;
`pressline workspace set --email`)."""

from __future__ import annotations

import functools
import zoneinfo
from typing import Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import form, in_words, many, percent, text
from api.admin.pages import page
from api.admin.security import PREFIX, owner_only
from models import accounts
from models.errors import InvalidFields
from models.mail import workspace as mail
from models.mail.render import STAGE_WORDS
from models.mail.stages import EMAIL_STAGES

# Each order-rules field as the page labels it, to name it in an error.
RULE_LABELS = {"tax_rate": "Tax rate", "timezone": "Time zone"}
SAVED = "The settings were saved."


class OrderRules(msgspec.Struct, frozen=True):
    """The order-rules form's values, as stored or as typed."""

    tax_rate: str
    timezone: str
    require_artwork_approval: bool
    strict_sequence: bool
    prices_include_tax: bool


@functools.cache
def time_zones() -> list[str]:
    """The IANA names offered as the time zone is typed (any of them is accepted)."""
    return sorted(zoneinfo.available_timezones())


class SettingsController(Controller):
    path = "/settings"

    async def _page(
        self,
        request: Request[Any, Any, Any],
        *,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        typed: mail.MailSettings | None = None,
        typed_rules: OrderRules | None = None,
        notice: str = "",
    ) -> Template:
        workspace_id = request.user.workspace_id
        current = typed or await mail.mail_settings(workspace_id)
        rules = typed_rules
        if rules is None:
            info = accounts.workspace_info(await accounts.get_workspace(workspace_id))
            rules = OrderRules(
                tax_rate=info.tax_rate, timezone=info.timezone,
                require_artwork_approval=info.require_artwork_approval,
                strict_sequence=info.strict_sequence,
                prices_include_tax=info.prices_include_tax,
            )  # fmt: skip
        return page(
            request, "settings.html", status_code=status_code, here="settings",
            title="Settings", settings=current, rules=rules, errors=errors or {}, notice=notice,
            stages=[(stage, STAGE_WORDS[stage]) for stage in EMAIL_STAGES],
            time_zones=time_zones(),
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
        return await flash.redirect(request, f"{PREFIX}/settings", SAVED)

    @post("/orders", status_code=303, guards=[owner_only])
    async def save_order_rules(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        """An unticked box is not sent: the rule is off. The tax rate is read as people type a
        percentage (`17,5`, `20 %`: api/admin/forms.py `percent`)."""
        fields = await form(request)
        typed = OrderRules(
            tax_rate=text(fields, "tax_rate").strip(),
            timezone=text(fields, "timezone").strip(),
            require_artwork_approval="require_artwork_approval" in fields,
            strict_sequence="strict_sequence" in fields,
            prices_include_tax="prices_include_tax" in fields,
        )
        try:
            await accounts.set_workspace(
                request.user.workspace_id,
                tax_rate=percent(typed.tax_rate), timezone=typed.timezone,
                require_artwork_approval=typed.require_artwork_approval,
                strict_sequence=typed.strict_sequence,
                prices_include_tax=typed.prices_include_tax,
            )  # fmt: skip
        except InvalidFields as invalid:
            errors = in_words(invalid.errors, RULE_LABELS)
            return await self._page(request, status_code=422, errors=errors, typed_rules=typed)
        return await flash.redirect(request, f"{PREFIX}/settings", SAVED)
