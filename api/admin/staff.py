"""Staff (owners only): the workspace's members; add, (de)activate, change role."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin.forms import form, text
from api.admin.pages import page, see_other
from api.admin.security import PREFIX, owner_only
from models import members
from models.admin_sessions import AdminUser
from models.errors import InvalidFields, RuleRefused
from models.queries import admin as queries
from models.tables import User

MemberId = Annotated[int, PathParameter(description="User id")]
NOTICES = {
    "added": "The member was added; they can log in with the password you chose.",
    "deactivated": "The member was deactivated: their tokens answer 403 and they are logged out.",
    "activated": "The member was reactivated.",
    "role": "The role was changed.",
}
EMPTY = {"name": "", "email": "", "role": "staff", "password": ""}


class StaffController(Controller):
    path = "/staff"
    guards = [owner_only]

    async def _list(
        self,
        request: Request[Any, Any, Any],
        *,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        typed: dict[str, str] | None = None,
        message: str = "",
    ) -> Template:
        user: AdminUser = request.user
        return page(
            request, "staff.html", status_code=status_code, here="staff", title="Staff",
            members=await members.list_members(user.workspace_id), errors=errors or {},
            typed={**EMPTY, **(typed or {}), "password": ""}, message=message,
            notice=NOTICES.get(request.query_params.get("done", "")),
        )  # fmt: skip

    @get("/")
    async def list_members(self, request: Request[Any, Any, Any]) -> Template:
        return await self._list(request)

    @post("/", status_code=303)
    async def add_member(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        fields = await form(request)
        typed = {name: text(fields, name) for name in ("name", "email", "role", "password")}
        try:
            await members.add_member(
                workspace_id=request.user.workspace_id, name=typed["name"], email=typed["email"],
                role=typed["role"], password=typed["password"],
            )  # fmt: skip
        except InvalidFields as invalid:
            return await self._list(request, status_code=422, errors=invalid.errors, typed=typed)
        return see_other(f"{PREFIX}/staff?done=added")

    @post("/{member_id:int}/deactivate", status_code=303)
    async def deactivate_member(
        self, request: Request[Any, Any, Any], member_id: MemberId
    ) -> Template | Redirect:
        return await self._change(request, member_id, "deactivated", members.set_active, False)

    @post("/{member_id:int}/activate", status_code=303)
    async def activate_member(
        self, request: Request[Any, Any, Any], member_id: MemberId
    ) -> Template | Redirect:
        return await self._change(request, member_id, "activated", members.set_active, True)

    @post("/{member_id:int}/role", status_code=303)
    async def change_role(
        self, request: Request[Any, Any, Any], member_id: MemberId
    ) -> Template | Redirect:
        role = text(await form(request), "role")
        return await self._change(request, member_id, "role", members.set_role, role)

    async def _change(
        self, request: Request[Any, Any, Any], member_id: int, done: str, action: Any, value: Any
    ) -> Template | Redirect:
        await queries.ensure_in_workspace(User, member_id, request.user.workspace_id)
        try:
            await action(member_id, value)
        except (RuleRefused, InvalidFields) as refused:
            return await self._list(request, status_code=422, message=refused.message)
        return see_other(f"{PREFIX}/staff?done={done}")
