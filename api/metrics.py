"""`GET /metrics`: Prometheus text for the platform's scraper (docs/operations.md, Metrics).

Request series are kept by prometheus-client in this process, or across a server's worker
processes when `PROMETHEUS_MULTIPROC_DIR` names a directory shared by them (uvicorn
`--workers N`). The outbox figures are read from the database at scrape time, so they are
right whichever worker delivered what. The endpoint answers only when `METRICS_TOKEN` is set,
and then only to `Authorization: Bearer <METRICS_TOKEN>`; it counts against no rate limit.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
from typing import TYPE_CHECKING

from litestar import MediaType, Request, Response, get
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from api.errors import NotFound, Unauthorized
from models.webhooks.stats import OutboxStats, outbox_stats

if TYPE_CHECKING:
    from collections.abc import Iterator

    from litestar.types import Scope
    from prometheus_client.metrics_core import Metric

log = logging.getLogger("pressline.metrics")

PATH = "/metrics"
STATE_KEY = "metrics_token"  # the app's state holds METRICS_TOKEN, read once at start
DATABASE_TIMEOUT = 3.0  # seconds; a scrape answers (without outbox figures) when the database hangs
UNMATCHED = "unmatched"  # the route label of requests no route matched (their paths are unbounded)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# Seconds; the API answers in milliseconds, a slow database in tenths, a stall in seconds.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter(
    "pressline_http_requests_total",
    "HTTP requests answered, by route template, method and status",
    ["route", "method", "status"],
)
LATENCY = Histogram(
    "pressline_http_request_duration_seconds",
    "Time from the first byte of a request to the end of its response, by route template",
    ["route", "method"],
    buckets=BUCKETS,
)
SCRAPE_ERRORS = Counter(
    "pressline_metrics_outbox_errors_total",
    "Scrapes that could not read the outbox figures from the database, by reason",
    ["reason"],
)

# The labelled children, looked up once per label set: `labels()` costs more than the
# observation itself on a request that takes a millisecond.
_children: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}


def observe(scope: Scope, status: int, seconds: float) -> None:
    """Count one answered request (called by the request log middleware, which times it)."""
    route = scope.get("path_template") or UNMATCHED
    method = scope.get("method", "")
    if method not in METHODS:
        method = "other"
    key = (route, method, status)
    children = _children.get(key)
    if children is None:
        children = (
            REQUESTS.labels(route=route, method=method, status=str(status)),
            LATENCY.labels(route=route, method=method),
        )
        _children[key] = children
    children[0].inc()
    children[1].observe(seconds)


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


class _Outbox(Collector):
    """The figures of one scrape, as gauges (read before exposition: collectors are sync)."""

    def __init__(self, stats: OutboxStats) -> None:
        self.stats = stats

    def collect(self) -> Iterator[Metric]:
        stats = self.stats
        yield _gauge(
            "pressline_outbox_pending_deliveries",
            "Webhook deliveries waiting to be sent (status pending)",
            stats.pending,
        )
        yield _gauge(
            "pressline_outbox_oldest_pending_age_seconds",
            "Age of the oldest pending delivery (0 when none is pending)",
            stats.oldest_pending_age_seconds,
        )
        yield _gauge(
            "pressline_outbox_attempts_last_5m",
            "Delivery attempts made in the last 5 minutes",
            stats.attempts_recent,
        )
        yield _gauge(
            "pressline_outbox_failed_attempts_last_5m",
            "Delivery attempts in the last 5 minutes that failed (non-2xx or network error)",
            stats.failed_attempts_recent,
        )
        yield _gauge(
            "pressline_webhook_subscriptions_deactivated",
            "Webhook subscriptions that are not active (deactivated or disabled)",
            stats.deactivated_subscriptions,
        )


def _request_series() -> bytes:
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        return generate_latest(REGISTRY)
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=directory)
    return generate_latest(registry)


async def _outbox_series() -> bytes:
    try:
        async with asyncio.timeout(DATABASE_TIMEOUT):
            stats = await outbox_stats()
    except TimeoutError:
        SCRAPE_ERRORS.labels(reason="timeout").inc()
        log.warning("metrics: the outbox figures timed out")
        return b""
    except Exception as exc:  # the scrape still answers: the error counter says why
        SCRAPE_ERRORS.labels(reason="database_error").inc()
        log.warning("metrics: the outbox figures could not be read (%s)", type(exc).__name__)
        return b""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Outbox(stats))
    return generate_latest(registry)


def _check_token(request: Request) -> None:
    expected: str | None = request.app.state.get(STATE_KEY)
    if not expected:
        raise NotFound("Not found")
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise Unauthorized("Missing bearer token: send 'Authorization: Bearer <METRICS_TOKEN>'")
    if not hmac.compare_digest(given.strip().encode(), expected.encode()):
        raise Unauthorized("Invalid token")


@get(PATH, include_in_schema=False, cache_control=None, media_type=MediaType.TEXT)
async def metrics(request: Request) -> Response[bytes]:
    _check_token(request)
    body = await _outbox_series() + _request_series()
    return Response(body, media_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})
