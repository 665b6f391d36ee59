"""`GET /metrics`: token-protected Prometheus text; request series by route template, outbox
figures equal to what the database holds, and no 5xx when the database is down."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from litestar import Litestar
from piccolo.engine.sqlite import SQLiteEngine
from prometheus_client.parser import text_string_to_metric_families

from models import clock, db
from models.tables import WebhookAttempt
from tests import factories
from tests.daemon import support

TOKEN = "metrics-secret-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
async def scraper(
    app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    """A second app built with METRICS_TOKEN set, on the database the session's app opened."""
    monkeypatch.setenv("METRICS_TOKEN", TOKEN)
    from api.app import create_app

    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(text: str, name: str, **labels: str) -> float | None:
    return samples(text).get((name, tuple(sorted(labels.items()))))


async def test_metrics_are_off_without_a_configured_token(client):
    response = await client.get("/metrics")
    assert response.status_code == 404
    assert response.json() == {"message": "Not found", "code": "not_found", "details": {}}


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}, {"Authorization": "Bearer "}],
)
async def test_metrics_refuse_a_missing_or_wrong_token(scraper, headers):
    response = await scraper.get("/metrics", headers=headers)
    assert response.status_code == 401
    body = response.json()
    assert set(body) == {"message", "code", "details"}
    assert (body["code"], body["details"]) == ("unauthenticated", {})
    assert "x-ratelimit-limit" not in response.headers


async def test_requests_are_counted_by_route_template_never_by_raw_path(scraper):
    _, _, headers = await factories.account()
    before = (await scraper.get("/metrics", headers=AUTH)).text
    template = "/api/v1/orders/{order_id}"
    base = (
        value(before, "pressline_http_requests_total", route=template, method="GET", status="404")
        or 0
    )
    for order_id in (11, 12, 13):
        assert (await scraper.get(f"/api/v1/orders/{order_id}", headers=headers)).status_code == 404
    await scraper.get("/no/such/path/12345")
    await scraper.request("BREW", "/api/v1/orders")

    text = (await scraper.get("/metrics", headers=AUTH)).text

    assert (
        value(text, "pressline_http_requests_total", route=template, method="GET", status="404")
        == base + 3
    )
    assert (
        value(text, "pressline_http_request_duration_seconds_count", route=template, method="GET")
        >= 3
    )
    routes = {dict(labels).get("route") for (_, labels) in samples(text)}
    assert "unmatched" in routes
    assert not any(route and "12345" in route for route in routes)
    methods = {dict(labels).get("method") for (_, labels) in samples(text)}
    assert "BREW" not in methods


async def test_outbox_figures_match_the_database(scraper, receiver_url="http://127.0.0.1:9/hook"):
    ws = await support.workspace()
    active = await support.subscription(ws, receiver_url)
    await support.subscription(ws, receiver_url, is_active=False)
    now = clock.now()
    oldest = now - dt.timedelta(minutes=42)
    await support.delivery(await support.event(ws), active, created_at=oldest)
    await support.delivery(await support.event(ws), active)
    done = await support.delivery(await support.event(ws), active, status="succeeded")
    for number, code in enumerate((200, 500, None), start=1):
        await WebhookAttempt(
            delivery=done.id,
            number=number,
            started_at=now - dt.timedelta(minutes=1),
            duration_ms=3,
            status_code=code,
            error=None if code else "connection refused",
        ).save()
    await WebhookAttempt(
        delivery=done.id, number=4, started_at=now - dt.timedelta(hours=1), duration_ms=3
    ).save()

    text = (await scraper.get("/metrics", headers=AUTH)).text

    assert value(text, "pressline_outbox_pending_deliveries") == 2
    age = value(text, "pressline_outbox_oldest_pending_age_seconds")
    assert 42 * 60 <= age < 43 * 60
    assert value(text, "pressline_outbox_attempts_last_5m") == 3
    assert value(text, "pressline_outbox_failed_attempts_last_5m") == 2
    assert value(text, "pressline_webhook_subscriptions_deactivated") == 1


@pytest.fixture
def database_down(tmp_path) -> Iterator[None]:
    real = db.engine()
    db.bind(SQLiteEngine(path=str(tmp_path / "missing-dir" / "db.sqlite3")))
    try:
        yield
    finally:
        db.bind(real)


async def test_a_scrape_with_the_database_down_answers_without_outbox_figures(
    scraper, database_down
):
    response = await scraper.get("/metrics", headers=AUTH)

    assert response.status_code == 200
    text = response.text
    assert value(text, "pressline_outbox_pending_deliveries") is None
    assert value(text, "pressline_metrics_outbox_errors_total", reason="database_error") >= 1
