"""Recorded webhook events, oldest first (ascending id, so pages already read never shift);
filters by event names, time and order. Rows decode into EventRow (its columns, in order);
the stored body comes back as the text every delivery sent, for the API to splice into its
response unchanged."""

from __future__ import annotations

import datetime as dt
import functools
import uuid

import msgspec

from models import statements
from models.filters import MAX_ID
from models.statements import Select, Sql, Stamp


class EventRow(msgspec.Struct, array_like=True, frozen=True):
    """One row of EVENT_COLUMNS, in their order."""

    event_id: str
    name: str
    created_at: Stamp
    order_id: int | None
    body: str  # the exact JSON every delivery of the event sent


EVENT_COLUMNS = 'e.event_id, e.name, UTC_TEXT(e.created_at), e."order", e.body'

DETAIL = Select(
    EventRow,
    f"""
    SELECT {EVENT_COLUMNS} FROM webhook_events e
    WHERE e.event_id = $1 AND e.workspace = $2 AND e.name <> 'webhook.test'
    """,  # noqa: S608 - constant fragments
)


@functools.cache
def list_statements(names: int, since: bool, order: bool) -> tuple[Sql, Select[EventRow]]:
    """COUNT and page for one combination of filters ($1 is always the workspace; `names`
    placeholders for the event names, at most the five that exist)."""
    # The operator's test event is sent to one receiver, not part of the feed.
    where, n = ["e.workspace = $1", "e.name <> 'webhook.test'"], 1
    if names:
        placeholders = ", ".join(f"${n + i}" for i in range(1, names + 1))
        n += names
        where.append(f"e.name IN ({placeholders})")
    if since:
        n += 1
        where.append(f"e.created_at >= ${n}")
    if order:
        n += 1
        where.append(f'e."order" = ${n}')
    condition = " AND ".join(where)
    count = Sql(f"SELECT COUNT(*) FROM webhook_events e WHERE {condition}")  # noqa: S608 - constant fragments
    page = Select(
        EventRow,
        f"""
        SELECT {EVENT_COLUMNS} FROM webhook_events e WHERE {condition}
        ORDER BY e.id LIMIT ${n + 1} OFFSET ${n + 2}
        """,  # noqa: S608 - constant fragments
    )
    return count, page


async def list_events(
    workspace_id: int,
    *,
    names: tuple[str, ...],
    since: dt.datetime | None,
    order_id: int | None,
    limit: int,
    offset: int,
) -> tuple[int, list[EventRow]]:
    """Total and one page; `names` empty means every event (callers pass known names only)."""
    if order_id is not None and not 0 < order_id <= MAX_ID:
        return 0, []  # no such order can exist (and the driver would refuse the number)
    count, page = list_statements(len(names), since is not None, order_id is not None)
    args: list[object] = [workspace_id, *names]
    if since is not None:
        args.append(since)
    if order_id is not None:
        args.append(order_id)
    async with statements.connection() as reader:
        return await statements.counted_page(reader, count, page, args, limit, offset)


async def get_event(workspace_id: int, event_id: str) -> EventRow | None:
    """The event with this `event_id` in this workspace; None for another workspace's event or
    text that is not a UUID (stored ids are canonical lowercase UUIDs)."""
    try:
        canonical = str(uuid.UUID(event_id))
    except ValueError:
        return None
    async with statements.connection() as reader:
        return await reader.one(DETAIL, canonical, workspace_id)
