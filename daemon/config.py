"""The worker's view of the shared settings (models/settings.py), in the daemon's own words."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass

from models.settings import Settings, get_settings


def worker_name() -> str:
    """Who holds a lease: host, process id and a short random part (pids are reused)."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass(frozen=True, slots=True)
class DaemonConfig:
    """Derived from Settings only, which validated every value (tests build variants with
    `dataclasses.replace`)."""

    database_url: str
    allow_private_targets: bool
    backoff: tuple[int, ...]
    max_attempts: int
    timeout: float
    poll_interval: float
    deactivate_after: int
    lease: float
    concurrency: int
    max_in_flight_per_subscription: int
    shutdown_grace: float
    retention_days: int

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> DaemonConfig:
        s = settings or get_settings()
        return cls(
            database_url=s.database_url,
            allow_private_targets=s.webhook_allow_private_targets,
            backoff=s.webhook_backoff,
            max_attempts=s.webhook_max_attempts,
            timeout=s.webhook_timeout,
            poll_interval=s.webhook_poll_interval,
            deactivate_after=s.webhook_deactivate_after,
            lease=s.webhook_lease,
            concurrency=s.webhook_concurrency,
            max_in_flight_per_subscription=s.webhook_max_in_flight_per_subscription,
            shutdown_grace=s.shutdown_grace,
            retention_days=s.webhook_retention_days,
        )
