"""The worker's configuration: the shared settings plus the knobs only the daemon reads."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass

from models.settings import Settings, get_settings

DEFAULT_LEASE = 60.0  # seconds a claim lasts; must outlive one attempt (WEBHOOK_TIMEOUT)
DEFAULT_CONCURRENCY = 64  # requests in flight; as many more claimed deliveries wait for a slot
SHUTDOWN_MARGIN = 5.0  # seconds beyond WEBHOOK_TIMEOUT that in-flight requests get on stop


class ConfigError(ValueError):
    """A setting the daemon cannot run with; it refuses to start and says which."""


def _number(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of seconds, got {raw!r}") from None


def worker_name() -> str:
    """Who holds a lease: host, process id and a short random part (pids are reused)."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass(frozen=True)
class DaemonConfig:
    database_url: str
    allow_private_targets: bool
    backoff: tuple[int, ...]
    max_attempts: int
    timeout: float
    poll_interval: float
    deactivate_after: int
    lease: float = DEFAULT_LEASE
    concurrency: int = DEFAULT_CONCURRENCY
    shutdown_grace: float = 15.0

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: object) -> DaemonConfig:
        values: dict[str, object] = {
            "database_url": settings.database_url,
            "allow_private_targets": settings.webhook_allow_private_targets,
            "backoff": settings.webhook_backoff,
            "max_attempts": settings.webhook_max_attempts,
            "timeout": settings.webhook_timeout,
            "poll_interval": settings.webhook_poll_interval,
            "deactivate_after": settings.webhook_deactivate_after,
            "shutdown_grace": settings.webhook_timeout + SHUTDOWN_MARGIN,
        }
        values.update(overrides)
        config = cls(**values)  # type: ignore[arg-type]
        config.check()
        return config

    @classmethod
    def from_env(cls) -> DaemonConfig:
        try:
            settings = get_settings()
        except ValueError as exc:
            raise ConfigError(f"invalid setting: {exc}") from None
        return cls.from_settings(
            settings,
            lease=_number("WEBHOOK_LEASE", DEFAULT_LEASE),
            concurrency=int(_number("WEBHOOK_CONCURRENCY", DEFAULT_CONCURRENCY)),
            shutdown_grace=_number(
                "WEBHOOK_SHUTDOWN_GRACE", settings.webhook_timeout + SHUTDOWN_MARGIN
            ),
        )

    def check(self) -> None:
        if self.max_attempts < 1:
            raise ConfigError("WEBHOOK_MAX_ATTEMPTS must be at least 1")
        if not self.backoff or min(self.backoff) < 0:
            raise ConfigError("WEBHOOK_BACKOFF must list seconds (0 or more), e.g. 60,300,900")
        if self.timeout <= 0 or self.poll_interval <= 0:
            raise ConfigError("WEBHOOK_TIMEOUT and WEBHOOK_POLL_INTERVAL must be positive")
        if self.lease <= self.timeout:
            raise ConfigError(
                f"WEBHOOK_LEASE ({self.lease:g} s) must be longer than "
                f"WEBHOOK_TIMEOUT ({self.timeout:g} s)"
            )
        if self.concurrency < 1:
            raise ConfigError("WEBHOOK_CONCURRENCY must be at least 1")
        if self.deactivate_after < 1:
            raise ConfigError("WEBHOOK_DEACTIVATE_AFTER must be at least 1")
        if self.shutdown_grace < 0:
            raise ConfigError("WEBHOOK_SHUTDOWN_GRACE must not be negative")
