"""The one layer every HTTP request goes through: who is calling, the rate limit, the log line
and the metrics observation, each done once per request.

`RequestPath` wraps the whole application, outside routing, so unknown routes, 405s and 413s
are timed, logged and counted like every other request. It reads the raw headers once, for
those it needs: `Authorization` (kept in the scope for `ApiAccess`), the platform's
`X-Request-ID` (the request id of the log line; one is made when none usable came) and the
proxies' `X-Forwarded-For` and `X-Forwarded-Proto` (the client's address and the scheme,
api/forwarded.py). It holds the one wrapper of the response's `send`: it notes the status
and adds the rate-limit headers an allowed request was given, and `X-Request-ID` (the log
line's id) to every response; and of `receive`, to note a client that disconnected before
its answer was complete (its line then says so, at INFO). When the response is over it
observes the metrics and writes the log line, with the request id and the client's address
(api/request_log.py).

`ApiAccess` runs on the routes of /api/v1 once routing has matched one, so an unknown path is
404 and a wrong method 405 before any token is asked for. In the check order of docs/api.md
§2.2 (401 → 403 → 422 → 429) it takes the bearer token from that header, resolves it with
one statement (token → user → workspace and plan: api/auth.py) and counts the request against
the user's limit (one Redis script call, or in-process: api/ratelimit.py). The handler gets the
resolved `Principal` as `request.user`; the headers for the response go to `RequestPath`
through the request's scope, so no second wrapper of `send` is needed.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from api import auth, forwarded, request_log
from api.errors import CLIENT_GONE
from api.ratelimit import COUNTS_AS_READ, RateLimiter, TooManyRequests

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send

LIMITER = "pressline.rate_limiter"  # scope key: the app's limiter, set by RequestPath
LIMIT_HEADERS = "pressline.rate_limit_headers"  # scope key: raw headers for the response
AUTHORIZATION = "pressline.authorization"  # scope key: the Authorization header's value, or ""
# A request id from the platform's router is kept if it is one printable ASCII word of at
# most 200 characters (Heroku's are 20 to 200); anything else is replaced by a fresh one.
_USABLE_REQUEST_ID = re.compile(rb"[\x21-\x7e]{1,200}")


class Heads(NamedTuple):
    """The request headers this layer reads, from one pass over the raw ASGI headers."""

    authorization: str  # "" when missing
    request_id: str  # the platform's X-Request-ID when usable, else one made here
    forwarded_for: bytes | None  # every X-Forwarded-For header, joined in order
    forwarded_proto: bytes | None


def read_headers(headers: Iterable[tuple[bytes, bytes]]) -> Heads:
    """Of a header sent twice the first counts, except X-Forwarded-For, which each proxy may
    add as a header of its own."""
    authorization: bytes | None = None
    request_id: bytes | None = None
    forwarded_for: bytes | None = None
    forwarded_proto: bytes | None = None
    for name, value in headers:
        name = name.lower()
        if name == b"authorization":
            if authorization is None:
                authorization = value
        elif name == b"x-request-id":
            if request_id is None:
                request_id = value
        elif name == b"x-forwarded-for":
            forwarded_for = value if forwarded_for is None else forwarded_for + b"," + value
        elif name == b"x-forwarded-proto" and forwarded_proto is None:
            forwarded_proto = value
    if request_id is None or not _USABLE_REQUEST_ID.fullmatch(request_id):
        request_id = os.urandom(16).hex().encode()
    return Heads(
        authorization="" if authorization is None else authorization.decode("latin-1"),
        request_id=request_id.decode("ascii"),
        forwarded_for=forwarded_for,
        forwarded_proto=forwarded_proto,
    )


class RequestPath:
    """Outermost ASGI layer of the web app (see the module docstring)."""

    __slots__ = ("app", "forwarded_hops", "limiter")

    def __init__(self, app: ASGIApp, limiter: RateLimiter, forwarded_hops: int) -> None:
        self.app = app
        self.limiter = limiter
        self.forwarded_hops = forwarded_hops

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        scope[LIMITER] = self.limiter  # type: ignore[literal-required]
        heads = read_headers(scope["headers"])
        forwarded.apply(scope, heads.forwarded_for, heads.forwarded_proto, self.forwarded_hops)
        scope[AUTHORIZATION] = heads.authorization  # type: ignore[literal-required]
        scope[request_log.REQUEST_ID] = heads.request_id  # type: ignore[literal-required]
        status = 500  # if the application fails before answering
        answered = False  # the answer's last body message was sent

        request_id = (b"x-request-id", heads.request_id.encode("ascii"))

        async def listen() -> ReceiveMessage:
            message = await receive()
            if message["type"] == "http.disconnect" and not answered:
                scope[CLIENT_GONE] = True  # type: ignore[literal-required]
            return message

        async def respond(message: Message) -> None:
            nonlocal status, answered
            if message["type"] == "http.response.start":
                status = message["status"]
                extra: Any = scope.get(LIMIT_HEADERS) or ()
                # Every response names its log line.
                message["headers"] = [*message.get("headers", ()), *extra, request_id]
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                answered = True
            await send(message)

        try:
            await self.app(scope, listen, respond)
        finally:
            request_log.finish(scope, status, time.perf_counter() - started)


class ApiAccess:
    """After routing, on /api/v1: the caller and the rate limit (see the module docstring).
    OPTIONS answers which methods a path has, without a token and without counting."""

    __slots__ = ("app",)

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        method: str = scope.get("method", "GET")  # type: ignore[assignment]
        if method == "OPTIONS":
            await self.app(scope, receive, send)
            return
        header: str = scope[AUTHORIZATION]  # type: ignore[literal-required]
        principal = await auth.authenticate(auth.bearer_token(header))
        scope["user"] = principal
        scope["auth"] = principal.token_id
        limiter: RateLimiter = scope[LIMITER]  # type: ignore[literal-required]
        handler = scope.get("route_handler")
        read = handler is not None and bool(handler.opt.get(COUNTS_AS_READ))
        decision = await limiter.hit(method, principal.user_id, read=read)
        if not decision.allowed:
            raise TooManyRequests(
                f"Rate limit of {decision.limit} requests per minute exceeded; "
                f"retry in {decision.retry_after} s",
                headers=decision.headers(),
            )
        scope[LIMIT_HEADERS] = decision.raw_headers()  # type: ignore[literal-required]
        await self.app(scope, receive, send)
