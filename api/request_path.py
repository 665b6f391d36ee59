"""The one layer every HTTP request goes through: who is calling, the rate limit, the log line
and the metrics observation, each done once per request.

`RequestPath` wraps the whole application, outside routing, so unknown routes, 405s and 413s
are timed, logged and counted like every other request. It holds the one wrapper of the
response's `send`: it notes the status and adds the rate-limit headers an allowed request was
given. When the response is over it observes the metrics and writes the log line
(api/request_log.py).

`ApiAccess` runs on the routes of /api/v1 once routing has matched one, so an unknown path is
404 and a wrong method 405 before any token is asked for. In the check order of docs/api.md
§2.2 (401 → 403 → 422 → 429) it reads the bearer token from the raw headers, resolves it with
one statement (token → user → workspace and plan: api/auth.py) and counts the request against
the user's limit (one Redis script call, or in-process: api/ratelimit.py). The handler gets the
resolved `Principal` as `request.user`; the headers for the response go to `RequestPath`
through the request's scope, so no second wrapper of `send` is needed.

Direct routes. A GET handler that names its answer in `opt={DIRECT: answer}` — an async
function of the `Principal` and the route's integer path parameter, returning the body — is
answered by `RequestPath` itself when the request's path is the route's own (`/api/v1/me`,
`/api/v1/orders/<digits>`): the same steps as `ApiAccess` in the same order, then the answer,
encoded as Litestar would encode it, with no `Request`, kwargs model or `Response` built
(≈ 60 µs of a `/me` request's ~190 µs in-process: docs/benchmarks.md). The token check and the
answer's reads share one pooled connection (`statements.shared`). Errors go through the
handler's own exception handlers, inside Litestar's exception middleware, so bodies and headers
are the ones Litestar would send. Any other shape of path (a trailing slash, `//`, a
non-digit id, a `root_path`, a host header Litestar would refuse) goes through Litestar as
before, and so does every method but GET. `direct_routes` refuses, at start, a handler that
has anything Litestar would run around it (guards, dependencies, hooks, headers, cookies, a
cache, a DTO, route middleware other than `ApiAccess`): such a handler must not be answered
without it.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from litestar import MediaType, Response
from litestar._asgi.utils import is_valid_host, wrap_in_exception_handler
from litestar.enums import HttpMethod
from litestar.exceptions import ImproperlyConfiguredException
from litestar.handlers.http_handlers._utils import normalize_headers
from litestar.routes import HTTPRoute
from litestar.serialization import encode_json, get_serializer
from litestar.utils.scope.state import ScopeState

from api import auth, request_log
from api.ratelimit import RateLimiter, TooManyRequests
from models import statements

if TYPE_CHECKING:
    from litestar import Litestar
    from litestar.handlers import HTTPRouteHandler
    from litestar.types import ASGIApp, ExceptionHandlersMap, Message, Receive, Scope, Send

    from api.auth import Principal

LIMITER = "pressline.rate_limiter"  # scope key: the app's limiter, set by RequestPath
LIMIT_HEADERS = "pressline.rate_limit_headers"  # scope key: raw headers for the response
DIRECT = "pressline.direct"  # a GET handler's `opt` key: its answer (module docstring)
_ROUTE = "pressline.direct_route"  # scope key: the direct route being answered

Answer = Callable[..., Awaitable[Any]]


class DirectRoute(NamedTuple):
    """A GET handler answered without Litestar's handler call (module docstring)."""

    handler: HTTPRouteHandler
    template: str  # the route's path template, as routing sets it (logs and metrics)
    parameter: str | None  # the trailing integer path parameter, if any
    answer: Answer
    exception_handlers: ExceptionHandlersMap
    encode: Callable[[Any], bytes]
    status: int


class DirectRoutes:
    """The app's direct routes, found by exact path (static) or by prefix and digits."""

    __slots__ = ("by_path", "by_prefix")

    def __init__(self) -> None:
        self.by_path: dict[str, DirectRoute] = {}
        self.by_prefix: dict[str, DirectRoute] = {}

    def find(self, scope: Scope) -> tuple[DirectRoute, int | None] | None:
        """The direct route of a GET to exactly a direct route's path, and its argument."""
        if scope["method"] != "GET" or scope.get("root_path"):  # type: ignore[typeddict-item]
            return None
        path: str = scope["path"]
        route = self.by_path.get(path)
        if route is not None:
            return route, None
        head, _, tail = path.rpartition("/")
        route = self.by_prefix.get(head)
        if route is not None and tail.isdigit() and tail.isascii():
            return route, int(tail)  # as Litestar's `int` path parameter parses it
        return None


