"""One JSON line per HTTP request on the `pressline.request` logger, never with credentials.

A line holds the method, the path (without the query string), the route template, the status,
the duration, the request id (the platform router's `X-Request-ID`, or one made here), the
client's address and — once authentication has run — the user and workspace ids. Other
headers, query values and bodies are never logged, so a token cannot reach the log by this
path.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from litestar.logging.config import LoggingConfig

from api import metrics
from api.errors import CLIENT_CLOSED_REQUEST, CLIENT_GONE
from models import logs

if TYPE_CHECKING:
    from litestar.types import Scope

LOGGER_NAME = "pressline.request"
REQUEST_ID = "pressline.request_id"  # scope key: set by api/request_path.py
QUIET_PATHS = frozenset({"/health"})  # platform probes: DEBUG, so they don't drown the log
MAX_PATH_CHARS = 2048
DISCONNECTED = "client disconnected"  # the message of a request whose client left mid-way
# Paths that carry a credential (the customer's proof link): the line shows the route template
# in their place, or the prefix alone when no route matched.
SECRET_PATH_PREFIXES = ("/proofs/",)

log = logging.getLogger(LOGGER_NAME)


def logging_config(level: str) -> LoggingConfig:
    """Litestar's logging set to the web's and worker's one JSON line format (models/logs.py),
    with `level` from LOG_LEVEL; Litestar's default handlers format the same way."""
    config = logs.dict_config(level)
    return LoggingConfig(
        formatters={**config["formatters"], "standard": logs.FORMATTER},
        handlers=config["handlers"],
        # Its own level too: request lines stay at LOG_LEVEL when `pressline` is made chattier.
        loggers={**config["loggers"], LOGGER_NAME: {"level": level}},
        root=config["root"],
    )


def request_line(scope: Scope, status: int, duration_ms: float) -> dict[str, Any]:
    user: Any = scope.get("user")
    client = scope.get("client")
    return {
        "method": scope.get("method"),
        "path": _shown_path(scope),
        "route": scope.get("path_template"),
        "status": status,
        "duration_ms": round(duration_ms, 2),
        "request_id": scope.get(REQUEST_ID),
        "client": client[0] if client else None,
        "user_id": getattr(user, "user_id", None),
        "workspace_id": getattr(user, "workspace_id", None),
    }


def _shown_path(scope: Scope) -> str:
    path = str(scope.get("path", ""))
    for prefix in SECRET_PATH_PREFIXES:
        if path.startswith(prefix):
            return str(scope.get("path_template") or f"{prefix}…")
    return path[:MAX_PATH_CHARS]


def finish(scope: Scope, status: int, seconds: float) -> None:
    """The end of a request (api/request_path.py): its metrics observation and its line. A
    client that disconnected before its answer was complete is no fault of the service: its
    line says "client disconnected", at INFO, with status 499 (nginx's "client closed
    request"), whatever the application answered to no one."""
    gone = bool(scope.get(CLIENT_GONE))
    if gone:
        status = CLIENT_CLOSED_REQUEST
    metrics.observe(scope, status, seconds)
    if status >= 500:
        level = logging.WARNING
    elif scope.get("path") in QUIET_PATHS:
        level = logging.DEBUG
    else:
        level = logging.INFO
    if log.isEnabledFor(level):
        record = RequestRecord(level, request_line(scope, status, seconds * 1000))
        if gone:
            record.msg = DISCONNECTED
        log.handle(record)


# What `LogRecord.__init__` sets on every record, taken once from a record made here; no
# thread or process names, as `light_records` has every record of the web process.
_TEMPLATE = {
    **vars(logging.LogRecord(LOGGER_NAME, logging.INFO, "", 0, "request", (), None)),
    "thread": None,
    "threadName": None,
    "processName": None,
    "process": None,
}
_START = _TEMPLATE["created"] - _TEMPLATE["relativeCreated"] / 1000  # logging's start time
_LEVEL_NAMES = {level: logging.getLevelName(level) for level in (10, 20, 30)}


class RequestRecord(logging.LogRecord):
    """A request's log record, made without `LogRecord.__init__`'s per-record work (the
    caller's file name split, the mapping check of `args`, the level name looked up): its
    attributes are those of one record made at import, with this request's time, level and
    fields. It goes through `log.handle`, so every handler of the logger and its parents gets
    it as before; `created`, `msecs` and `relativeCreated` are computed as `LogRecord` does."""

    def __init__(self, level: int, line: dict[str, Any]) -> None:
        self.__dict__.update(_TEMPLATE)
        now = time.time()
        self.created = now
        self.msecs = int((now - int(now)) * 1000) + 0.0
        self.relativeCreated = (now - _START) * 1000
        self.levelno = level
        self.levelname = _LEVEL_NAMES[level]
        setattr(self, logs.FIELDS, line)


def light_records() -> None:
    """Log records of the web process skip what its JSON lines never show: the thread's,
    the process's and the multiprocessing names (Python's logging HOWTO, "Optimization").
    Each costs a lookup on every record, so on every request."""
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
