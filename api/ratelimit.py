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

Redis faults. Redis is on the path of every authenticated request, so no request waits
for it longer than its budget (`RATE_LIMIT_REDIS_TIMEOUT`, 100 ms by default: long enough
for a Redis on a loaded machine to be scheduled, short enough to be one slow request) during
which it answers nobody (a busy event loop still receives answers, so a burst is not mistaken
for a hang; requests queue for a few connections rather than opening one each). A request
Redis does not answer is decided in-process, and so is every request after it until a
background probe, starting on fresh connections, finds Redis answering again: a hung Redis
costs the requests then in flight at most the budget and the later ones nothing, and no
request waits for the probe. Each such loss is logged once and counted in /metrics.
The connection and the scripts are set up when the web process starts, so the first burst
has answers to measure the budget against. A dead connection (Redis restarted, without the
counts) is replaced and the request retried at once on a fresh one.

The counts stay within the limit across an outage and its end because each process keeps,
beside Redis, its own log of every request it allowed, each entry named as its Redis member.
In-process decisions therefore count what the process allowed through Redis before the
outage; and before requests go back to Redis, the probe writes that log into Redis (members
already there keep their place, so nothing counts twice, and a restarted, empty Redis gets
the process's counts back). After a dead connection, the retried request sends its key's
logged requests in the same script call, so its answer does not start from zero, and the
other keys are handed back in the background. Between processes the outage is the one gap:
each counts alone until Redis answers, so a user spreading requests over N processes can get
up to N times the limit in the minute of an outage, and no more than the limit once the
counts are handed back.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import math
import time
import uuid
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import redis.asyncio as aioredis
from litestar.openapi.spec import OpenAPI, OpenAPIHeader, OpenAPIResponse, OpenAPIType, Schema
from litestar.status_codes import HTTP_429_TOO_MANY_REQUESTS
from prometheus_client import Counter
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from api.errors import ApiError
from models.errors import ErrorCode

if TYPE_CHECKING:
    from models.settings import Settings

log = logging.getLogger("pressline.ratelimit")

WINDOW_SECONDS = 60
READ, WRITE = "read", "write"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# A route handler's `opt` key: a POST that saves nothing (a price preview) counts as a read.
COUNTS_AS_READ = "counts_as_read"
LIMIT_HEADER, REMAINING_HEADER = "X-RateLimit-Limit", "X-RateLimit-Remaining"
RESET_HEADER, BUCKET_HEADER = "X-RateLimit-Reset", "X-RateLimit-Bucket"
DEFAULT_REDIS_TIMEOUT = 0.1  # seconds; RATE_LIMIT_REDIS_TIMEOUT (models/settings.py)

FALLBACKS = Counter(
    "pressline_rate_limit_redis_fallbacks_total",
    "Times this process stopped counting rate limits in Redis (Redis did not answer within "
    "RATE_LIMIT_REDIS_TIMEOUT or the connection failed) and counted in-process until it did",
)


class Decision(NamedTuple):
    allowed: bool
    limit: int
    remaining: int
    retry_after: int  # whole seconds until a request would pass; 0 when allowed
    reset: int  # whole seconds until the oldest counted request leaves the window (at least 1)
    bucket: str = ""  # READ or WRITE, set by `RateLimiter.hit` (a window knows only keys)

    def headers(self) -> dict[str, str]:
        """The response's rate-limit headers, the same on a success and on a 429 (which adds
        `Retry-After`), whichever window counted the request."""
        values = {
            LIMIT_HEADER: str(self.limit),
            REMAINING_HEADER: str(self.remaining),
            RESET_HEADER: str(self.reset),
            BUCKET_HEADER: self.bucket,
        }
        if not self.allowed:
            values["Retry-After"] = str(self.retry_after)
        return values

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """`headers()` as ASGI header pairs, for an allowed request's response."""
        return [(name.lower().encode(), value.encode()) for name, value in self.headers().items()]


def _decision(allowed: bool, limit: int, remaining: int, wait_seconds: float) -> Decision:
    """`wait_seconds`: until the oldest request counted in the window leaves it (when refused,
    until a request would pass)."""
    reset = max(1, math.ceil(wait_seconds))
    return Decision(allowed, limit, max(0, remaining), 0 if allowed else reset, reset)


class TooManyRequests(ApiError):
    status_code = HTTP_429_TOO_MANY_REQUESTS
    code = ErrorCode.RATE_LIMITED


class Window(Protocol):
    """Counts allowed requests per key over the last `WINDOW_SECONDS`."""

    async def start(self) -> None: ...

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

    async def start(self) -> None:
        """Nothing to open in-process."""

    async def hit(self, key: str, limit: int) -> Decision:
        return self.decide(key, limit, self._clock())

    def decide(self, key: str, limit: int, now: float) -> Decision:
        """Allow and log a request at `now` if fewer than `limit` are logged in the window."""
        times = self._current(key, now)
        if len(times) < limit:
            _insert(times, now)
            return _decision(True, limit, limit - len(times), times[0] + WINDOW_SECONDS - now)
        return _decision(False, limit, 0, times[0] + WINDOW_SECONDS - now)

    def record(self, key: str, at: float) -> None:
        """Log a request allowed elsewhere (by Redis), so in-process decisions count it."""
        _insert(self._current(key, at), at)

    def active_keys(self) -> list[str]:
        return list(self._log)

    def times(self, key: str, now: float) -> list[float]:
        """The key's logged times inside the window ending at `now`."""
        return [at for at in self._log.get(key, ()) if at > now - WINDOW_SECONDS]

    def _current(self, key: str, now: float) -> deque[float]:
        self._hits += 1
        if self._hits % self.SWEEP_EVERY == 0:
            self._sweep(now)
        times = self._log.setdefault(key, deque())
        while times and times[0] <= now - WINDOW_SECONDS:
            times.popleft()
        return times

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


def _insert(times: deque[float], at: float) -> None:
    """Keep the log sorted: a request sent to Redis may be answered after a later one."""
    if not times or times[-1] <= at:
        times.append(at)
    else:
        bisect.insort(times, at)


# KEYS[1] = the sorted set; ARGV = limit, window (µs), a unique member, then (after a dead
# connection only) an age in µs and a member per request this process allowed, which are
# added first if missing. Scores are the Redis server's time in µs, so web processes on hosts
# with drifting clocks agree on the window. Answers {allowed, remaining, µs until the oldest
# counted request leaves the window}.
_SLIDING_LOG = """
local key, limit, window = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
for i = 4, #ARGV, 2 do
  redis.call('ZADD', key, 'NX', now - tonumber(ARGV[i]), ARGV[i + 1])
end
local count = redis.call('ZCARD', key)
if count < limit then
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, math.ceil(window / 1000))
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local wait = tonumber(oldest[2]) + window - now
if count < limit then
  return {1, limit - count - 1, wait}
end
return {0, 0, wait}
"""


# KEYS[1] = the sorted set; ARGV = window (µs), then an age (µs before now) and a member per
# request a process allowed. Members Redis already holds keep their score (NX).
_MERGE = """
local key, window = KEYS[1], tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
for i = 2, #ARGV, 2 do
  redis.call('ZADD', key, 'NX', now - tonumber(ARGV[i]), ARGV[i + 1])
end
redis.call('PEXPIRE', key, math.ceil(window / 1000))
return redis.call('ZCARD', key)
"""


class RedisWindow:
    """The log in Redis, shared by every process. While Redis does not answer, requests are
    decided in-process (and the log says so) rather than refused or unlimited; a background
    probe hands the counts back to Redis once it answers (see the module docstring)."""

    PROBE_EVERY = 0.25  # seconds between probes while Redis is not answering
    PROBE_TIMEOUT = 2.0  # for the probe and the hand-back, off every request's path
    # A few connections that requests queue for: a burst opening one connection per request
    # would keep the event loop busy for tens of milliseconds before any answer is read.
    CONNECTIONS = 8

    def __init__(self, url: str, timeout: float = DEFAULT_REDIS_TIMEOUT) -> None:
        self.budget = timeout  # seconds a request waits while Redis answers nobody
        # No retry inside the client: a dead pooled connection means Redis restarted (and lost
        # its counts), so the request is decided here and the probe hands the counts back.
        window = self

        class Connection(aioredis.Connection):
            """Counts every reply, handshakes included, as a sign that Redis is alive."""

            async def read_response(self, *args: Any, **kwargs: Any) -> Any:
                response = await super().read_response(*args, **kwargs)
                window.answers += 1
                return response

        self._redis = aioredis.Redis(
            connection_pool=aioredis.BlockingConnectionPool.from_url(
                url,
                connection_class=Connection,
                max_connections=self.CONNECTIONS,
                timeout=None,  # waiting for a connection is part of the request's budget
                socket_connect_timeout=max(self.PROBE_TIMEOUT, timeout),
                socket_timeout=max(self.PROBE_TIMEOUT, timeout),
                health_check_interval=30,
                retry=Retry(NoBackoff(), 0),
            )
        )
        self._script = self._redis.register_script(_SLIDING_LOG)
        self._merge_script = self._redis.register_script(_MERGE)
        self._local = MemoryWindow()
        self._name = uuid.uuid4().hex[:12]
        self._last = 0.0
        self.answers = 0  # replies from Redis so far: a request's budget runs while none come
        self._decided_here = 0  # requests decided in-process, so the hand-back sees new ones
        self._probe: asyncio.Task[None] | None = None
        self.shared = True  # counting in Redis (False while it does not answer)

    async def start(self) -> None:
        """Connect and load the scripts before the first request (at the web process's start),
        so a first burst of requests is not kept waiting by connection setup; a Redis that
        does not answer here is probed in the background like any loss."""
        try:
            async with asyncio.timeout(self.PROBE_TIMEOUT):
                await self._redis.ping()
                for script in (self._script, self._merge_script):
                    await self._redis.script_load(script.script)
        except Exception as exc:  # as on a request's path: never a reason not to start
            self._lost(exc)

    def _stamp(self) -> float:
        """The time of a request, strictly after the last one, so it names the request."""
        now = time.monotonic()
        self._last = now if now > self._last else math.nextafter(self._last, math.inf)
        return self._last

    def _member(self, at: float) -> str:
        return f"{self._name}:{at!r}"

    async def hit(self, key: str, limit: int) -> Decision:
        at = self._stamp()
        if self.shared:
            try:
                try:
                    answer = await self._ask(key, limit, at)
                except (RedisConnectionError, ConnectionError):
                    # A dead connection: Redis restarted (its counts gone) or the link broke.
                    # Once more on fresh connections, giving Redis this key's own requests
                    # back in the same call; the other keys follow in the background.
                    await self._redis.connection_pool.disconnect(inuse_connections=False)
                    answer = await self._ask(key, limit, at, self._own(key, at))
                    self._hand_back_soon()
            # Whatever goes wrong with Redis (the budget's TimeoutError, a connection closed
            # under the client, a bug in it) costs the request its shared count, never the
            # request itself.
            except Exception as exc:
                self._lost(exc)
            else:
                allowed, remaining, wait_us = answer
                if allowed:
                    self._local.record(key, at)
                return _decision(bool(allowed), limit, int(remaining), int(wait_us) / 1_000_000)
        self._decided_here += 1
        return self._local.decide(key, limit, at)

    async def _ask(self, key: str, limit: int, at: float, own: Sequence[Any] = ()) -> Any:
        """One run of the sliding log in Redis, within the request's budget."""
        async with asyncio.timeout(None) as timeout:
            budget = _Budget(self, timeout)
            try:
                answer = await self._script(
                    keys=[key],
                    args=[limit, WINDOW_SECONDS * 1_000_000, self._member(at), *own],
                )
            finally:
                budget.cancel()
        return answer

    def _own(self, key: str, now: float) -> list[int | str]:
        """This process's requests of `key` in the window, as (age in µs, member) arguments."""
        args: list[int | str] = []
        for at in self._local.times(key, now):
            args += [int((now - at) * 1_000_000), self._member(at)]
        return args

    def _lost(self, exc: BaseException) -> None:
        if not self.shared:
            return
        self.shared = False
        FALLBACKS.inc()  # once per loss, like the line below: /metrics says how often
        log.warning(
            "rate limits counted in-process: Redis unavailable (%s)",
            str(exc) or type(exc).__name__,
        )
        if self._probe is not None:
            self._probe.cancel()  # a hand-back under way is overtaken by the recovery
        self._probe = asyncio.create_task(self._recover(), name="ratelimit-redis-probe")

    def _hand_back_soon(self) -> None:
        if self._probe is None or self._probe.done():
            self._probe = asyncio.create_task(self._hand_back_once(), name="ratelimit-hand-back")

    async def _recover(self) -> None:
        # Connections opened before the loss may be dead (a restart): start afresh.
        await self._redis.connection_pool.disconnect(inuse_connections=False)
        while True:
            try:
                async with asyncio.timeout(self.PROBE_TIMEOUT):
                    await self._redis.ping()
                    handed_back = await self._hand_back()
            except Exception:  # anything but an answer: try again later
                handed_back = None
            if handed_back is not None:
                self.shared = True  # no await since the last hand-back: nothing missed
                log.warning("rate limits shared through Redis again (%d keys)", handed_back)
                return
            await asyncio.sleep(self.PROBE_EVERY)

    async def _hand_back_once(self) -> None:
        """After a dead connection: the other keys' counts, should Redis have lost them."""
        try:
            async with asyncio.timeout(self.PROBE_TIMEOUT):
                await self._hand_back()
        except Exception as exc:  # as on a request's path: counted here until Redis is back
            self._lost(exc)

    async def _hand_back(self) -> int | None:
        """Write every request this process allowed in the window into Redis; the number of
        keys, or None while requests keep being decided here faster than this catches up."""
        for _ in range(3):
            decided = self._decided_here
            now = self._stamp()
            pipe = self._redis.pipeline(transaction=False)
            keys = 0
            for key in self._local.active_keys():
                own = self._own(key, now)
                if own:
                    await self._merge_script(
                        keys=[key], args=[WINDOW_SECONDS * 1_000_000, *own], client=pipe
                    )
                    keys += 1
            await pipe.execute()
            if self._decided_here == decided:
                return keys
        return None

    async def close(self) -> None:
        if self._probe is not None:
            self._probe.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._probe
        await self._redis.aclose()


class _Budget:
    """Ends a request's wait for Redis once Redis has answered nobody for `budget` seconds
    of the event loop's own time.

    The wait is looked at every half budget. A look at which answers have arrived (to any
    request, handshakes included) finds Redis alive: this request is only queued behind
    others. A look that runs late finds the loop itself busy (a burst of requests), so the
    time since the last look gave Redis no fair chance to be heard and does not count. Only
    on-time looks without answers use the budget up: a wall-clock timeout alone would send a
    loaded process to in-process counts while Redis is fine, and a hung Redis on a
    responsive loop still costs the request no more than `budget`."""

    __slots__ = ("_due", "_handle", "_loop", "_seen", "_silent", "_timeout", "_window")

    def __init__(self, window: RedisWindow, timeout: asyncio.Timeout) -> None:
        self._window, self._timeout = window, timeout
        self._loop = asyncio.get_running_loop()
        self._seen = window.answers
        self._silent = 0.0  # fair time without any answer
        self._arm()

    def _arm(self) -> None:
        self._due = self._loop.time() + self._window.budget / 2
        self._handle: asyncio.Handle = self._loop.call_at(self._due, self._look)

    def _look(self) -> None:
        step = self._window.budget / 2
        if self._window.answers != self._seen:
            self._seen, self._silent = self._window.answers, 0.0
        elif self._loop.time() - self._due <= step / 2:
            self._silent += step
            if self._silent >= self._window.budget - 1e-9:
                self._timeout.reschedule(self._loop.time())  # give up now: TimeoutError
                return
        self._arm()

    def cancel(self) -> None:
        self._handle.cancel()


class RateLimiter:
    """The limits, the window they are counted in, and the key of a user's bucket."""

    def __init__(self, window: Window, *, read: int, write: int, prefix: str) -> None:
        self.window = window
        self.limits = {READ: max(1, read), WRITE: max(1, write)}
        self.prefix = prefix

    @classmethod
    def from_settings(cls, settings: Settings) -> RateLimiter:
        window: Window = (
            RedisWindow(settings.redis_url, settings.rate_limit_redis_timeout)
            if settings.redis_url
            else MemoryWindow()
        )
        return cls(
            window,
            read=settings.rate_limit_read,
            write=settings.rate_limit_write,
            prefix=settings.rate_limit_key_prefix,
        )

    async def start(self) -> None:
        await self.window.start()

    async def hit(self, method: str, user_id: int, *, read: bool = False) -> Decision:
        """Count a request of `user_id`; `read`: a write method that saves nothing."""
        bucket = WRITE if method.upper() in WRITE_METHODS and not read else READ
        decision = await self.window.hit(f"{self.prefix}:{bucket}:{user_id}", self.limits[bucket])
        return decision._replace(bucket=bucket)

    async def close(self) -> None:
        await self.window.close()


def document_headers(schema: OpenAPI, prefix: str) -> None:
    """Describe the limit headers on the operations under `prefix` in the OpenAPI schema.

    They are on every response to an authenticated request; documented as required on 2xx and
    429 only, because a 404 may come from routing (an id that is not a number) and a 422 from
    the plan check, both before the limiter runs. `Retry-After` is required on 429."""

    def header(description: str, required: bool, schema: Schema | None = None) -> OpenAPIHeader:
        return OpenAPIHeader(
            schema=schema or Schema(type=OpenAPIType.INTEGER),
            required=required,
            description=description,
        )

    for path, path_item in (schema.paths or {}).items():
        if not path.startswith(prefix):
            continue
        for operation in (path_item.get, path_item.post, path_item.patch):
            for status, response in ((operation.responses or {}) if operation else {}).items():
                if not isinstance(response, OpenAPIResponse) or status in {"401", "403"}:
                    continue
                required = status.startswith("2") or status == "429"
                headers = dict(response.headers or {})
                headers[LIMIT_HEADER] = header("Requests allowed per rolling minute", required)
                headers[REMAINING_HEADER] = header("Requests left in the window", required)
                headers[RESET_HEADER] = header(
                    "Whole seconds (at least 1) until the oldest request counted in the window "
                    "leaves it and the budget frees by one; on a 429 the same as `Retry-After`",
                    required,
                )
                headers[BUCKET_HEADER] = header(
                    "The budget this request counted against: `read` (GET) or `write` (POST, "
                    "PATCH)",
                    required,
                    Schema(type=OpenAPIType.STRING, enum=[READ, WRITE]),
                )
                if status == "429":
                    headers["Retry-After"] = header(
                        "Whole seconds until a request would pass", True
                    )
                response.headers = headers
