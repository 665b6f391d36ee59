"""Security properties through the real stack: token storage and logging, immediate effect of
revocation, deactivation and downgrades, literal search, and workspace isolation on every
route of the app's route table."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.routes import HTTPRoute

from api import request_log
from api.ratelimit import reset_local_counters
from models import accounts, clock, db, logs, members, statements, tokens
from models.settings import get_settings
from models.tables import ApiToken, Order, Sku
from models.webhooks import events as outbox
from tests import factories
from tests.api.route_table import PARAM, api_routes, fill
from tests.proofs.files import png

ME = "/api/v1/me"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def secret_fragments(token: str, shown: int = 8) -> list[str]:
    """The token and every 10-character piece of its secret part (past the shown prefix)."""
    assert token.startswith(tokens.TOKEN_PREFIX)
    return [token] + [token[i : i + 10] for i in range(shown, len(token) - 9)]


# --- tokens at rest ---------------------------------------------------------------------------


async def test_tokens_are_random_prefixed_and_stored_only_as_digests(client):
    _, u, _ = await factories.account()
    row, clear = await accounts.issue_token(user_id=u.id, name="storefront")
    assert (await client.get(ME, headers=bearer(clear))).status_code == 200
    assert clear.startswith("plk_") and len(clear) - len("plk_") >= 27  # ≥160 bits, base64url
    stored = await ApiToken.select().where(ApiToken.id == row.id).first()
    assert stored is not None
    assert stored["digest"] == tokens.digest(clear)
    assert stored["prefix"] == clear[:8]
    for table in db.all_tables():  # no table holds the token or a piece of its secret
        dump = repr(await table.select())
        leaked = [piece for piece in secret_fragments(clear) if piece in dump]
        assert not leaked, f"{table._meta.tablename} holds part of a clear token"
    assert len({tokens.generate() for _ in range(1000)}) == 1000


async def test_the_token_lookup_is_one_equality_on_the_digest(client):
    _, _, auth = await factories.account()
    clear = auth["Authorization"].split()[1]
    sent: list[tuple[str, tuple[Any, ...]]] = []
    with statements.watch(lambda sql, args: sent.append((sql, tuple(args)))):
        assert (await client.get(ME, headers=auth)).status_code == 200
        near_miss = clear[:-1] + ("A" if clear[-1] != "A" else "B")
        refused = await client.get(ME, headers=bearer(near_miss))
    token_queries = [(sql, args) for sql, args in sent if "FROM api_tokens" in sql]
    assert len(token_queries) == 2
    sql, args = token_queries[0]
    assert re.search(r"WHERE t\.digest = (\$1|\?1) LIMIT 1$", sql), sql
    assert args == (tokens.digest(clear),)
    assert not any(clear in repr(item) or near_miss in repr(item) for item in sent)
    # A token one character off is just unknown: no prefix matching, no hint.
    assert refused.status_code == 401
    assert refused.json() == {"message": "Invalid token", "code": "unauthenticated", "details": {}}


async def test_the_digest_column_is_uniquely_indexed(client):
    """The lookup is an index equality on the digest, never a scan comparing secrets."""
    run = db.engine().run_ddl
    if db.is_postgres():
        rows = await run("SELECT indexdef FROM pg_indexes WHERE tablename = 'api_tokens'")
        assert any(
            re.search(r"CREATE UNIQUE INDEX .* \(digest\)$", row["indexdef"]) for row in rows
        )
        return
    unique_columns = [
        [info["name"] for info in await run(f'PRAGMA index_info("{index["name"]}")')]
        for index in await run('PRAGMA index_list("api_tokens")')
        if index["unique"]
    ]
    assert ["digest"] in unique_columns


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        # As the processes write it (one JSON line, fields and traceback included), plus args.
        self.texts.append(f"{record.name} {logs.JsonFormatter().format(record)} {record.args!r}")


@pytest.fixture
def every_log_record() -> Iterator[Capture]:
    """Every record of every logger at DEBUG, including loggers that do not propagate."""
    capture = Capture()
    loggers = [logging.getLogger()] + [
        logger
        for logger in logging.root.manager.loggerDict.values()
        if isinstance(logger, logging.Logger) and not logger.propagate
    ]
    levels = {name: logging.getLogger(name).level for name in ("", "pressline", "litestar")}
    for logger in loggers:
        logger.addHandler(capture)
    for name in levels:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield capture
    finally:
        for logger in loggers:
            logger.removeHandler(capture)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


async def test_tokens_never_reach_the_logs_or_error_bodies(client, every_log_record):
    ws, u, _ = await factories.account()
    row, clear = await accounts.issue_token(user_id=u.id)
    forged = tokens.generate()
    requests = [
        ("GET", ME, bearer(clear), None),
        ("GET", "/api/v1/customers/987654", bearer(clear), None),
        ("GET", "/api/v1/orders?page=0", bearer(clear), None),
        ("POST", "/api/v1/orders", bearer(clear), {"customer_id": "x", "lines": []}),
        ("GET", ME, bearer(forged), None),
        ("GET", ME, {"Authorization": f"Token {clear}"}, None),
        ("GET", ME, {"Authorization": f"Bearer {clear} {clear}"}, None),
        ("GET", "/api/v1/nowhere", bearer(clear), None),
        ("DELETE", ME, bearer(clear), None),
    ]
    bodies = []
    for method, path, headers, body in requests:
        response = await client.request(method, path, headers=headers, json=body)
        assert response.status_code < 500
        bodies.append(response.text)
    await accounts.revoke_token(row.id)
    bodies.append((await client.get(ME, headers=bearer(clear))).text)
    logged = "\n".join(every_log_record.texts)
    assert f'"user_id":{u.id},"workspace_id":{ws.id}' in logged  # the capture sees requests
    for token in (clear, forged):
        for piece in secret_fragments(token):
            assert piece not in logged
            assert all(piece not in body for body in bodies)


def request_lines(capture: Capture) -> list[dict[str, Any]]:
    return [
        json.loads(text.split(" ", 1)[1].rsplit(" ", 1)[0])
        for text in capture.texts
        if text.startswith("pressline.request ")
    ]


async def test_one_json_log_line_per_request(client, every_log_record):
    ws, u, auth = await factories.account()
    await client.get(ME, headers=auth)
    await client.get("/api/v1/orders/12345?page=2&secret=x", headers=auth)
    await client.get(ME)
    await client.get("/api/v1/nowhere")
    await client.get("/health")  # probes log at DEBUG, below the default INFO
    lines = request_lines(every_log_record)
    assert [(line["method"], line["path"], line["status"]) for line in lines] == [
        ("GET", ME, 200),
        ("GET", "/api/v1/orders/12345", 404),  # the path only: no query string
        ("GET", ME, 401),
        ("GET", "/api/v1/nowhere", 404),
    ]
    assert lines[1]["route"] == "/api/v1/orders/{order_id}"
    assert [(line["user_id"], line["workspace_id"]) for line in lines] == [
        (u.id, ws.id),
        (u.id, ws.id),
        (None, None),
        (None, None),
    ]
    assert all(isinstance(line["duration_ms"], float | int) for line in lines)
    assert set(lines[0]) == {
        "time",
        "level",
        "logger",
        "message",
        "method",
        "path",
        "route",
        "status",
        "duration_ms",
        "request_id",
        "client",
        "user_id",
        "workspace_id",
    }


async def test_the_log_line_carries_the_platforms_request_id_and_the_client_address(
    client, every_log_record
):
    _, _, auth = await factories.account()
    router_id = "0b5e4c1d-3f1a-4a61-9d62-7c9e0d5b8a11"
    await client.get(ME, headers={**auth, "X-Request-ID": router_id})
    await client.get(ME, headers=auth)  # none sent: one is made
    await client.get(ME, headers=auth)
    await client.get(ME, headers={**auth, "X-Request-ID": "two words"})  # not one word
    await client.get(ME, headers={**auth, "X-Request-ID": "x" * 201})  # too long
    await client.get(ME, headers=[("X-Request-ID", "first-id"), ("X-Request-ID", "second-id")])
    ids = [line["request_id"] for line in request_lines(every_log_record)]
    assert ids[0] == router_id
    made = ids[1:5]
    assert all(re.fullmatch(r"[0-9a-f]{32}", made_id) for made_id in made), made
    assert len(set(made)) == 4  # a fresh one each time
    assert ids[5] == "first-id"
    lines = request_lines(every_log_record)
    assert {line["client"] for line in lines} == {"127.0.0.1"}  # the test client's address


async def test_log_level_comes_from_the_environment(client, every_log_record):
    request_logger = logging.getLogger(request_log.LOGGER_NAME)
    seen: dict[str, list[tuple[str, int]]] = {}
    try:
        for level in ("WARNING", "DEBUG"):
            request_log.logging_config(level).configure()  # as create_app does with LOG_LEVEL
            request_logger.addHandler(every_log_record)
            every_log_record.texts.clear()
            await client.get("/health")
            await client.get(ME)
            lines = request_lines(every_log_record)
            seen[level] = [(line["path"], line["status"]) for line in lines]
    finally:
        request_log.logging_config(get_settings().log_level).configure()
    assert seen == {"WARNING": [], "DEBUG": [("/health", 200), (ME, 401)]}
    assert request_logger.level == logging.INFO
    assert request_logger.handlers == []  # the root's JSON handler writes it, once


# --- revocation, deactivation and plan changes act on the next request ------------------------


async def test_a_revoked_token_is_refused_on_the_next_request(client):
    _, u, _ = await factories.account()
    row, clear = await accounts.issue_token(user_id=u.id)
    _, other = await accounts.issue_token(user_id=u.id)
    assert (await client.get(ME, headers=bearer(clear))).status_code == 200
    await accounts.revoke_token(row.id)
    for method, path in (("GET", ME), ("POST", "/api/v1/orders")):
        response = await client.request(method, path, headers=bearer(clear), json={})
        assert response.status_code == 401
        assert response.json() == {
            "message": "Token revoked",
            "code": "unauthenticated",
            "details": {},
        }
    assert (await client.get(ME, headers=bearer(other))).status_code == 200


async def test_an_expired_token_is_refused(client):
    _, u, _ = await factories.account()
    clear = await factories.token(u, expires_at=clock.now() - dt.timedelta(seconds=1))
    response = await client.get(ME, headers=bearer(clear))
    assert response.status_code == 401
    assert response.json() == {"message": "Token expired", "code": "unauthenticated", "details": {}}


async def test_deactivating_a_user_cuts_every_token_at_once(client):
    _, u, auth = await factories.account()
    second = bearer(await factories.token(u))
    assert (await client.get(ME, headers=auth)).status_code == 200
    await members.set_user_active(u.id, False)
    for headers in (auth, second):
        response = await client.get(ME, headers=headers)
        assert response.status_code == 403
        body = response.json()
        assert set(body) == {"message", "code", "details"}
        assert (body["code"], body["details"]) == ("forbidden", {})
    assert (await client.post("/api/v1/orders", headers=auth, json={})).status_code == 403
    await members.set_user_active(u.id, True)
    assert (await client.get(ME, headers=auth)).status_code == 200


async def test_a_plan_downgrade_answers_422_on_the_next_request(client):
    ws, _, auth = await factories.account(plan="enterprise")
    assert (await client.get(ME, headers=auth)).status_code == 200
    await accounts.set_workspace(ws.id, plan="standard")
    response = await client.get(ME, headers=auth)
    assert response.status_code == 422
    assert "plan" in response.json()["message"]
    assert (await client.post("/api/v1/orders", headers=auth, json={})).status_code == 422
    await accounts.set_workspace(ws.id, plan="premium")
    assert (await client.get(ME, headers=auth)).status_code == 200


async def test_an_ended_trial_stops_api_access(client):
    ws, _, auth = await factories.account(
        plan="starter", trial_ends_at=clock.now() + dt.timedelta(days=3)
    )
    assert (await client.get(ME, headers=auth)).status_code == 200
    await accounts.set_workspace(ws.id, trial_ends_at=clock.now() - dt.timedelta(seconds=1))
    assert (await client.get(ME, headers=auth)).status_code == 422


# --- search input is literal ----------------------------------------------------------------

SEARCH_TEXTS = ["100% cotton", "50_50 blend", "O'Brien", 'Say "hi"', "back\\slash", "semi; --"]
DECOYS = ["100 cotton", "50x50 blend", "OBrien", "Say hi", "backslash", "semi"]
PROBES = {
    "%": ["100% cotton"],
    "_": ["50_50 blend"],
    "0%": ["100% cotton"],
    "'": ["O'Brien"],
    "O'BRIEN": ["O'Brien"],
    '"': ['Say "hi"'],
    "\\": ["back\\slash"],
    "k\\s": ["back\\slash"],
    "; --": ["semi; --"],
    "%_": [],
    "\\%": [],
    "' OR '1'='1": [],
    "\x00": [],
    "%" * 200: [],
}


async def _searchable_customers(ws: Any) -> str:
    for name in SEARCH_TEXTS + DECOYS:
        await factories.customer(ws, name, slug=f"s-{uuid.uuid4().hex[:10]}")
    return "name"


async def _searchable_skus(ws: Any) -> str:
    for code in SEARCH_TEXTS + DECOYS:
        await factories.sku(ws, code)
    return "code"


SEARCHABLE = {"/api/v1/customers": _searchable_customers, "/api/v1/inventory": _searchable_skus}


def search_paths(app: Litestar) -> list[str]:
    """Every GET operation that documents a `search` query parameter."""
    paths = app.openapi_schema.paths or {}
    return sorted(
        path
        for path, item in paths.items()
        if item.get is not None
        and any(getattr(p, "name", None) == "search" for p in item.get.parameters or [])
    )


async def test_search_is_literal_on_every_searchable_list(app, client):
    paths = search_paths(app)
    assert set(paths) == set(SEARCHABLE), "a new `search` parameter needs fixture data here"
    for path in paths:
        ws, _, auth = await factories.account()
        field = await SEARCHABLE[path](ws)
        for probe, expected in PROBES.items():
            response = await client.get(path, params={"search": probe}, headers=auth)
            assert response.status_code == 200, (path, probe, response.text)
            found = sorted(row[field] for row in response.json()["data"])
            assert found == sorted(expected), (path, probe)


async def test_very_long_or_undecodable_search_never_fails(app, client):
    """Documented: any length is accepted; text longer than the field matches nothing."""
    ws, _, auth = await factories.account()
    await factories.customer(ws, "a" * 150, slug="long-name")
    await factories.sku(ws, "%" * 60)
    for path in search_paths(app):
        for text in ("%" * 10_000, "_" * 10_000, "'" * 10_000, "\\" * 10_000, "a" * 10_000):
            response = await client.get(path, params={"search": text}, headers=auth)
            assert response.status_code == 200, (path, text[:5], response.text)
            assert response.json()["data"] == []
        raw = await client.get(f"{path}?search=%FF%FE%00", headers=auth)
        assert raw.status_code < 500, raw.text
        assert "message" in raw.json() or raw.json()["data"] == []


# --- workspace isolation on every route -----------------------------------------------------


class Workspace_:
    """One workspace's records, keyed by the path parameter that names them."""

    def __init__(
        self, auth: dict[str, str], ids: dict[str, int | str], marker: str, sku: str
    ) -> None:
        self.auth, self.ids, self.marker, self.sku = auth, ids, marker, sku


