"""Your account (every logged-in member): who you are, and changing your own password with the
current one; your other admin sessions end, the one you are using stays (models/members.py).

Paths: /admin/account (GET), POST /admin/account/password (303 back with a one-time notice).
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get, post
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import form, in_words, text
from api.admin.pages import page
from api.admin.security import PREFIX
from models import members
from models.errors import InvalidFields

# Each field as a refusal names it (the labels of account.html).
LABELS = {
    "current_password": "the password typed as current",
    "new_password": "the new password",
    "confirm_password": "the password typed again",
}


class AccountController(Controller):
    path = "/account"

    @get("/")
    async def show_account(self, request: Request[Any, Any, Any]) -> Template:
        return page(
            request, "account.html", here="account", title="Your account", errors={},
            notice=(await flash.take(request)).notice,
        )  # fmt: skip

    @post("/password", status_code=303)
    async def change_password(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        fields = await form(request)
        try:
            await members.change_own_password(
                user_id=request.user.user_id, session_id=request.user.session_id,
                current=text(fields, "current_password"), new=text(fields, "new_password"),
                confirm=text(fields, "confirm_password"),
            )  # fmt: skip
        except InvalidFields as invalid:
            return page(
                request, "account.html", status_code=422, here="account", title="Your account",
                errors=in_words(invalid.errors, LABELS),
            )  # fmt: skip
        return await flash.redirect(
            request, f"{PREFIX}/account",
            "Your password was changed; your other admin sessions were logged out.",
        )  # fmt: skip
