"""Staff (owners only): the workspace's members; add, deactivate (after a confirmation page) and
reactivate, change role, set a member's password. The last active owner has neither a
Deactivate button nor a role choice: the rule itself is models/members.py's, so a forged POST
is refused the same way. Every successful POST answers 303 with a one-time notice.

Paths: /admin/staff, POST /staff/ (add), /staff/{id}/deactivate (GET confirmation, POST),
POST /staff/{id}/activate, POST /staff/{id}/role, /staff/{id}/password (GET form, POST).
A member's own password is changed on /admin/account (the current one required).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import PathParameter
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import form, in_words, text
from api.admin.once import Created, create_once, new_token, token_of
from api.admin.pages import page, see_other
from api.admin.security import PREFIX, owner_only
from models import members
from models.admin_sessions import AdminUser
from models.errors import InvalidFields, RuleRefused, summary
from models.queries import admin as queries
from models.tables import User

MemberId = Annotated[int, PathParameter(description="User id")]
EMPTY = {"name": "", "email": "", "role": "staff", "password": ""}
# Each field as a refusal names it (the labels of staff.html and staff_password.html).
LABELS = {"name": "the name", "email": "the email", "role": "the role",
          "password": "the initial password"}  # fmt: skip
PASSWORD_LABELS = {"password": "the new password", "confirm_password": "the password typed again"}


def last_owner(rows: list[members.Member]) -> int | None:
    """The id of the workspace's only active owner, if there is exactly one."""
    owners = [m.id for m in rows if m.role == "owner" and m.is_active]
    return owners[0] if len(owners) == 1 else None


async def _member(request: Request[Any, Any, Any], member_id: int) -> members.Member:
    await queries.ensure_in_workspace(User, member_id, request.user.workspace_id)
    return await members.get_member(member_id)


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
        once: str | None = None,
    ) -> Template:
        user: AdminUser = request.user
        rows = await members.list_members(user.workspace_id)
        failed = status_code != 200
        return page(
            request, "staff.html", status_code=status_code, here="staff", title="Staff",
            members=rows, last_owner=last_owner(rows), errors=errors or {},
            typed={**EMPTY, **(typed or {}), "password": ""}, message=message,
            notice="" if failed else (await flash.take(request)).notice,
            once=once or new_token(),
        )  # fmt: skip

    @get("/")
    async def list_members(self, request: Request[Any, Any, Any]) -> Template:
        return await self._list(request)

    @post("/", status_code=303)
    async def add_member(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        fields = await form(request)
        typed = {name: text(fields, name) for name in ("name", "email", "role", "password")}

        async def add() -> Created:
            added = await members.add_member(
                workspace_id=request.user.workspace_id, name=typed["name"], email=typed["email"],
                role=typed["role"], password=typed["password"],
            )  # fmt: skip
            return Created(f"{PREFIX}/staff", f"{added.name} ({added.role})")

        try:
            return await create_once(
                request, fields, add,
                created=lambda member: f"The member was added: {member.name} can log in with "
                "the password you chose.",
            )  # fmt: skip
        except InvalidFields as invalid:
            errors = in_words(invalid.errors, LABELS)
            return await self._list(
                request, status_code=422, errors=errors, typed=typed, once=token_of(fields)
            )

    @get("/{member_id:int}/deactivate")
    async def confirm_deactivate(
        self, request: Request[Any, Any, Any], member_id: MemberId
    ) -> Template:
        member = await _member(request, member_id)
        return page(
            request, "staff_deactivate.html", here="staff", title=f"Deactivate {member.name}",
            member=member,
        )  # fmt: skip

    @post("/{member_id:int}/deactivate", status_code=303)
    async def deactivate_member(
        self, request: Request[Any, Any, Any], member_id: MemberId
    ) -> Template | Redirect:
        return await self._change(
            request, member_id, lambda: members.set_active(member_id, False),
            lambda m: f"{m.name} was deactivated: their API tokens answer 403 and they are "
            "logged out.",
        )  # fmt: skip

    @post("/{member_id:int}/activate", status_code=303)
    async def activate_member(
        self, request: Request[Any, Any, Any], member_id: MemberId
    ) -> Template | Redirect:
        return await self._change(
            request, member_id, lambda: members.set_active(member_id, True),
            lambda m: f"{m.name} was reactivated.",
        )  # fmt: skip

    @post("/{member_id:int}/role", status_code=303)
    async def change_role(
        self, request: Request[Any, Any, Any], member_id: MemberId
    ) -> Template | Redirect:
        role = text(await form(request), "role")
        return await self._change(
            request, member_id, lambda: members.set_role(member_id, role),
            lambda m: f"{m.name} is now {role}.",
        )  # fmt: skip

    async def _change(
        self,
        request: Request[Any, Any, Any],
        member_id: int,
        action: Callable[[], Awaitable[object]],
        notice: Callable[[members.Member], str],
    ) -> Template | Redirect:
        """One member's change: `action` (models/members.py) on a member of this workspace,
        then the list with the notice said of the member, or the list with the refusal."""
        member = await _member(request, member_id)
        try:
            await action()
        except RuleRefused as refused:
            return await self._list(request, status_code=422, message=refused.message)
        except InvalidFields as invalid:  # a role no page offers
            message = summary(in_words(invalid.errors, LABELS))
            return await self._list(request, status_code=422, message=message)
        return await flash.redirect(request, f"{PREFIX}/staff", notice(member))

    def _password_form(
        self,
        request: Request[Any, Any, Any],
        member: members.Member,
        errors: dict[str, list[str]] | None = None,
    ) -> Template:
        return page(
            request, "staff_password.html", status_code=422 if errors else 200, here="staff",
            title=f"Password of {member.name}", member=member,
            errors=in_words(errors or {}, PASSWORD_LABELS),
        )  # fmt: skip

    @get("/{member_id:int}/password")
    async def password_form(
        self, request: Request[Any, Any, Any], member_id: MemberId
    ) -> Template | Redirect:
        member = await _member(request, member_id)
        if member.id == request.user.user_id:  # their own: with the current password
            return see_other(f"{PREFIX}/account")
        return self._password_form(request, member)

    @post("/{member_id:int}/password", status_code=303)
    async def set_password(
        self, request: Request[Any, Any, Any], member_id: MemberId
    ) -> Template | Redirect:
        """The same function as `pressline user set-password`: their sessions end."""
        member = await _member(request, member_id)
        if member.id == request.user.user_id:
            return see_other(f"{PREFIX}/account")
        fields = await form(request)
        password = text(fields, "password")
        if password != text(fields, "confirm_password"):
            return self._password_form(
                request, member, {"confirm_password": ["does not match the new password"]}
            )
        try:
            await members.set_password(member_id, password)
        except InvalidFields as invalid:
            return self._password_form(request, member, invalid.errors)
        return await flash.redirect(
            request, f"{PREFIX}/staff",
            f"{member.name}'s password was set; they were logged out of the admin everywhere.",
        )  # fmt: skip