async def populated_workspace() -> Workspace_:
    marker = f"Mark-{uuid.uuid4().hex[:10]}"
    ws, _, auth = await factories.account()
    customer = await factories.customer(ws, f"{marker} Tees")
    await factories.contact(customer, name=f"{marker} Contact", is_primary=True)
    sku = await factories.sku(ws, f"{marker.upper()}-M")
    order = await factories.order(ws, customer, lines=[(f"{marker} print", 10, 1250)])
    invoice = await factories.invoice(order)
    payment = await factories.payment(invoice)
    event_id = await outbox.record_event(
        workspace_id=ws.id,
        name="artwork.approved",
        fields={"order_id": order.id, "order_number": f"{marker} number"},
        order_id=order.id,
    )
    ids = {
        "customer_id": customer.id,
        "order_id": order.id,
        "event_id": event_id,
        "invoice_id": invoice.id,
        "payment_id": payment.id,
    }
    return Workspace_(auth, ids, marker, sku.code)


def order_body(customer_id: int, sku: str | None = None) -> dict[str, Any]:
    line: dict[str, Any] = {"description": "Front print", "quantity": 2, "unit_price_cents": 500}
    if sku is not None:
        line["sku"] = sku
    return {"customer_id": customer_id, "lines": [line]}


# A valid body for every POST and PUT route, given the ids of the workspace being addressed.
BODIES = {
    "/api/v1/orders": lambda ids, sku: order_body(ids["customer_id"]),
    "/api/v1/prices": lambda ids, sku: order_body(ids["customer_id"]),
    "/api/v1/pricing": lambda ids, sku: {"garment_markups": [{"min_quantity": 1, "percent": 50}]},
    "/api/v1/orders/{order_id}/advance": lambda ids, sku: {"to_stage": "print_queue"},
    "/api/v1/orders/{order_id}/artwork/approve": lambda ids, sku: {"approved_by": "Dana"},
    "/api/v1/customers": lambda ids, sku: {"name": "New Buyer"},
    "/api/v1/customers/{customer_id}/contacts": lambda ids, sku: {
        "name": "New Contact",
        "email": "new@example.com",
    },
    "/api/v1/customers/{customer_id}/addresses": lambda ids, sku: {
        "line1": "1 High Street",
        "city": "York",
        "country": "GB",
    },
    "/api/v1/invoices/{invoice_id}/payments": lambda ids, sku: {
        "amount_cents": 1,
        "method": "cash",
    },
    "/api/v1/payments/{payment_id}/void": lambda ids, sku: {"reason": "Cheque bounced"},
}
# POST routes that take a multipart form instead of JSON: the form's files, by route.
FORMS = {
    "/api/v1/orders/{order_id}/proofs": lambda: {"file": ("front.png", png(), "image/png")},
}
# Routes whose body names no record: they act on the caller's workspace whatever is sent.
NAMES_NO_RECORD = {"/api/v1/customers", "/api/v1/pricing"}
MISSING_ID = 2_000_000_000


