"""The Litestar application: routes under /api/v1, auth, error handlers, OpenAPI, lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar, Router
from litestar.datastructures import State
from litestar.enums import HttpMethod
from litestar.openapi.spec import OpenAPI
from litestar.routes import HTTPRoute
from piccolo.table import Table

from api import idempotency, links, metrics, openapi, ratelimit, request_log
from api.admin.pages import TEMPLATE_CONFIG
from api.admin.router import admin_router
from api.admin.stream import live_updates
from api.controllers import health
from api.controllers.artwork import ArtworkController
from api.controllers.customers import CustomerController
from api.controllers.events import EventController
from api.controllers.inventory import InventoryController
from api.controllers.invoices import InvoiceController, PaymentController
from api.controllers.me import MeController
from api.controllers.orders import OrderController
from api.controllers.pricing import PricingController
from api.errors import EXCEPTION_HANDLERS
from api.invoice_links import invoice_links_router
from api.openapi import OPENAPI_CONFIG, drop_framework_400
from api.openapi_webhooks import document_events
from api.proofs.routes import proofs_router
from api.request_path import ApiAccess, RequestPath
from models import db, token_use
from models.settings import get_settings

MAX_BODY_BYTES = 1024 * 1024  # docs/api.md §6: larger bodies answer 413


def bind_unbound_tables(url: str) -> None:
    """Give every table that has no engine yet the one DATABASE_URL names, as piccolo_conf.py
    would. Piccolo's own lookup imports `piccolo.conf.apps`, and with it the migration
    tooling (black, click, pathspec: ~100 modules, ~11 MiB) that only the CLI uses; a test
    that bound its own engine keeps it."""
    engine = None
    tables = list(Table.__subclasses__())
    while tables:
        table = tables.pop()
        tables.extend(table.__subclasses__())
        if table._meta._db is None:
            engine = engine or db.engine_from_url(url)
            table._meta.db = engine


@asynccontextmanager
async def database(_: Litestar) -> AsyncIterator[None]:
    """Open the connection pool (PostgreSQL) for the life of the process."""
    bind_unbound_tables(get_settings().database_url)
    await db.start()
    try:
        yield
    finally:
        await db.stop()


def answer_options_with_every_method(app: Litestar) -> None:
    """Litestar 2 builds a path's OPTIONS handler with the first handler registered there, so
    `OPTIONS /api/v1/orders` said `Allow: OPTIONS, POST` (litestar#4169, fixed in v3). Give
    each route an OPTIONS handler built from its final set of methods."""
    for route in app.routes:
        if not isinstance(route, HTTPRoute) or HttpMethod.OPTIONS not in route.route_handler_map:
            continue
        stale, _ = route.route_handler_map[HttpMethod.OPTIONS]
        if stale.handler_name != "options_handler":  # an explicit OPTIONS handler: keep it
            continue
        fresh = route.create_options_handler(route.path)
        fresh.owner = stale.owner
        fresh.on_registration(app)
        model = fresh.create_kwargs_model(path_parameters=route.path_parameters)
        route.route_handler_map[HttpMethod.OPTIONS] = (fresh, model)


def create_app() -> Litestar:
    settings = get_settings()
    limiter = ratelimit.RateLimiter.from_settings(settings)
    request_log.light_records()
    api_v1 = Router(
        path="/api/v1",
        route_handlers=[
            MeController,
            CustomerController,
            OrderController,
            ArtworkController,
            InvoiceController,
            PaymentController,
            InventoryController,
            PricingController,
            EventController,
        ],
        # After routing: the token, the plan and the rate limit (api/request_path.py).
        middleware=[ApiAccess],
    )
    struct_schemas = openapi.StructSchemas()

    def finish(document: OpenAPI) -> None:
        """Pressline's passes over the generated document, in order."""
        drop_framework_400(document)
        ratelimit.document_headers(document, api_v1.path)
        idempotency.document_retry_after(document)
        health.document_public(document)
        openapi.document_request_id(document)
        openapi.give_headers_a_schema(document)
        document_events(app, document)
        openapi.rename_components(document)
        openapi.type_nullable_formats(document)
        openapi.require_what_is_always_sent(document, struct_schemas)
        links.document_server(document, app.state[links.STATE_KEY])

    app = Litestar(
        route_handlers=[
            api_v1,
            health.HealthController,
            metrics.metrics,
            admin_router(),
            proofs_router(),
            invoice_links_router(),
        ],
        lifespan=[database, token_use.keep_recording, live_updates],
        state=State(
            {
                "rate_limiter": limiter,
                metrics.STATE_KEY: settings.metrics_token,
                links.STATE_KEY: links.public_base(settings.public_url),
            }
        ),
        on_startup=[limiter.start],
        on_shutdown=[limiter.close],
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        openapi_config=OPENAPI_CONFIG,
        plugins=[struct_schemas],
        template_config=TEMPLATE_CONFIG,
        request_max_body_size=MAX_BODY_BYTES,
        logging_config=request_log.logging_config(settings.log_level),
    )
    answer_options_with_every_method(app)
    # The document is built on its first request, not at start (api/openapi.py).
    openapi.finish_on_first_use(app, finish)
    # Outside routing, so unknown routes, 405s and 413s are logged like every other request.
    app.asgi_handler = RequestPath(app.asgi_handler, limiter, settings.forwarded_hops)
    return app


app = create_app()
