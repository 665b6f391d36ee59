"""API tokens: owners see the workspace's, staff their own; create (shown once) and revoke."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import form, in_words, text, whole_number
from api.admin.once import Created, create_once, new_token, token_of
from api.admin.pages import page, see_other
from api.admin.security import PREFIX
from models import accounts, plans
from models.admin_sessions import AdminUser
from models.errors import InvalidFields, NotFoundError, RuleRefused
from models.queries import admin as queries

NO_API = "The workspace's plan ({plan}) does not include API access, so tokens cannot be created."
TokenId = Annotated[int, PathParameter(description="API token id")]
LABELS = {"name": "the name", "days": "the lifetime in days"}  # as refusals name the fields


async def visible_token(user: AdminUser, token_id: int) -> dict[str, Any]:
    """A token this user may see: any of the workspace's for an owner, their own for staff."""
    row = await queries.token(user.workspace_id, token_id)
    if not user.is_owner and row["user"] != user.user_id:
        raise NotFoundError(f"token {token_id} not found")
    return row


class TokenController(Controller):
    path = "/tokens"

    async def _list(
        self,
        request: Request[Any, Any, Any],
        *,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        typed: dict[str, str] | None = None,
        message: str = "",
        notice: str = "",
        once: str | None = None,
    ) -> Template:
        user: AdminUser = request.user
        rows = await queries.tokens(user.workspace_id, None if user.is_owner else user.user_id)
        return page(
            request, "tokens.html", status_code=status_code, here="tokens", title="API tokens",
            tokens=rows, errors=errors or {}, typed=typed or {"name": "", "days": "365"},
            message=message, api=plans.includes_api(user.plan),
            no_api=NO_API.format(plan=user.plan),
            notice=notice, once=once or new_token(),
        )  # fmt: skip

    @get("/")
    async def list_tokens(self, request: Request[Any, Any, Any]) -> Template:
        return await self._list(request, notice=(await flash.take(request)).notice)

    @post("/", status_code=303)
    async def create_token(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        user: AdminUser = request.user
        fields = await form(request)
        typed = {"name": text(fields, "name"), "days": text(fields, "days")}
        if not plans.includes_api(user.plan):
            return await self._list(
                request, status_code=422, typed=typed, message=NO_API.format(plan=user.plan),
                once=token_of(fields),
            )  # fmt: skip
        days = whole_number(typed["days"])
        try:
            if days is None:
                raise InvalidFields({"expires_in_days": ["must be a whole number of days"]})

            async def create() -> Created:
                row, clear = await accounts.issue_token(
                    user_id=user.user_id, name=typed["name"], expires_in_days=days
                )
                shown = {"secret": clear, "name": row.name, "expires_at": str(row.expires_at)}
                name = f"the token {row.name}" if row.name else "the token"
                return Created(f"{PREFIX}/tokens/created", name, shown, f"{PREFIX}/tokens")

            return await create_once(
                request, fields, create, created=lambda _: "The token was created."
            )
        except InvalidFields as invalid:
            errors = in_words(invalid.errors, LABELS, {"expires_in_days": "days"})
            return await self._list(
                request, status_code=422, errors=errors, typed=typed, once=token_of(fields)
            )
        except RuleRefused as refused:
            return await self._list(
                request, status_code=422, typed=typed, message=refused.message,
                once=token_of(fields),
            )  # fmt: skip

    @get("/created")
    async def show_created(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        """The new token's value, once: the page the creation redirects to. A reload finds
        nothing to show and goes back to the list."""
        shown = await flash.take(request)
        if shown.secret is None:
            return see_other(f"{PREFIX}/tokens")
        return page(
            request, "token_created.html", here="tokens", title="Token created", secret=True,
            notice=shown.notice, token=shown.secret, name=shown.details.get("name", ""),
            expires_at=shown.details.get("expires_at"),
        )  # fmt: skip

    @get("/{token_id:int}/revoke")
    async def confirm_revoke(self, request: Request[Any, Any, Any], token_id: TokenId) -> Template:
        row = await visible_token(request.user, token_id)
        return page(request, "token_revoke.html", here="tokens", title="Revoke token", token=row)

    @post("/{token_id:int}/revoke", status_code=303)
    async def revoke_token(self, request: Request[Any, Any, Any], token_id: TokenId) -> Redirect:
        await visible_token(request.user, token_id)
        await accounts.revoke_token(token_id)
        return await flash.redirect(request, f"{PREFIX}/tokens", "The token was revoked.")