async def test_every_route_hides_other_workspaces(app, client):
    mine, theirs = await populated_workspace(), await populated_workspace()
    before = {row["id"]: row for row in await Order.select()}
    routes = api_routes(app)
    assert ("POST", "/api/v1/orders/{order_id}/advance") in routes
    for method, template in routes:
        reset_local_counters()  # three requests a route: the write limit is not under test
        body = None
        files = FORMS[template]() if method == "POST" and template in FORMS else None
        if method in ("POST", "PUT") and files is None:
            assert template in BODIES, f"add a valid body for {method} {template}"
            body = BODIES[template]
        has_params = bool(PARAM.search(template))
        own = await client.request(
            method,
            fill(template, mine.ids),
            headers=mine.auth,
            json=body(mine.ids, mine.sku) if body else None,
            files=files,
        )
        assert own.status_code < 300, (method, template, own.text)  # the request itself is fine
        if not has_params and method == "GET":
            assert theirs.marker not in own.text and theirs.marker.upper() not in own.text
            continue
        if template in NAMES_NO_RECORD:
            assert theirs.marker not in own.text
            continue
        foreign = await client.request(
            method,
            fill(template, theirs.ids),
            headers=mine.auth,
            json=body(theirs.ids, theirs.sku) if body else None,
            files=files,
        )
        missing_ids = {name: MISSING_ID for name in mine.ids}
        missing = await client.request(
            method,
            fill(template, missing_ids),
            headers=mine.auth,
            json=body(missing_ids, "NO-SUCH-SKU") if body else None,
            files=files,
        )
        # Another workspace's record is indistinguishable from one that does not exist.
        assert foreign.status_code == missing.status_code, (method, template, foreign.text)
        # Messages may name the id that was asked for ("contact 31 not found"), nothing else.
        asked = re.compile(
            r"\b(?:" + "|".join(str(v) for v in {*theirs.ids.values(), MISSING_ID}) + r")\b"
        )
        assert asked.sub("N", foreign.json()["message"]) == asked.sub(
            "N", missing.json()["message"]
        )
        assert foreign.status_code == 404 if has_params else 400 <= foreign.status_code < 500
        assert theirs.marker not in foreign.text
    # Their order did not move, and no order was created against their customer.
    after = {row["id"]: row for row in await Order.select()}
    assert after[theirs.ids["order_id"]] == before[theirs.ids["order_id"]]
    created = [row for order_id, row in after.items() if order_id not in before]
    assert created and all(row["customer"] == mine.ids["customer_id"] for row in created)


