"""The service's notion of "now" (UTC); one function so tests and the daemon can control time."""

import datetime as dt


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def iso(value: dt.datetime) -> str:
    """The API's timestamp form: ISO 8601 with offset, UTC, whole seconds."""
    return value.astimezone(dt.UTC).isoformat(timespec="seconds")
