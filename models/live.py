"""Live updates: each order change, as its `webhook_events` row, handed to the admin's open
streams of the same workspace, in every web process.

The row's id is the stream's event id: a stream that missed something (a client resuming
with `Last-Event-ID`, a queue that overflowed, a LISTEN connection that was lost) reads the
rows after the last id it sent, so nothing depends on a notification arriving.

How a change reaches the processes:
- PostgreSQL: inserting the row sends `pg_notify('pressline_live', 'ws:event:order:name')`
  (a trigger, migration 2026-11-27T06:17: no statement of its own per change) in the change's
  transaction, so it is delivered at commit and never for a rollback; each web process holds
  one connection in LISTEN (models/listen.py) and fans out in memory.
- SQLite (one process): `record_event` hands the change to this process's feed after its
  transaction commits (`db.after_commit`). Changes made by another process (the `pressline`
  command, the worker) reach open pages on their next change or reload.

Some changes to an order's timeline record no event, being nothing an integrator is sent: an
email to the customer sent, failing or queued again (`email.sent`, `email.failed`,
`email.queued`), an invoice emailed (`invoice.emailed`) and the customer first opening its
page (`invoice.opened`); an email queued by a stage move or a proof is announced by their
events. They reach the same streams as a change with id NOT_AN_EVENT (`ping`; on PostgreSQL
their rows' triggers notify, migration 2026-12-03T09:41): sent without an id, so a stream's
place stays its last event row. A stream that reconnects does not get them again, but the
page reloads its regions on reconnecting; a stream whose changes were dropped (a full queue,
a lost LISTEN connection) catches up from the table and then has its page reload its
regions (`refresh`).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
from typing import NamedTuple

from models import db
from models.listen import Listener
from models.tables import WebhookEvent

log = logging.getLogger("pressline.live")

CHANNEL = "pressline_live"
APPLICATION_NAME = "pressline-web-live"
QUEUE_LIMIT = 64  # changes waiting for one stream; past it the stream reads the table instead
CATCH_UP_LIMIT = 500  # rows one catch-up sends; more missed than that: a `reset`
NOT_AN_EVENT = 0  # the id of a change that has no event row (`ping`)


class Change(NamedTuple):
    """One order-related event row, as a stream sends it; or, with id NOT_AN_EVENT, a change
    to the order's timeline that records no event (`ping`)."""

    id: int
    workspace_id: int
    order_id: int
    name: str


def decode(payload: str) -> Change | None:
    """The NOTIFY payload as the trigger on `webhook_events` writes it,
    `workspace:event:order:name` (integers, and an event name from models/webhooks/names.py),
    or None for anything else."""
    parts = payload.split(":", 3)
    if len(parts) != 4 or not all(part.isdigit() for part in parts[:3]):
        return None
    workspace_id, event_id, order_id, name = parts
    return Change(int(event_id), int(workspace_id), int(order_id), name)


class Subscription:
    """One open stream's queue: bounded; when it overflows it is emptied and marked `behind`,
    and the stream reads what it missed from the table; `refresh`: changes without a row may
    have been dropped too, so the page is told to reload its regions."""

    def __init__(self, workspace_id: int) -> None:
        self.workspace_id = workspace_id
        self.changes: collections.deque[Change] = collections.deque()
        self.behind = False
        self.refresh = False
        self.closed = False
        self._wake = asyncio.Event()

    def push(self, change: Change) -> None:
        if len(self.changes) >= QUEUE_LIMIT:
            self.fall_behind(dropped=True)
            return
        self.changes.append(change)
        self._wake.set()

    def fall_behind(self, *, dropped: bool = False) -> None:
        self.changes.clear()
        self.behind = True
        self.refresh = self.refresh or dropped
        self._wake.set()

    def close(self) -> None:
        self.closed = True
        self._wake.set()

    async def wait(self, seconds: float) -> bool:
        """Until there is something to do (True) or `seconds` pass (False)."""
        if self.changes or self.behind or self.closed:
            return True
        self._wake.clear()
        try:
            await asyncio.wait_for(self._wake.wait(), seconds)
        except TimeoutError:
            return False
        return True


