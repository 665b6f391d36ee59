"""Direct routes (api/request_path.py): a GET to exactly `/me`, `/orders/{id}` or
`/customers/{id}` is answered without Litestar's handler call, and must answer what Litestar
answers for the same route (reached here through a path Litestar normalises: a trailing slash)."""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

import asyncpg
import pytest
from litestar import Litestar, Router, get
from litestar.exceptions import ImproperlyConfiguredException

from api import request_log
from api.auth import Principal
from api.request_path import DIRECT, ApiAccess, direct_routes
from models import db, logs
from tests import factories


def _same_answer(direct: Any, routed: Any) -> None:
    assert direct.status_code == routed.status_code
    assert direct.content == routed.content
    # The limit's remaining count moves by one between the two requests.
    assert [
        (name, value) for name, value in direct.headers.items() if name != "x-ratelimit-remaining"
    ] == [
        (name, value) for name, value in routed.headers.items() if name != "x-ratelimit-remaining"
    ]
    assert "x-ratelimit-remaining" in direct.headers or direct.status_code in {401, 403, 422}


async def test_a_direct_answer_is_litestars_answer(client):
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    order = await factories.order(ws, c, lines=[("Tee", 3, 1200)])
    for path in (
        "/api/v1/me",
        f"/api/v1/orders/{order.id}",
        f"/api/v1/customers/{c.id}",
        "/api/v1/orders/99999",  # 404 from the answer
        "/api/v1/customers/0",
        "/api/v1/orders/00012",  # digits as Litestar's int parameter reads them
    ):
        direct = await client.get(path, headers=auth)
        routed = await client.get(path + "/", headers=auth)
        _same_answer(direct, routed)
    for headers in ({}, {"Authorization": "Bearer plk_nope"}, {"Authorization": "Basic x"}):
        _same_answer(
            await client.get("/api/v1/me", headers=headers),
            await client.get("/api/v1/me/", headers=headers),
        )


async def test_refusals_keep_their_order_on_a_direct_route(client):
    _, _, auth = await factories.account(plan="starter")
    response = await client.get("/api/v1/me", headers=auth)
    assert response.status_code == 422
    assert "x-ratelimit-limit" not in response.headers  # refused before the limit counts


async def test_a_direct_detail_takes_one_pooled_connection(client, backend, monkeypatch):
    if not db.is_postgres():
        pytest.skip("PostgreSQL only: SQLite reads on one process-wide connection")
    ws, _, auth = await factories.account()
    c = await factories.customer(ws)
    order = await factories.order(ws, c)
    acquired: list[object] = []
    real = asyncpg.pool.Pool.acquire

    def acquire(self: Any, *args: Any, **kwargs: Any) -> Any:
        acquired.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(asyncpg.pool.Pool, "acquire", acquire)
    for path in (f"/api/v1/orders/{order.id}", f"/api/v1/customers/{c.id}", "/api/v1/me"):
        acquired.clear()
        assert (await client.get(path, headers=auth)).status_code == 200
        assert len(acquired) == 1, path  # the token check and the reads share it


async def _answer(principal: Principal) -> dict[str, int]:
    return {"id": principal.user_id}


def test_a_handler_with_more_around_it_is_not_answered_directly():
    async def guard(*_: Any) -> None:
        return None

    @get("/me", opt={DIRECT: _answer}, guards=[guard], sync_to_thread=False)
    def guarded() -> dict[str, int]:
        return {}

    app = Litestar(
        route_handlers=[Router(path="/api/v1", route_handlers=[guarded], middleware=[ApiAccess])],
        openapi_config=None,
    )
    with pytest.raises(ImproperlyConfiguredException, match="guards"):
        direct_routes(app)

    @get("/me", opt={DIRECT: _answer}, sync_to_thread=False)
    def unprotected() -> dict[str, int]:
        return {}

    with pytest.raises(ImproperlyConfiguredException, match="ApiAccess"):
        direct_routes(Litestar(route_handlers=[unprotected], openapi_config=None))


# --- the request's log record -------------------------------------------------------------


def test_a_request_record_is_the_record_logging_would_make():
    fields = {"method": "GET", "path": "/api/v1/me", "status": 200}
    made = request_log.RequestRecord(logging.INFO, fields)
    usual = request_log.log.makeRecord(
        request_log.LOGGER_NAME, logging.INFO, "", 0, "request", (), None, extra={"fields": fields}
    )
    timing = {"created", "msecs", "relativeCreated"}
    threads = {"thread", "threadName", "process", "processName"}  # off in the web process
    assert set(vars(made)) == set(vars(usual))
    for name in set(vars(made)) - timing - threads:
        assert getattr(made, name) == getattr(usual, name), name
    assert abs(made.created - usual.created) < 1
    assert made.msecs == int((made.created - int(made.created)) * 1000)
    assert logs.JsonFormatter().format(made).startswith('{"time":"')


@pytest.mark.parametrize(
    "created",
    [0.0, 1.5, 1_700_000_000.0, 1_700_000_000.9999996, 1_700_000_000.0009995, 1_764_000_000.12],
)
def test_the_line_time_is_isoformat_to_the_millisecond(created):
    line = logs.JsonFormatter().format(logging.makeLogRecord({"msg": "x", "created": created}))
    expected = dt.datetime.fromtimestamp(created, dt.UTC).isoformat(timespec="milliseconds")
    assert json.loads(line)["time"] == expected
