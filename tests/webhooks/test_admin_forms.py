"""The admin's webhook form rules: the re-enable time with its zone, the re-queued count's words."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from api.admin.webhooks import parse_since, requeued_notice, shown_since
from models.errors import InvalidFields

PARIS = ZoneInfo("Europe/Paris")


def test_since_is_shown_with_its_offset_and_read_back_the_same():
    moment = dt.datetime(2026, 11, 22, 9, 0, tzinfo=PARIS)
    shown = shown_since(moment)
    assert shown == "2026-11-22 09:00+01:00"
    assert parse_since(shown, "Europe/Paris") == moment


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("2026-11-22 09:00", dt.datetime(2026, 11, 22, 8, 0, tzinfo=dt.UTC)),  # the shop's zone
        ("2026-11-22T09:00", dt.datetime(2026, 11, 22, 8, 0, tzinfo=dt.UTC)),
        ("2026-11-22 09:00 +03:00", dt.datetime(2026, 11, 22, 6, 0, tzinfo=dt.UTC)),
        ("2026-11-22 09:00Z", dt.datetime(2026, 11, 22, 9, 0, tzinfo=dt.UTC)),
        ("2026-07-01 09:00", dt.datetime(2026, 7, 1, 7, 0, tzinfo=dt.UTC)),  # summer time
    ],
)
def test_since_without_an_offset_is_the_workspace_time_zone(typed: str, expected: dt.datetime):
    assert parse_since(typed, "Europe/Paris") == expected


def test_a_since_that_is_not_a_time_is_refused_with_an_example():
    with pytest.raises(InvalidFields) as refused:
        parse_since("yesterday", "Europe/Paris")
    assert "2026-11-22 09:00" in refused.value.errors["since"][0]


def test_the_requeued_count_is_worded_for_one_and_for_many():
    assert requeued_notice(1) == " 1 failed or skipped delivery was queued again."
    assert requeued_notice(0) == " 0 failed or skipped deliveries were queued again."
    assert requeued_notice(3) == " 3 failed or skipped deliveries were queued again."
