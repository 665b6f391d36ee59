"""PostgreSQL LISTEN on the outbox channel: a wake-up call only; polling stays the backstop.

The connection and its reconnecting (with backoff) are models/listen.py's, shared with the
web's live updates; a (re)connected LISTEN wakes the worker too, for whatever was recorded
while nobody listened.
"""

from __future__ import annotations

from collections.abc import Callable

from models import listen

CHANNEL = "pressline_outbox"
APPLICATION_NAME = "pressline-worker-listen"


class Listener(listen.Listener):
    """The worker's wake-up: every notification (its payload is empty) and every reconnect."""

    def __init__(self, dsn: str, on_notify: Callable[[], None]) -> None:
        super().__init__(
            dsn,
            channel=CHANNEL,
            application_name=APPLICATION_NAME,
            on_notify=lambda _payload: on_notify(),
            on_connected=on_notify,
        )
