"""Rendering: the Jinja environment (autoescape on), local times, and the error pages."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape
from jinja2.runtime import Context
from litestar import Request, Response
from litestar.exceptions import HTTPException, NotFoundException, PermissionDeniedException
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.response import Redirect, Template
from litestar.template.config import TemplateConfig

from api.admin.security import HEADERS, NO_STORE, PREFIX, NotLoggedIn, OwnerOnly
from models.errors import NotFoundError
from models.garments import location_words, method_words
from models.urls import masked_url

HERE = Path(__file__).parent
UTC = dt.UTC


def zone(name: str) -> dt.tzinfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return UTC


def local_time(value: dt.datetime | str | None, timezone: str) -> str:
    """A time in the workspace's zone, with its offset: `2026-11-23 09:15 +01:00`."""
    if value is None or value == "":
        return "—"
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    shown = value.astimezone(zone(timezone))
    offset = shown.strftime("%z")
    return f"{shown:%Y-%m-%d %H:%M} {offset[:3]}:{offset[3:]}"


@pass_context
def _when(context: Context, value: dt.datetime | str | None) -> str:
    user = context.get("user")
    return local_time(value, user.timezone if user is not None else "UTC")


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = _when
    env.filters["masked"] = masked_url  # a target URL's password is never shown
    # Print locations and methods in words ("Left chest", "screen print" with in_sentence=True)
    env.filters["location_words"] = location_words
    env.filters["method_words"] = method_words
    return env


TEMPLATE_CONFIG: TemplateConfig[JinjaTemplateEngine] = TemplateConfig(
    instance=JinjaTemplateEngine.from_environment(_environment())
)


def page(
    request: Request[Any, Any, Any],
    template: str,
    *,
    status_code: int = 200,
    secret: bool = False,
    **context: Any,
) -> Template:
    """A page of the admin for the logged-in user (`secret` pages are never stored)."""
    user = request.scope.get("user")
    return Template(
        template_name=template,
        context={"user": user, "prefix": PREFIX, **context},
        status_code=status_code,
        headers={**HEADERS, **(NO_STORE if secret else {})},
    )


def see_other(path: str) -> Redirect:
    """After a POST, the page to show (303, so a reload does not send the form again)."""
    return Redirect(path=path, status_code=303, headers=HEADERS)


def _error(request: Request[Any, Any, Any], status: int, title: str, message: str) -> Template:
    return page(request, "error.html", status_code=status, title=title, message=message)


def not_logged_in(request: Request[Any, Any, Any], _: NotLoggedIn) -> Response[Any]:
    if request.method == "GET" and "HX-Request" not in request.headers:
        # The raw path: an encoded `/` in a SKU code must come back encoded after the login.
        raw = request.scope.get("raw_path")
        path = raw.decode("latin-1") if raw else request.url.path
        target = path + (f"?{request.url.query}" if request.url.query else "")
        return Redirect(
            path=f"{PREFIX}/login?next={quote(target, safe='/')}", status_code=303, headers=HEADERS
        )
    return _error(request, 401, "Logged out", "Your session has ended. Log in again.")


def owner_only(request: Request[Any, Any, Any], _: OwnerOnly) -> Response[Any]:
    return _error(request, 403, "Owners only", "Only an owner of the workspace can do this.")


def not_found(request: Request[Any, Any, Any], _: Exception) -> Response[Any]:
    return _error(request, 404, "Not found", "There is no such page in this workspace.")


def http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    if isinstance(exc, PermissionDeniedException):  # the CSRF check
        return _error(
            request,
            403,
            "Form refused",
            "This form has expired or did not come from this admin. Reload the page and try again.",
        )
    if exc.status_code == 404:
        return not_found(request, exc)
    return _error(request, exc.status_code, "Request refused", str(exc.detail))


EXCEPTION_HANDLERS: dict[Any, Any] = {
    NotLoggedIn: not_logged_in,
    OwnerOnly: owner_only,
    NotFoundError: not_found,
    NotFoundException: not_found,
    HTTPException: http_error,
}
