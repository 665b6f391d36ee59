"""Per-user rate limits (docs/security.md): a sliding one-minute log per user and bucket.

GET requests count against the read bucket, POST against the write bucket, keyed by the
authenticated user (so every token of a user shares them). The window slides: a request is
allowed when fewer than `limit` allowed requests happened in the previous 60 seconds, so no
burst of twice the limit fits across a minute boundary. Refused (429) requests are not counted:
a client that keeps retrying is let through as soon as its oldest request leaves the window.

Litestar's stores are plain get/set byte stores and its `RateLimitMiddleware` keeps a fixed
window read-modify-written in two round trips, keyed without the route and without a
`Retry-After`; a sliding log needs an atomic "prune, count, maybe add", so the counters live
here: in-process when `REDIS_URL` is unset, else in one Redis sorted set per user and bucket,
updated by a Lua script (atomic across every web process, timed by the Redis server's clock).
"""

from __future__ import annotations

import logging
import math
import time
import uuid
import weakref
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import redis.asyncio as aioredis
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.openapi.spec import OpenAPI, OpenAPIHeader, OpenAPIResponse, OpenAPIType, Schema
from litestar.status_codes import HTTP_429_TOO_MANY_REQUESTS
from redis.exceptions import RedisError

from api.errors import ApiError

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Message, Receive, Scope, Send

    from models.settings import Settings

log = logging.getLogger("pressline.ratelimit")

WINDOW_SECONDS = 60
READ, WRITE = "read", "write"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
LIMIT_HEADER, REMAINING_HEADER = "X-RateLimit-Limit", "X-RateLimit-Remaining"
_RAW_LIMIT, _RAW_REMAINING = LIMIT_HEADER.lower().encode(), REMAINING_HEADER.lower().encode()
_RAW_HEADER_NAMES = frozenset({_RAW_LIMIT, _RAW_REMAINING})


class Decision(NamedTuple):
    allowed: bool
    limit: int
    remaining: int
    retry_after: int  # whole seconds until a request would pass; 0 when allowed

    def headers(self) -> dict[str, str]:
        values = {LIMIT_HEADER: str(self.limit), REMAINING_HEADER: str(self.remaining)}
        if not self.allowed:
            values["Retry-After"] = str(self.retry_after)
        return values

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """`headers()` as ASGI header pairs, for an allowed request's response."""
        return [
            (_RAW_LIMIT, str(self.limit).encode()),
            (_RAW_REMAINING, str(self.remaining).encode()),
        ]


def _decision(allowed: bool, limit: int, remaining: int, wait_seconds: float) -> Decision:
    retry_after = 0 if allowed else max(1, math.ceil(wait_seconds))
    return Decision(allowed, limit, max(0, remaining), retry_after)


class TooManyRequests(ApiError):
    status_code = HTTP_429_TOO_MANY_REQUESTS


class Window(Protocol):
    """Counts allowed requests per key over the last `WINDOW_SECONDS`."""

    async def hit(self, key: str, limit: int) -> Decision: ...

    async def close(self) -> None: ...


_local_windows: weakref.WeakSet[MemoryWindow] = weakref.WeakSet()


def reset_local_counters() -> None:
    """Forget every in-process count (tests start each case with fresh buckets)."""
    for window in list(_local_windows):
        window.clear()


class MemoryWindow:
    """One process's log of request times per key; no await inside, so atomic on its loop."""

    SWEEP_EVERY = 1000  # hits between sweeps of idle keys, so memory follows active users

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._log: dict[str, deque[float]] = {}
        self._hits = 0
        _local_windows.add(self)

    def clear(self) -> None:
        self._log.clear()

    async def hit(self, key: str, limit: int) -> Decision:
        now = self._clock()
        self._hits += 1
        if self._hits % self.SWEEP_EVERY == 0:
            self._sweep(now)
        times = self._log.setdefault(key, deque())
        while times and times[0] <= now - WINDOW_SECONDS:
            times.popleft()
        if len(times) < limit:
            times.append(now)
            return _decision(True, limit, limit - len(times), 0)
        return _decision(False, limit, 0, times[0] + WINDOW_SECONDS - now)

    def _sweep(self, now: float) -> None:
        idle = [
            key
            for key, times in self._log.items()
            if not times or times[-1] <= now - WINDOW_SECONDS
        ]
        for key in idle:
            del self._log[key]

    async def close(self) -> None:
        self.clear()


# KEYS[1] = the sorted set; ARGV = limit, window (µs), a unique member. Scores are the Redis
# server's time in µs, so web processes on hosts with drifting clocks agree on the window.
_SLIDING_LOG = """
local key, limit, window = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count < limit then
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, math.ceil(window / 1000))
  return {1, limit - count - 1, 0}
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {0, 0, tonumber(oldest[2]) + window - now}
"""