def direct_routes(app: Litestar) -> DirectRoutes:
    """Every GET handler of `app` with a `DIRECT` answer, checked to need nothing Litestar
    would run around it."""
    found = DirectRoutes()
    for route in app.routes:
        if not isinstance(route, HTTPRoute) or HttpMethod.GET not in route.route_handler_map:
            continue
        handler, _ = route.route_handler_map[HttpMethod.GET]
        answer = handler.opt.get(DIRECT)
        if answer is None:
            continue
        _check_bare(handler)
        route_entry = DirectRoute(
            handler=handler,
            template=route.path_format,
            parameter=None,
            answer=answer,
            exception_handlers=handler.resolve_exception_handlers(),
            encode=_encoder(handler),
            status=handler.status_code,
        )
        parameters = route.path_parameters
        if not parameters:
            found.by_path[route.path] = route_entry
            continue
        name = next(iter(parameters))
        last = route.path_format.rpartition("/")
        if len(parameters) != 1 or parameters[name].type is not int or last[2] != f"{{{name}}}":
            raise ImproperlyConfiguredException(
                f"{route.path}: a direct route takes at most one int path parameter, last"
            )
        found.by_prefix[last[0]] = route_entry._replace(parameter=name)
    return found


def _encoder(handler: HTTPRouteHandler) -> Callable[[Any], bytes]:
    serializer = get_serializer(handler.resolve_type_encoders())
    return lambda data: encode_json(data, serializer)


def _check_bare(handler: HTTPRouteHandler) -> None:
    """Refuse a direct answer for a handler Litestar would run anything around."""
    extras = {
        "guards": handler.resolve_guards(),
        "dependencies": handler.resolve_dependencies(),
        "before_request": handler.resolve_before_request(),
        "after_request": [
            hook for layer in handler.ownership_layers if (hook := layer.after_request)
        ],
        "after_response": handler.resolve_after_response(),
        "response headers": normalize_headers(handler.resolve_response_headers()),
        "cookies": handler.resolve_response_cookies(),
        "cache": handler.cache,
        "return DTO": handler.resolve_return_dto(),
        "background": handler.background,
        "route middleware": [m for m in handler.resolve_middleware() if m is not ApiAccess],
        "response class": handler.resolve_response_class() is not Response,
        "media type": handler.media_type != MediaType.JSON,  # the answer is sent as JSON
    }
    present = [name for name, value in extras.items() if value]
    if present or ApiAccess not in handler.resolve_middleware():
        raise ImproperlyConfiguredException(
            f"{handler}: a direct answer would skip its {', '.join(present) or 'ApiAccess'}"
        )


class RequestPath:
    """Outermost ASGI layer of the web app (see the module docstring)."""

    __slots__ = ("_direct", "app", "direct", "limiter")

    def __init__(
        self, app: ASGIApp, limiter: RateLimiter, direct: DirectRoutes | None = None
    ) -> None:
        self.app = app
        self.limiter = limiter
        self.direct = direct or DirectRoutes()
        # Errors of a direct answer are rendered as on a routed request.
        self._direct = wrap_in_exception_handler(self._answer)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        scope[LIMITER] = self.limiter  # type: ignore[literal-required]
        status = 500  # if the application fails before answering

        async def respond(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                extra: Any = scope.get(LIMIT_HEADERS)
                if extra is not None:
                    message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        try:
            found = self.direct.find(scope)
            if found is not None and _valid_host(scope):
                _as_routed(scope, *found)
                scope[_ROUTE] = found  # type: ignore[literal-required]
                await self._direct(scope, receive, respond)
            else:
                await self.app(scope, receive, respond)
        finally:
            request_log.finish(scope, status, time.perf_counter() - started)

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A direct route: `ApiAccess`'s steps, then the answer, on one connection."""
        route, argument = scope[_ROUTE]  # type: ignore[literal-required]
        token = auth.bearer_token(scope)
        async with statements.connection() as reader:
            with statements.shared(reader):
                principal = await _admit(scope, token, self.limiter, "GET")
                if argument is None:
                    data = await route.answer(principal)
                else:
                    data = await route.answer(principal, argument)
        body = route.encode(data)
        await send(
            {
                "type": "http.response.start",
                "status": route.status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})


def _as_routed(scope: Scope, route: DirectRoute, argument: int | None) -> None:
    """What Litestar's routing sets in the scope (read by the log, the metrics, api/errors.py
    and Litestar's exception middleware)."""
    scope["route_handler"] = route.handler
    scope["path_template"] = route.template
    params: Any = {} if route.parameter is None else {route.parameter: argument}
    scope["path_params"] = params
    ScopeState.from_scope(scope).exception_handlers = route.exception_handlers


def _valid_host(scope: Scope) -> bool:
    """Litestar's router answers 400 to a malformed Host header: such requests go to it."""
    for name, value in scope["headers"]:
        if name == b"host":
            return is_valid_host(value)
    return True


async def _admit(scope: Scope, token: str, limiter: RateLimiter, method: str) -> Principal:
    """The token, the plan and the rate limit, in that order; the principal and the limit's
    headers go into the scope."""
    principal = await auth.authenticate(token)
    scope["user"] = principal
    scope["auth"] = principal.token_id
    decision = await limiter.hit(method, principal.user_id)
    if not decision.allowed:
        raise TooManyRequests(
            f"Rate limit of {decision.limit} requests per minute exceeded; "
            f"retry in {decision.retry_after} s",
            headers=decision.headers(),
        )
    scope[LIMIT_HEADERS] = decision.raw_headers()  # type: ignore[literal-required]
    return principal


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
        await _admit(scope, auth.bearer_token(scope), scope[LIMITER], method)  # type: ignore[literal-required]
        await self.app(scope, receive, send)
