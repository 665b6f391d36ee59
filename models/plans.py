"""Plans: which include the API, their open-order limits, and what a trial counts as."""

from __future__ import annotations

import datetime as dt

PLANS = ("starter", "standard", "premium", "enterprise")
API_PLANS = frozenset({"premium", "enterprise"})
TRIAL_PLAN = "premium"

# Open orders (stage not dispatched/cancelled) a workspace may hold; None = unlimited.
OPEN_ORDER_LIMITS: dict[str, int | None] = {
    "starter": 25,
    "standard": 100,
    "premium": 500,
    "enterprise": None,
}


def effective_plan(plan: str, trial_ends_at: dt.datetime | None, now: dt.datetime) -> str:
    """A trial counts as premium until it ends, unless the paid plan is already higher."""
    if (
        trial_ends_at is not None
        and now < trial_ends_at
        and PLANS.index(plan) < PLANS.index(TRIAL_PLAN)
    ):
        return TRIAL_PLAN
    return plan


def includes_api(plan: str) -> bool:
    return plan in API_PLANS


def open_order_limit(plan: str, override: int | None) -> int | None:
    return override if override is not None else OPEN_ORDER_LIMITS[plan]
