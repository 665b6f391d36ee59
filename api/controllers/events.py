"""The events feed (extension): every recorded webhook event, oldest first, 100 a page, so an
integrator whose endpoint was down can catch up."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Annotated, Any

from litestar import Controller, Request, get
from litestar.params import PathParameter, QueryParameter

from api.auth import Principal
from api.errors import NotFound, ValidationFailed
from api.openapi import COMMON_RESPONSES, ONE_RECORD_RESPONSES
from api.pagination import PageNumber, offset, page_envelope
from api.params import parse_updated_since
from api.schemas.common import Page
from api.schemas.events import Event, event_bodies, event_body
from models.outbox import EVENT_NAMES
from models.queries import events as queries
from models.queries.filters import MAX_ID

PER_PAGE = 100
STATE_KEY = "events_query"
_INTEGER = re.compile(r"-?[0-9]{1,20}")
_NAME = "|".join(re.escape(name) for name in EVENT_NAMES)
# One name or a comma-separated list, spaces allowed around names (the documented pattern).
TYPES_PATTERN = f" *(?:{_NAME}) *(?:, *(?:{_NAME}) *)*"
_TYPES = re.compile(TYPES_PATTERN)


@dataclass(frozen=True)
class EventsQuery:
    names: tuple[str, ...]  # known names, sorted, no repeats; empty = every event
    since: dt.datetime | None
    order: int | None
    page: int


def _integer(
    errors: dict[str, list[str]], key: str, text: str | None, default: int | None
) -> int | None:
    """A query integer in [1, MAX_ID], worded like Litestar's own parameter errors."""
    if text is None:
        return default
    if not _INTEGER.fullmatch(text):
        errors[key] = [f"The {key} parameter must be an integer."]
        return None
    value = int(text)
    if value < 1:
        errors[key] = [f"The {key} parameter must be at least 1."]
    elif value > MAX_ID:
        errors[key] = [f"The {key} parameter must not be greater than {MAX_ID}."]
    return value


def events_query(params: Any) -> EventsQuery:
    """Every query parameter of the feed checked together, so one 422 names each bad one."""
    errors: dict[str, list[str]] = {}
    names: tuple[str, ...] = ()
    if (text := params.get("type")) is not None:
        if _TYPES.fullmatch(text):
            names = tuple(sorted({part.strip(" ") for part in text.split(",")}))
        else:
            parts = {part.strip() for part in text.split(",")}
            unknown = sorted(parts - set(EVENT_NAMES) - {""})
            listed = f" ({', '.join(unknown)})" if unknown else ""
            errors["type"] = [
                f"The selected type is invalid{listed}; use one or more of "
                f"{', '.join(EVENT_NAMES)}, separated by commas."
            ]
    since = None
    try:
        since = parse_updated_since(params.get("since"))
    except ValidationFailed:
        errors["since"] = ["The since parameter must be an ISO 8601 date-time."]
    order = _integer(errors, "order", params.get("order"), None)
    page = _integer(errors, "page", params.get("page"), 1)
    if errors:
        raise ValidationFailed(errors)
    return EventsQuery(names=names, since=since, order=order, page=page or 1)


async def collect_events_query(request: Request[Any, Any, Any]) -> None:
    """`before_request`: runs ahead of Litestar's own parameter parsing, which stops at the
    first bad parameter."""
    request.state[STATE_KEY] = events_query(request.query_params)


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
        before_request=collect_events_query,
    )
    async def list_events(
        self,
        request: Request[Principal, int, Any],
        event_type: Annotated[
            str | None,
            QueryParameter(
                name="type",
                description=(
                    "One event name or a comma-separated list: "
                    + ", ".join(EVENT_NAMES)
                    + ". Any other name is a 422."
                ),
                pattern=f"^{TYPES_PATTERN}$",
                schema_extra={"example": "invoice.issued,invoice.paid"},
            ),
        ] = None,
        since: Annotated[
            str | None,
            QueryParameter(
                description=(
                    "Only events that occurred at or after this ISO 8601 date-time, e.g. "
                    "2026-11-22T10:15:00+00:00; without an offset the value is UTC."
                ),
                schema_extra={"format": "date-time"},
            ),
        ] = None,
        order: Annotated[
            int | None,
            QueryParameter(ge=1, le=MAX_ID, description="Only events about this order (its id)"),
        ] = None,
        page: PageNumber = 1,
    ) -> Page[Event]:
        query: EventsQuery = request.state[STATE_KEY]
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