class Feed:
    """This process's open streams by workspace, and the last event id it has seen."""

    def __init__(self) -> None:
        self.streams: dict[int, set[Subscription]] = {}
        self.last_id: int | None = None
        self.closed = False

    def subscribe(self, workspace_id: int) -> Subscription:
        subscription = Subscription(workspace_id)
        if self.closed:
            subscription.close()
        self.streams.setdefault(workspace_id, set()).add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        streams = self.streams.get(subscription.workspace_id)
        if streams is not None:
            streams.discard(subscription)
            if not streams:
                del self.streams[subscription.workspace_id]

    def publish(self, change: Change) -> None:
        self.last_id = max(self.last_id or 0, change.id)
        for subscription in self.streams.get(change.workspace_id, ()):
            subscription.push(change)

    def missed(self) -> None:
        """Notifications may have been lost (the LISTEN connection was down): every stream
        reads the table from its last id."""
        for streams in self.streams.values():
            for subscription in streams:
                subscription.fall_behind(dropped=True)

    def close(self) -> None:
        """The process is stopping: every stream ends, and none opens again."""
        self.closed = True
        for streams in self.streams.values():
            for subscription in streams:
                subscription.close()

    async def cursor(self) -> int:
        """Where a stream opened without `Last-Event-ID` starts: the newest event id this
        process knows of (read once from the table, then kept up by what it publishes)."""
        if self.last_id is None:
            rows = (
                await WebhookEvent.select(WebhookEvent.id)
                .order_by(WebhookEvent.id, ascending=False)
                .limit(1)
            )
            self.last_id = max(self.last_id or 0, rows[0]["id"] if rows else 0)
        return self.last_id


FEED = Feed()
_listener: Listener | None = None


def _notified(payload: str) -> None:
    change = decode(payload)
    if change is None:
        log.warning("ignored a malformed %s notification", CHANNEL)
        return
    FEED.publish(change)


async def start() -> None:
    """The web process's one LISTEN connection (PostgreSQL); nothing to open on SQLite."""
    global _listener
    FEED.closed, FEED.last_id = False, None
    engine = db.engine()
    if db.is_postgres() and _listener is None:
        dsn = engine.config["dsn"]  # type: ignore[attr-defined]
        _listener = Listener(
            dsn,
            channel=CHANNEL,
            application_name=f"{APPLICATION_NAME} {os.getpid()}",  # whose, for operators
            on_notify=_notified,
            on_connected=FEED.missed,
        )
        await _listener.start()


async def stop() -> None:
    """Ends every open stream and closes the LISTEN connection."""
    global _listener
    FEED.close()
    listener, _listener = _listener, None
    if listener is not None:
        await listener.stop()


def announce(*, workspace_id: int, event_id: int, order_id: int, name: str) -> None:
    """Tell the open streams about an order's change; called in the change's transaction
    right after its event row is written. On PostgreSQL the row's trigger has already sent
    the notification (to every web process, this one included, at commit)."""
    if not db.is_postgres():
        change = Change(event_id, workspace_id, order_id, name)
        db.after_commit(lambda: FEED.publish(change))


def ping(*, workspace_id: int, order_id: int, name: str) -> None:
    """Tell the open streams about a change to an order's timeline that records no event
    (`invoice.emailed`, `email.queued`: module docstring); called in the change's
    transaction. On PostgreSQL the changed row's trigger notifies at commit, so this does
    nothing there."""
    if not db.is_postgres():
        change = Change(NOT_AN_EVENT, workspace_id, order_id, name)
        db.after_commit(lambda: FEED.publish(change))


class CatchUp(NamedTuple):
    """What a stream missed: the changes, oldest first, or (`reset_to`, the newest id) when
    there were more than CATCH_UP_LIMIT: the page then reloads its regions instead."""

    changes: list[Change]
    reset_to: int | None = None


async def since(workspace_id: int, after: int) -> CatchUp:
    """The workspace's order-related events after event id `after`."""
    rows = await (
        WebhookEvent.select(WebhookEvent.id, WebhookEvent.order, WebhookEvent.name)
        .where(
            (WebhookEvent.workspace == workspace_id)
            & (WebhookEvent.id > after)
            & WebhookEvent.order.is_not_null()
        )
        .order_by(WebhookEvent.id, ascending=False)
        .limit(CATCH_UP_LIMIT + 1)
    )
    if len(rows) > CATCH_UP_LIMIT:
        return CatchUp([], reset_to=rows[0]["id"])
    return CatchUp(
        [Change(row["id"], workspace_id, row["order"], row["name"]) for row in reversed(rows)]
    )
