"""Configuration read once from the environment (12-factor); shared by web, worker and CLI."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

DEFAULT_DATABASE_URL = "sqlite:///pressline.sqlite3"
DEFAULT_WEBHOOK_BACKOFF = (60, 300, 900, 3600, 14400)


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    return float(raw) if raw else default


def _flag(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    return raw in {"1", "true", "yes", "on"}


def _backoff() -> tuple[int, ...]:
    raw = os.environ.get("WEBHOOK_BACKOFF", "").strip()
    if not raw:
        return DEFAULT_WEBHOOK_BACKOFF
    return tuple(int(part) for part in raw.split(",") if part.strip())


@dataclass(frozen=True)
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    port: int = 8000
    redis_url: str | None = None
    rate_limit_read: int = 60
    rate_limit_write: int = 20
    rate_limit_key_prefix: str = "pressline:rl"
    log_level: str = "INFO"
    webhook_allow_private_targets: bool = False
    webhook_backoff: tuple[int, ...] = field(default=DEFAULT_WEBHOOK_BACKOFF)
    webhook_max_attempts: int = 5
    webhook_timeout: float = 10.0
    webhook_poll_interval: float = 1.0
    webhook_deactivate_after: int = 20
    metrics_token: str | None = None

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            database_url=os.environ.get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL,
            port=_int("PORT", 8000),
            redis_url=os.environ.get("REDIS_URL", "").strip() or None,
            rate_limit_read=_int("RATE_LIMIT_READ", 60),
            rate_limit_write=_int("RATE_LIMIT_WRITE", 20),
            rate_limit_key_prefix=os.environ.get("RATE_LIMIT_KEY_PREFIX", "").strip()
            or "pressline:rl",
            log_level=os.environ.get("LOG_LEVEL", "").strip().upper() or "INFO",
            webhook_allow_private_targets=_flag("WEBHOOK_ALLOW_PRIVATE_TARGETS"),
            webhook_backoff=_backoff(),
            webhook_max_attempts=_int("WEBHOOK_MAX_ATTEMPTS", 5),
            webhook_timeout=_float("WEBHOOK_TIMEOUT", 10.0),
            webhook_poll_interval=_float("WEBHOOK_POLL_INTERVAL", 1.0),
            webhook_deactivate_after=_int("WEBHOOK_DEACTIVATE_AFTER", 20),
            metrics_token=os.environ.get("METRICS_TOKEN", "").strip() or None,
        )


def get_settings() -> Settings:
    """Read the environment now (tests change it between apps, so no module-level cache)."""
    return Settings.from_env()
