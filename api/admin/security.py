"""What every admin request passes through: the security headers, the session, and CSRF.

The admin's middleware sits on its own router, so the API under /api/v1 never runs it.

CSRF. A form's token is derived from what the browser already holds, never
stored apart from it: HMAC(key, the session's digest) once logged in, HMAC(key, the digest
of a short pre-session cookie) on the login page. A token is therefore good for one session
only, and a new one comes with every login and logout; a token from another session or from
before the login does not match. Litestar's CSRF middleware is a double-submit check (a
signed random token in a cookie of its own, equal to the form's) that knows nothing of the
session, so this small check replaces it; templates read the token through the same
`csrf_token()` global as before.

Cookies. Over HTTPS the session cookie is `__Host-pressline_session` (Secure, Path=/, no
Domain): a browser only accepts it from this host over HTTPS, so a sibling subdomain cannot
plant one. Over plain http it stays `pressline_session` with Path=/admin.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.datastructures import Cookie, MutableScopeHeaders, ResponseHeader
from litestar.enums import ScopeType
from litestar.exceptions import PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler
from litestar.middleware import (
    AbstractAuthenticationMiddleware,
    AuthenticationResult,
    MiddlewareProtocol,
)
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from litestar.utils.scope.state import ScopeState

from api import links
from api.admin.form_data import read_form
from models import admin_sessions
from models.admin_sessions import AdminUser

PREFIX = "/admin"
SESSION_COOKIE = "pressline_session"  # plain http
SECURE_SESSION_COOKIE = "__Host-pressline_session"  # https
PRE_SESSION_COOKIE = "pressline_presession"
SECURE_PRE_SESSION_COOKIE = "__Host-pressline_presession"
PRE_SESSION_SECONDS = 2 * 3600  # a login form left open longer is refused; reloading fixes it
CSRF_FIELD = "_csrf_token"
CSRF_HEADER = "x-csrftoken"
PUBLIC = [f"^{PREFIX}/login", f"^{PREFIX}/static/"]  # reachable without a session
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_MAX_COOKIE = 200

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


def is_https(connection: ASGIConnection[Any, Any, Any, Any]) -> bool:
    """Whether the browser talks HTTPS: the request says so, or PUBLIC_URL is https (a proxy
    that terminates TLS may not say so in X-Forwarded-Proto)."""
    public_url = connection.app.state.get(links.STATE_KEY) or ""
    return connection.url.scheme == "https" or public_url.startswith("https:")


def session_id(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The session cookie's value (only the cookie name this scheme uses is read, so a
    plain-named cookie planted by a sibling subdomain never counts over HTTPS)."""
    name = SECURE_SESSION_COOKIE if is_https(connection) else SESSION_COOKIE
    return connection.cookies.get(name, "")


def session_cookie(
    request: Request[Any, Any, Any], value: str, *, max_age: int | None = None
) -> Cookie:
    """The session cookie (`max_age=0` removes it)."""
    if is_https(request):
        return Cookie(
            key=SECURE_SESSION_COOKIE, value=value, path="/", httponly=True, samesite="lax",
            secure=True, max_age=max_age,
        )  # fmt: skip
    return Cookie(
        key=SESSION_COOKIE, value=value, path=PREFIX, httponly=True, samesite="lax",
        secure=False, max_age=max_age,
    )  # fmt: skip


def pre_session_cookie(
    connection: ASGIConnection[Any, Any, Any, Any], value: str, *, max_age: int
) -> Cookie:
    """The login form's cookie, which its CSRF token is bound to (`max_age=0` removes it)."""
    https = is_https(connection)
    return Cookie(
        key=SECURE_PRE_SESSION_COOKIE if https else PRE_SESSION_COOKIE,
        value=value,
        path="/" if https else PREFIX,
        httponly=True,
        samesite="strict",
        secure=https,
        max_age=max_age,
    )


def _pre_session_id(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    name = SECURE_PRE_SESSION_COOKIE if is_https(connection) else PRE_SESSION_COOKIE
    return connection.cookies.get(name, "")


def csrf_token(key: str, kind: str, cookie_value: str) -> str:
    """The token for forms of the session (`kind` "session") or pre-session ("pre") whose
    cookie holds `cookie_value`."""
    message = f"{kind}:{admin_sessions.digest(cookie_value)}".encode()
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()


def tokens_match(sent: str, expected: str) -> bool:
    """Whether a token sent in a form, header or cookie is `expected`, in constant time.
    Compared as bytes: `hmac.compare_digest` refuses str holding non-ASCII (a TypeError, so
    a 500), and a sent token may hold anything."""
    return hmac.compare_digest(sent.encode("utf-8", "surrogatepass"), expected.encode())


class AdminCSRFMiddleware(MiddlewareProtocol):
    """Every POST carries the token of the session it is sent with (or, before login, of the
    pre-session cookie); GETs get the token to render and, on the login page, the cookie.
    Runs after the session middleware, so a logged-in request's session is known."""

    scopes = frozenset({ScopeType.HTTP})

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.key = ""  # read from the database on the first request (shared by every process)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["path"].startswith(f"{PREFIX}/static/"):
            await self.app(scope, receive, send)
            return
        if not self.key:
            self.key = await admin_sessions.csrf_key()
        request: Request[Any, Any, Any] = scope["litestar_app"].request_class(scope, receive)
        minted = ""
        if scope.get("user") is not None:
            kind, value = "session", session_id(request)
        else:
            kind, value = "pre", _pre_session_id(request)
            if not value or len(value) > _MAX_COOKIE:
                value = minted = secrets.token_urlsafe(32)
        expected = csrf_token(self.key, kind, value)
        if request.method not in _SAFE_METHODS:
            # Read here for every handler (once: it is kept for them), so text that is not
            # UTF-8 is the reader's 400 whether the token comes in the form or a header.
            fields = await read_form(request)
            sent = request.headers.get(CSRF_HEADER)
            if sent is None:
                sent = fields.get(CSRF_FIELD)
            if minted or not isinstance(sent, str) or not tokens_match(sent, expected):
                raise PermissionDeniedException("CSRF token verification failed")
        ScopeState.from_scope(scope).csrf_token = expected
        if minted:
            send = self._setting_cookie(
                send, pre_session_cookie(request, minted, max_age=PRE_SESSION_SECONDS)
            )
        await self.app(scope, receive, send)

    @staticmethod
    def _setting_cookie(send: Send, cookie: Cookie) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableScopeHeaders.from_message(message)
                headers.add("set-cookie", cookie.to_header(header=""))
            await send(message)

        return wrapped


class SessionMiddleware(AbstractAuthenticationMiddleware):
    """The session cookie → the user, looked up again on every request."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app, exclude=PUBLIC)

    async def authenticate_request(
        self, connection: ASGIConnection[Any, Any, Any, Any]
    ) -> AuthenticationResult:
        user = await admin_sessions.lookup(session_id(connection))
        if user is None:
            raise NotLoggedIn
        return AuthenticationResult(user=user, auth=user.session_id)


def owner_only(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard for the pages and actions only an owner may use."""
    user: AdminUser = connection.user
    if not user.is_owner:
        raise OwnerOnly
