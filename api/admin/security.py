"""What every admin request passes through: the security headers, CSRF, and the session.

The admin's middleware sits on its own router, so the API under /api/v1 never runs it."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.config.csrf import CSRFConfig
from litestar.connection import ASGIConnection
from litestar.datastructures import Cookie, ResponseHeader
from litestar.handlers.base import BaseRouteHandler
from litestar.middleware import AbstractAuthenticationMiddleware, AuthenticationResult
from litestar.middleware.csrf import CSRFMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from api import links
from models import admin_sessions
from models.admin_sessions import AdminUser

PREFIX = "/admin"
SESSION_COOKIE = "pressline_session"
CSRF_COOKIE = "pressline_csrf"
PUBLIC = [f"^{PREFIX}/login", f"^{PREFIX}/static/"]  # reachable without a session

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
NO_STORE = {"Cache-Control": "no-store"}  # pages showing a secret
RESPONSE_HEADERS = [ResponseHeader(name=name, value=value) for name, value in HEADERS.items()]


class NotLoggedIn(Exception):
    """No valid session: the browser is sent to the login page."""


class OwnerOnly(Exception):
    """A staff member asked for an owner's page or action (→ the 403 page)."""


class AdminCSRFMiddleware(CSRFMiddleware):
    """Litestar's CSRF check with a key every web process shares: read from the database on
    the first request (the app is built before the database is reachable)."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(
            app,
            CSRFConfig(
                secret="",
                cookie_name=CSRF_COOKIE,
                cookie_path=PREFIX,
                cookie_httponly=True,
                cookie_samesite="strict",
                exclude=[f"^{PREFIX}/static/"],
            ),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.config.secret:
            self.config.secret = await admin_sessions.csrf_key()
        await super().__call__(scope, receive, send)


class SessionMiddleware(AbstractAuthenticationMiddleware):
    """The session cookie → the user, looked up again on every request."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app, exclude=PUBLIC)

    async def authenticate_request(
        self, connection: ASGIConnection[Any, Any, Any, Any]
    ) -> AuthenticationResult:
        user = await admin_sessions.lookup(connection.cookies.get(SESSION_COOKIE, ""))
        if user is None:
            raise NotLoggedIn
        return AuthenticationResult(user=user, auth=user.session_id)


def owner_only(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard for the pages and actions only an owner may use."""
    user: AdminUser = connection.user
    if not user.is_owner:
        raise OwnerOnly


def session_cookie(
    request: Request[Any, Any, Any], value: str, *, max_age: int | None = None
) -> Cookie:
    """The session cookie; `Secure` when the request came over HTTPS or PUBLIC_URL is https
    (a proxy that terminates TLS may not say so in X-Forwarded-Proto)."""
    public_url = request.app.state.get(links.STATE_KEY) or ""
    https = request.url.scheme == "https" or public_url.startswith("https:")
    return Cookie(
        key=SESSION_COOKIE,
        value=value,
        path=PREFIX,
        httponly=True,
        samesite="lax",
        secure=https,
        max_age=max_age,
    )
