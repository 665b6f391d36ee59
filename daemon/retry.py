"""When a failed delivery is tried again; the schedule is DEFAULT_WEBHOOK_BACKOFF."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence


def delay_after(attempt: int, backoff: Sequence[int], max_attempts: int) -> int | None:
    """Seconds to wait after failed attempt number `attempt` (1-based); None: it was the last.

    `backoff[i]` is the wait before attempt i + 2; attempts past the list reuse its last entry.
    """
    if attempt >= max_attempts:
        return None
    return backoff[min(attempt, len(backoff)) - 1]


def next_attempt_at(
    now: dt.datetime, attempt: int, backoff: Sequence[int], max_attempts: int
) -> dt.datetime | None:
    delay = delay_after(attempt, backoff, max_attempts)
    return None if delay is None else now + dt.timedelta(seconds=delay)