class RedisWindow:
    """The log in Redis, shared by every process; falls back to in-process counts (and says
    so in the log) while Redis is unreachable, rather than refusing or unlimiting traffic."""

    RETRY_AFTER_FAILURE = 5.0  # seconds to use the fallback before trying Redis again

    def __init__(self, url: str) -> None:
        self._redis = aioredis.Redis.from_url(
            url, socket_connect_timeout=1, socket_timeout=1, health_check_interval=30
        )
        self._script = self._redis.register_script(_SLIDING_LOG)
        self._fallback = MemoryWindow()
        self._down_until = 0.0

    async def hit(self, key: str, limit: int) -> Decision:
        if time.monotonic() >= self._down_until:
            try:
                allowed, remaining, wait_us = await self._script(
                    keys=[key], args=[limit, WINDOW_SECONDS * 1_000_000, uuid.uuid4().hex]
                )
            except (RedisError, OSError) as exc:
                self._down_until = time.monotonic() + self.RETRY_AFTER_FAILURE
                log.warning("rate limits counted in-process: Redis unavailable (%s)", exc)
            else:
                return _decision(bool(allowed), limit, int(remaining), int(wait_us) / 1_000_000)
        return await self._fallback.hit(key, limit)

    async def close(self) -> None:
        await self._redis.aclose()


class RateLimiter:
    """The limits, the window they are counted in, and the key of a user's bucket."""

    def __init__(self, window: Window, *, read: int, write: int, prefix: str) -> None:
        self.window = window
        self.limits = {READ: max(1, read), WRITE: max(1, write)}
        self.prefix = prefix

    @classmethod
    def from_settings(cls, settings: Settings) -> RateLimiter:
        window: Window = RedisWindow(settings.redis_url) if settings.redis_url else MemoryWindow()
        return cls(
            window,
            read=settings.rate_limit_read,
            write=settings.rate_limit_write,
            prefix=settings.rate_limit_key_prefix,
        )

    async def hit(self, method: str, user_id: int) -> Decision:
        bucket = WRITE if method.upper() in WRITE_METHODS else READ
        return await self.window.hit(f"{self.prefix}:{bucket}:{user_id}", self.limits[bucket])

    async def close(self) -> None:
        await self.window.close()


class RateLimitMiddleware(ASGIMiddleware):
    """Runs after authentication (docs/api.md §2.2: 401 → 403 → 422 → 429) on the /api/v1 router;
    adds the limit headers to every response of an authenticated request, errors included.

    The limiter is read from `app.state.rate_limiter` on each request rather than held here:
    Litestar deep-copies routers (and their middleware) on registration, and a copied limiter
    would count apart from the one the app closes on shutdown."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        user: Any = scope.get("user")
        user_id = getattr(user, "user_id", None)
        if user_id is None:  # not authenticated (e.g. OPTIONS): nothing to count
            await next_app(scope, receive, send)
            return
        limiter: RateLimiter = scope["litestar_app"].state.rate_limiter
        decision = await limiter.hit(str(scope.get("method", "GET")), user_id)
        if not decision.allowed:
            raise TooManyRequests(
                f"Rate limit of {decision.limit} requests per minute exceeded; "
                f"retry in {decision.retry_after} s",
                headers=decision.headers(),
            )
        extra = decision.raw_headers()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                # Raw header pairs (replacing any of the same name), not MutableScopeHeaders:
                # this runs on every authenticated response.
                message["headers"] = [
                    *(
                        pair
                        for pair in message.get("headers") or ()
                        if pair[0].lower() not in _RAW_HEADER_NAMES
                    ),
                    *extra,
                ]
            await send(message)

        await next_app(scope, receive, send_with_headers)


def document_headers(schema: OpenAPI, prefix: str) -> None:
    """Describe the limit headers on the operations under `prefix` in the OpenAPI schema.

    They are on every response to an authenticated request; documented as required on 2xx and
    429 only, because a 404 may come from routing (an id that is not a number) and a 422 from
    the plan check, both before the limiter runs. `Retry-After` is required on 429."""

    def header(description: str, required: bool) -> OpenAPIHeader:
        return OpenAPIHeader(
            schema=Schema(type=OpenAPIType.INTEGER), required=required, description=description
        )

    for path, path_item in (schema.paths or {}).items():
        if not path.startswith(prefix):
            continue
        for operation in (path_item.get, path_item.post):
            for status, response in ((operation.responses or {}) if operation else {}).items():
                if not isinstance(response, OpenAPIResponse) or status in {"401", "403"}:
                    continue
                required = status.startswith("2") or status == "429"
                headers = dict(response.headers or {})
                headers[LIMIT_HEADER] = header("Requests allowed per rolling minute", required)
                headers[REMAINING_HEADER] = header("Requests left in the window", required)
                if status == "429":
                    headers["Retry-After"] = header(
                        "Whole seconds until a request would pass", True
                    )
                response.headers = headers
