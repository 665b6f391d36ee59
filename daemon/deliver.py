"""One HTTP attempt: POST the stored bytes, signed; keep what the receiver answered (capped)."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp
import msgspec
from yarl import URL

from daemon import targets
from daemon.claim import Claimed
from models.urls import masked_url
from models.webhooks import signing

RESPONSE_BODY_LIMIT = 64 * 1024  # docs/webhooks.md: stored whole up to 64 KiB, then truncated
DRAIN_LIMIT = 8 * 1024 * 1024  # read (and count) at most this much past the stored part
_CHUNK = 16 * 1024


@dataclass
class Outcome:
    """What one attempt produced; `error` is set for network failures and non-2xx answers."""

    started_at: dt.datetime
    duration_ms: int = 0
    status_code: int | None = None
    error: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    truncated: bool = False
    length: int = 0

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300

    def headers_json(self) -> str:
        return msgspec.json.encode(self.headers).decode()

    def body_text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


def _headers(response: aiohttp.ClientResponse) -> dict[str, str]:
    merged: dict[str, str] = {}
    for name, value in response.headers.items():
        merged[name] = f"{merged[name]}, {value}" if name in merged else value
    return merged


async def _read_capped(response: aiohttp.ClientResponse, outcome: Outcome) -> None:
    """Keep the first 64 KiB; count the rest (up to DRAIN_LIMIT) without storing it."""
    kept = bytearray()
    total = 0
    try:
        while total < RESPONSE_BODY_LIMIT + DRAIN_LIMIT:
            chunk = await response.content.read(_CHUNK)
            if not chunk:
                break
            total += len(chunk)
            room = RESPONSE_BODY_LIMIT - len(kept)
            if room > 0:
                kept.extend(chunk[:room])
    finally:
        # Also when the body stops arriving in time: the status already decided the attempt.
        outcome.body = bytes(kept)
        outcome.length = max(total, response.content_length or 0)
        outcome.truncated = outcome.length > len(outcome.body)


def _status_error(outcome: Outcome) -> str | None:
    code = outcome.status_code
    if code is None or 200 <= code < 300:
        return None
    if 300 <= code < 400:
        location = outcome.headers.get("Location", "")
        # A receiver may send our URL back, credentials and all.
        where = f" (Location: {masked_url(location)})" if location else ""
        return f"HTTP {code}: redirect not followed{where}"
    return f"HTTP {code}"


def _network_error(exc: BaseException, timeout: float) -> str:
    refused = targets.refused_cause(exc)
    if refused is not None:
        return refused.message
    if isinstance(exc, TimeoutError):
        return f"timeout: no complete response within {timeout:g} s"
    if isinstance(exc, aiohttp.ClientConnectorError):
        reason = exc.os_error.strerror or str(exc.os_error) or type(exc.os_error).__name__
        return f"connection failed: {exc.host}:{exc.port}: {reason}"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


async def send(
    session: aiohttp.ClientSession,
    item: Claimed,
    *,
    timeout: float,  # noqa: ASYNC109 - the session's total timeout, named in errors
    allow_private: bool,
    now: Callable[[], dt.datetime],
) -> Outcome:
    """Make one attempt; never raises for anything the receiver or the network does."""
    outcome = Outcome(started_at=now())
    started = time.monotonic()
    response_seen = False
    # The session's ClientTimeout (total = `timeout`) bounds the whole attempt, the reading of
    # the answer included: one timer per attempt.
    try:
        url = URL(item.url)
        if not allow_private:
            targets.check_literal(url.host or "")
        request_headers = signing.headers(
            event=item.event,
            secret=item.secret,
            body=item.body,
            webhook_id=item.webhook_id,
            workspace_id=item.workspace_id,
            attempt=item.attempt,
            timestamp=int(time.time()),
            previous_secret=item.previous_secret,
        )
        async with session.post(
            url, data=item.body, headers=request_headers, allow_redirects=False
        ) as response:
            outcome.status_code = response.status
            outcome.headers = _headers(response)
            response_seen = True
            await _read_capped(response, outcome)
    except (aiohttp.ClientError, OSError, TimeoutError, ValueError) as exc:
        if not response_seen:
            outcome.error = _network_error(exc, timeout)
    outcome.duration_ms = int((time.monotonic() - started) * 1000)
    if outcome.error is None:
        outcome.error = _status_error(outcome)
    return outcome
