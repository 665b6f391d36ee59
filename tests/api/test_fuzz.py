"""Property-based fuzzing of every operation in the generated OpenAPI schema (schemathesis).

Each operation gets generated valid and invalid requests with a real token; every response
must be documented (status, headers, body schema) and nothing may answer 5xx. Runs on both
engines.

Schemathesis drives the app from its own event loop (another thread), so the app under test
runs without its lifespan, on a pool-less engine for the same database: every query opens its
own connection, which any loop may do. Rate limits are raised for this app, so generated
traffic is not refused with 429s.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from litestar import Litestar

from api.app import create_app
from models import db
from tests import factories, fuzzing
from tests.api.test_events import record_every_event

# A bounded, repeatable run by default (well under a minute per engine); for a deeper search
# set PRESSLINE_FUZZ_PROFILE=long (tests/fuzzing.py), or PRESSLINE_FUZZ_EXAMPLES=500
# PRESSLINE_FUZZ_RANDOM=1.
LONG = fuzzing.NAME == "long"
MAX_EXAMPLES = int(os.environ.get("PRESSLINE_FUZZ_EXAMPLES", "300" if LONG else "30"))
DETERMINISTIC = os.environ.get("PRESSLINE_FUZZ_RANDOM", "") != "1" and not LONG


def without_lifespan(app: Litestar) -> Any:
    """The app for requests; startup/shutdown acknowledged without opening a pool."""

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await app(scope, receive, send)
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    return asgi


def fuzz_app_for(backend: str) -> Any:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RATE_LIMIT_READ", "1000000")
        env.setenv("RATE_LIMIT_WRITE", "1000000")
        env.delenv("REDIS_URL", raising=False)
        return without_lifespan(create_app())


# Positive and negative requests; the token is sent by the test, so schemathesis does not
# generate (or drop) the Authorization header itself. Schema-valid bodies may still break a
# business rule the schema cannot state (a refused stage move, a taken external_ref, another
# workspace's customer): on POST, PUT and PATCH that is a documented 422, and a PATCH, a PUT
# or a stage move whose generated If-Match is not the current ETag is a documented 412.
CONFIG = f"""
[generation]
mode = "all"
max-examples = {MAX_EXAMPLES}
deterministic = {str(DETERMINISTIC).lower()}
with-security-parameters = false

[[operations]]
include-method = "POST"
exclude-operation-id = "advanceOrder"
checks.positive_data_acceptance.expected-statuses = ["2xx", "404", "409", "422"]

[[operations]]
include-operation-id = "advanceOrder"
checks.positive_data_acceptance.expected-statuses = ["2xx", "404", "409", "412", "422"]

[[operations]]
include-method = "PATCH"
checks.positive_data_acceptance.expected-statuses = ["2xx", "404", "409", "412", "422"]

[[operations]]
include-method = "PUT"
checks.positive_data_acceptance.expected-statuses = ["2xx", "409", "412", "422"]
"""

# Loaded once at collection (serving the schema needs no database); one test per operation.
schema = schemathesis.openapi.from_asgi(
    "/schema/openapi.json",
    without_lifespan(create_app()),
    config=schemathesis.config.SchemathesisConfig.from_str(CONFIG),
)


@pytest.fixture(scope="module")
def fuzz_app(backend: str) -> Iterator[Any]:
    """The app with raised limits, on a pool-less engine for the backend's database."""
    real = db.engine()
    db.bind(db.engine_from_url(backend))
    try:
        yield fuzz_app_for(backend)
    finally:
        db.bind(real)


class World:
    def __init__(
        self, auth: dict[str, str], customer_id: int, order_ids: list[int], event_ids: list[str]
    ) -> None:
        self.auth, self.customer_id, self.order_ids = auth, customer_id, order_ids
        self.event_ids = event_ids

    def aim(self, case: Any) -> bool:
        """Point a schema-valid case at this workspace's own records (random ids are mostly
        404s), so detail, create and advance are exercised past the lookup; False if the case
        names no record."""
        aimed = False
        params = dict(case.path_parameters or {})
        if "customer_id" in params:
            params["customer_id"] = self.customer_id
        if "order_id" in params:  # spread over orders in every stage
            params["order_id"] = self.order_ids[len(repr(case.body)) % len(self.order_ids)]
        if "event_id" in params:
            params["event_id"] = self.event_ids[len(repr(case.query)) % len(self.event_ids)]
        if params:
            case.path_parameters, aimed = params, True
        if isinstance(case.body, dict) and "customer_id" in case.body:
            case.body = {**case.body, "customer_id": self.customer_id}
            aimed = True
        if aimed and case.headers and "Idempotency-Key" in case.headers:
            # A changed request under a key already used is (rightly) refused; use a new key.
            case.headers = {**case.headers, "Idempotency-Key": uuid.uuid4().hex}
        return aimed


STAGES = ("artwork", "print_queue", "in_production", "qc_pack", "dispatched")


@pytest.fixture
async def world(fuzz_app: Any) -> AsyncIterator[World]:
    """A workspace with a customer, an order in every stage, SKUs, events, and its user's
    token."""
    ws, _, auth = await factories.account()
    customer = await factories.customer(ws)
    await factories.contact(customer, is_primary=True)
    orders = [await factories.order(ws, customer, stage=stage) for stage in STAGES * 2]
    await factories.sku(ws, "TEE-BLK-M", on_hand=3, reorder_point=10)
    await factories.sku(ws, "TEE-WHT-L", on_hand=300, reorder_point=10)
    event_ids = await record_every_event(ws.id, (await factories.order(ws, customer)).id)
    yield World(auth, customer.id, [order.id for order in orders], event_ids)


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=MAX_EXAMPLES)
def test_every_operation_answers_as_documented(case: Any, fuzz_app: Any, world: World) -> None:
    case.call_and_validate(headers=world.auth, app=fuzz_app)
    if case.meta.generation.mode.is_positive and world.aim(case):
        case.call_and_validate(headers=world.auth, app=fuzz_app)
