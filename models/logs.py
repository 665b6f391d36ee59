"""One log format for the web and the worker: one JSON object per line on stdout.

Every line has `time` (UTC, milliseconds), `level`, `logger` and `message`, then the record's
fields: `log.info("worker started", extra=fields(worker=name))`. A message says what happened
in a few fixed words; the values go in fields, so lines are filtered by key, never by
parsing text. An exception adds `exception` (the traceback, as one string).
"""

from __future__ import annotations

import datetime as dt
import logging
import logging.config
import math
from typing import Any

import msgspec

FIELDS = "fields"  # the LogRecord attribute `extra=fields(...)` sets
_CORE = frozenset(("time", "level", "logger", "message"))
_encoder = msgspec.json.Encoder(enc_hook=str)


def fields(**values: Any) -> dict[str, Any]:
    """`extra=` for a log call: these keys and values are added to the line."""
    return {FIELDS: values}


class JsonFormatter(logging.Formatter):
    """A record as one JSON line; its fields never replace the four keys every line has."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _utc_millis(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        extra: dict[str, Any] | None = getattr(record, FIELDS, None)
        if extra:  # the core keys are never overwritten (the common case skips the filter)
            line.update(
                extra
                if _CORE.isdisjoint(extra)
                else {k: v for k, v in extra.items() if k not in _CORE}
            )
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return _encoder.encode(line).decode()


_second: tuple[float, str] = (0.0, "")  # the last whole second formatted, and its text


def _utc_millis(created: float) -> str:
    """`datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")`, with the
    date and time of day formatted once per second (every line of a busy process has one)."""
    global _second
    fraction, whole = math.modf(created)
    micros = round(fraction * 1_000_000)  # as `fromtimestamp` rounds (half to even)
    if micros >= 1_000_000:
        whole, micros = whole + 1, micros - 1_000_000
    second = _second  # read once: another thread may move it on
    if whole != second[0]:
        text = dt.datetime.fromtimestamp(whole, dt.UTC).isoformat(timespec="seconds")[:19]
        second = _second = (whole, text)
    return f"{second[1]}.{micros // 1000:03d}+00:00"


class JsonLines(logging.StreamHandler):
    """`logging.StreamHandler` writing each line with one `write` and one `flush`, under the
    lock `handle` already holds (its own `emit` flushes through `flush`, which takes the lock
    a second time and looks the stream's `flush` up again)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = self.stream
            stream.write(self.format(record) + "\n")
            stream.flush()
        except RecursionError:
            raise
        except Exception:
            self.handleError(record)


FORMATTER = {"()": JsonFormatter}


def dict_config(level: str) -> dict[str, Any]:
    """The `logging.config.dictConfig` document of both processes: every record, from every
    logger (the root's included, so libraries' warnings too), through the JSON formatter to
    stdout; ours at `level` (LOG_LEVEL). uvicorn's access line stays off even when the
    command line forgets `--no-access-log`: it repeats every request with its query string,
    tokens included."""
    stdout = ["stdout"]
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": FORMATTER},
        "handlers": {
            "stdout": {
                "class": "models.logs.JsonLines",
                "stream": "ext://sys.stdout",
                "formatter": "json",
            }
        },
        "loggers": {
            "pressline": {"level": level},
            "daemon": {"level": level},
            # The scheduler logs every run of the polling job at INFO; keep its warnings.
            "apscheduler": {"level": "WARNING"},
            "litestar": {"level": "INFO", "handlers": stdout, "propagate": False},
            "uvicorn": {"level": "INFO", "handlers": stdout, "propagate": False},
            "uvicorn.access": {"level": "WARNING", "handlers": [], "propagate": False},
        },
        "root": {"handlers": stdout, "level": "WARNING"},
    }


def configure(level: str) -> None:
    """The worker's logging (the web's goes through Litestar: api/request_log.py)."""
    logging.config.dictConfig(dict_config(level))
