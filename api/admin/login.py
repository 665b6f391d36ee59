"""Logging in and out of the admin."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.params import QueryParameter
from litestar.response import Redirect, Template

from api.admin.forms import form, text
from api.admin.pages import page
from api.admin.security import HEADERS, PREFIX, pre_session_cookie, session_cookie, session_id
from models import admin_sessions, clock
from models.admin_login import LoginRefused, log_in


def safe_next(target: str) -> str:
    """Only a path of the admin itself, never another site (`//evil.example`)."""
    if target.startswith(f"{PREFIX}/") and not target.startswith("//") and "\\" not in target:
        return target
    return f"{PREFIX}/"


def client_address(request: Request[Any, Any, Any]) -> str:
    """The client's address as the server sees it (uvicorn takes it from X-Forwarded-For
    when it trusts the proxy), the one the address throttle counts."""
    return request.client.host if request.client is not None else ""


def _locked_out(
    request: Request[Any, Any, Any], refused: LoginRefused, wait: dt.timedelta
) -> Template:
    seconds = max(1, int(wait.total_seconds()))
    response = page(
        request, "login_locked.html", status_code=429, message=refused.message,
        until=clock.now() + dt.timedelta(seconds=seconds),
    )  # fmt: skip
    response.headers["Retry-After"] = str(seconds)
    return response


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
            session = await log_in(email, text(fields, "password"), client_address(request))
        except LoginRefused as refused:
            if refused.wait is not None:
                return _locked_out(request, refused, refused.wait)
            answer = page(
                request, "login.html", status_code=503 if refused.busy else 400, next=target,
                email=email, message=refused.message,
            )  # fmt: skip
            if refused.busy:  # too many passwords being checked at once: nothing was counted
                answer.headers["Retry-After"] = "1"
            return answer
        # A session the browser held before is ended: the new one always has a new id.
        if previous := session_id(request):
            await admin_sessions.delete(previous)
        redirect = Redirect(path=target, status_code=303, headers=HEADERS)
        redirect.cookies.append(session_cookie(request, session))
        redirect.cookies.append(pre_session_cookie(request, "", max_age=0))
        return redirect

    @post("/logout", status_code=303)
    async def log_out(self, request: Request[Any, Any, Any]) -> Redirect:
        await admin_sessions.delete(session_id(request))
        redirect = Redirect(path=f"{PREFIX}/login", status_code=303, headers=HEADERS)
        redirect.cookies.append(session_cookie(request, "", max_age=0))
        return redirect