async def test_options_and_405_list_exactly_the_routes_methods(app, client):
    for route in app.routes:
        if not isinstance(route, HTTPRoute) or not route.path.startswith("/api/v1"):
            continue
        path = PARAM.sub("1", route.path)
        methods = ", ".join(sorted(route.methods))
        assert (await client.options(path)).headers["allow"] == methods, route.path
        absent = next(m for m in ("PUT", "DELETE", "PATCH", "POST") if m not in route.methods)
        wrong = await client.request(absent, path)
        assert wrong.status_code == 405
        assert wrong.json() == {
            "message": "Method not allowed",
            "code": "method_not_allowed",
            "details": {},
        }
        assert sorted(wrong.headers["allow"].split(", ")) == sorted(route.methods)


async def test_another_workspaces_sku_on_an_order_line_is_unknown(client):
    mine, theirs = await populated_workspace(), await populated_workspace()
    foreign = await client.post(
        "/api/v1/orders",
        headers=mine.auth,
        json=order_body(mine.ids["customer_id"], theirs.sku),
    )
    missing = await client.post(
        "/api/v1/orders",
        headers=mine.auth,
        json=order_body(mine.ids["customer_id"], "NO-SUCH-SKU"),
    )
    assert foreign.status_code == missing.status_code == 422
    assert list(foreign.json()["errors"]) == list(missing.json()["errors"])
    reserved = await Sku.select(Sku.reserved).where(Sku.code == theirs.sku).first()
    assert reserved == {"reserved": 0}


async def test_every_response_carries_the_request_id_of_its_log_line(client, every_log_record):
    _, _, auth = await factories.account()
    sent = [
        ("GET", ME, {**auth, "X-Request-ID": "req-abc-123"}),
        ("GET", ME, auth),
        ("GET", "/api/v1/nowhere", auth),  # 404 before routing
        ("DELETE", ME, auth),  # 405
        ("GET", ME, {}),  # 401
        ("GET", "/admin/login", {}),
    ]
    answered = [await client.request(method, path, headers=h) for method, path, h in sent]

    ids = [line["request_id"] for line in request_lines(every_log_record)]
    assert [r.headers["x-request-id"] for r in answered] == ids
    assert ids[0] == "req-abc-123"
    assert all(re.fullmatch(r"[0-9a-f]{32}", made) for made in ids[1:])
