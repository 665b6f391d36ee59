"""Logging in and out of the admin."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.params import QueryParameter
from litestar.response import Redirect, Template

from api.admin.forms import form, text
from api.admin.pages import page
from api.admin.security import HEADERS, PREFIX, SESSION_COOKIE, session_cookie
from models import admin_sessions
from models.admin_login import LoginRefused, log_in


def safe_next(target: str) -> str:
    """Only a path of the admin itself, never another site (`//evil.example`)."""
    if target.startswith(f"{PREFIX}/") and not target.startswith("//") and "\\" not in target:
        return target
    return f"{PREFIX}/"


class LoginController(Controller):
    path = "/"

    @get("/login")
    async def login_form(
        self,
        request: Request[Any, Any, Any],
        next_page: Annotated[str, QueryParameter(name="next")] = "",
    ) -> Template:
        return page(request, "login.html", next=safe_next(next_page), email="", message="")

    @post("/login", status_code=303)
    async def log_in(self, request: Request[Any, Any, Any]) -> Response[Any]:
        fields = await form(request)
        email, target = text(fields, "email"), safe_next(text(fields, "next"))
        try:
            session = await log_in(email, text(fields, "password"))
        except LoginRefused as refused:
            status, headers = 400, {}
            if refused.wait is not None:
                status = 429
                headers = {"Retry-After": str(max(1, int(refused.wait.total_seconds())))}
            response = page(
                request, "login.html", status_code=status, next=target, email=email,
                message=refused.message,
            )  # fmt: skip
            response.headers.update(headers)
            return response
        redirect = Redirect(path=target, status_code=303, headers=HEADERS)
        redirect.cookies.append(session_cookie(request, session))
        return redirect

    @post("/logout", status_code=303)
    async def log_out(self, request: Request[Any, Any, Any]) -> Redirect:
        await admin_sessions.delete(request.cookies.get(SESSION_COOKIE, ""))
        redirect = Redirect(path=f"{PREFIX}/login", status_code=303, headers=HEADERS)
        redirect.cookies.append(session_cookie(request, "", max_age=0))
        return redirect
