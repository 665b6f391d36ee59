"""The request's log line (api/request_log.py, models/logs.py): a record made without
`LogRecord.__init__`'s per-record work must be the record logging would make, and the line's
time must read as `isoformat` to the millisecond."""

from __future__ import annotations

import datetime as dt
import json
import logging

import pytest

from api import request_log
from models import logs


def test_a_request_record_is_the_record_logging_would_make():
    fields = {"method": "GET", "path": "/api/v1/me", "status": 200}
    made = request_log.RequestRecord(logging.INFO, fields)
    usual = request_log.log.makeRecord(
        request_log.LOGGER_NAME, logging.INFO, "", 0, "request", (), None, extra={"fields": fields}
    )
    timing = {"created", "msecs", "relativeCreated"}
    threads = {"thread", "threadName", "process", "processName"}  # off in the web process
    assert set(vars(made)) == set(vars(usual))
    for name in set(vars(made)) - timing - threads:
        assert getattr(made, name) == getattr(usual, name), name
    assert abs(made.created - usual.created) < 1
    assert made.msecs == int((made.created - int(made.created)) * 1000)
    assert logs.JsonFormatter().format(made).startswith('{"time":"')


@pytest.mark.parametrize(
    "created",
    [0.0, 1.5, 1_700_000_000.0, 1_700_000_000.9999996, 1_700_000_000.0009995, 1_764_000_000.12],
)
def test_the_line_time_is_isoformat_to_the_millisecond(created):
    line = logs.JsonFormatter().format(logging.makeLogRecord({"msg": "x", "created": created}))
    expected = dt.datetime.fromtimestamp(created, dt.UTC).isoformat(timespec="milliseconds")
    assert json.loads(line)["time"] == expected
