"""The events feed (extension): every recorded webhook event, oldest first, 100 a page, so an
integrator whose endpoint was down can catch up."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get
from litestar.params import PathParameter

from api.auth import Principal
from api.errors import NotFound
from api.openapi import COMMON_RESPONSES, ONE_RECORD_RESPONSES
from api.pagination import offset, page_envelope
from api.params import query_operation
from api.schemas.common import Page
from api.schemas.events import Event, EventListQuery, event_bodies, event_body
from api.validation import parse_query
from models.queries import events as queries

PER_PAGE = 100


class EventController(Controller):
    path = "/events"
    tags = ["Events"]

    @get(
        summary="List recorded events, oldest first",
        description=(
            "Every event the webhooks send, whether or not a subscription wanted it, kept for "
            "WEBHOOK_RETENTION_DAYS. Pages never shift: new events are appended at the end. "
            "To catch up, read from the last `occurred_at` processed and skip ids already seen."
        ),
        responses=COMMON_RESPONSES,
        operation_class=query_operation(EventListQuery),
    )
    async def list_events(self, request: Request[Principal, int, Any]) -> Page[Event]:
        query = parse_query(request.query_params, EventListQuery)
        total, rows = await queries.list_events(
            request.user.workspace_id,
            names=query.names,
            since=query.since,
            order_id=query.order,
            limit=PER_PAGE,
            offset=offset(query.page, PER_PAGE),
        )
        return page_envelope(
            request, event_bodies(rows), page=query.page, per_page=PER_PAGE, total=total
        )

    @get("/{event_id:str}", summary="One recorded event", responses=ONE_RECORD_RESPONSES)
    async def get_event(
        self,
        request: Request[Principal, int, Any],
        event_id: Annotated[
            str,
            PathParameter(
                description="The event's id (a UUID, the webhook's `event_id`)",
                schema_extra={"format": "uuid"},
            ),
        ],
    ) -> Event:
        row = await queries.get_event(request.user.workspace_id, event_id)
        if row is None:
            raise NotFound("Event not found")
        return event_body(row)
