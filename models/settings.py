"""Configuration: one validated Struct read from the environment, shared by web, worker and CLI.

Every variable has its name, default and bounds here and nowhere else (README, Configuration,
lists them). `get_settings()` decodes the environment once and keeps the result; an invalid
value stops whichever process reads it with one line naming the variable.
"""

from __future__ import annotations

import os
import re
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import msgspec

from models.smtp_url import parse_smtp_url
from models.urls import masked_url

DEFAULT_DATABASE_URL = "sqlite:///pressline.sqlite3"
DEFAULT_WEBHOOK_BACKOFF = (60, 300, 900, 3600, 14400)
SHUTDOWN_MARGIN = 5.0  # seconds beyond WEBHOOK_TIMEOUT that requests in flight get on stop
DAY = 86_400.0

LogLevel = Literal["CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG"]
Count = Annotated[int, msgspec.Meta(ge=1)]
Seconds = Annotated[float, msgspec.Meta(gt=0, le=DAY)]
Backoff = Annotated[
    tuple[Annotated[int, msgspec.Meta(ge=0, le=int(7 * DAY))], ...], msgspec.Meta(min_length=1)
]
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}
_FIELD_AT = re.compile(r"at `\$\.(\w+)")
_MAILBOX = re.compile(r"[^@\s<>\"]+@[^@\s<>\"]+\.?[^@\s<>\"]*")


class SettingsError(SystemExit):
    """An invalid setting. It stops the process that reads it (web, worker or `pressline`)
    with its one-line message on stderr, exit status 1 and no traceback, wherever it is first
    read — including while the tables are imported (piccolo_conf.py) — and no `except
    Exception` on the way can swallow it."""

    def __init__(self, message: str) -> None:
        super().__init__(f"invalid configuration: {message}")
        self.message = message


class Settings(msgspec.Struct, frozen=True, rename="upper", kw_only=True):
    """Each field is the environment variable of the same name in capitals."""

    database_url: str = DEFAULT_DATABASE_URL
    port: Annotated[int, msgspec.Meta(ge=1, le=65535)] = 8000
    public_url: str | None = None
    # Proxies in front of the web process that append to X-Forwarded-For (api/forwarded.py).
    forwarded_hops: Annotated[int, msgspec.Meta(ge=0, le=10)] = 1
    redis_url: str | None = None
    rate_limit_read: Count = 60
    rate_limit_write: Count = 20
    rate_limit_key_prefix: Annotated[str, msgspec.Meta(min_length=1)] = "pressline:rl"
    # Seconds a request waits for a Redis that answers nobody before it is counted in-process.
    rate_limit_redis_timeout: Annotated[float, msgspec.Meta(gt=0, le=10)] = 0.1
    log_level: LogLevel = "INFO"
    metrics_token: str | None = None
    idempotency_lease: Seconds = 60.0  # then a dead request's Idempotency-Key is taken over
    webhook_allow_private_targets: bool = False
    webhook_backoff: Backoff = DEFAULT_WEBHOOK_BACKOFF
    webhook_max_attempts: Count = 5
    webhook_timeout: Seconds = 10.0
    webhook_poll_interval: Seconds = 1.0
    webhook_deactivate_after: Count = 20
    webhook_lease: Seconds = 60.0
    webhook_concurrency: Count = 1024
    webhook_max_in_flight_per_subscription: Count = 4
    webhook_shutdown_grace: Annotated[float, msgspec.Meta(ge=0, le=DAY)] | None = None
    webhook_retention_days: Count = 30
    smtp_url: str | None = None  # unset: the worker logs each email instead (transport `log`)
    mail_from: str | None = None  # default no-reply@ the PUBLIC_URL host, or no-reply@localhost
    mail_concurrency: Annotated[int, msgspec.Meta(ge=1, le=100)] = 8  # SMTP sends at once

    @property
    def sender(self) -> str:
        """MAIL_FROM, or its default."""
        if self.mail_from is not None:
            return self.mail_from
        host = urlsplit(self.public_url).hostname if self.public_url else None
        return f"no-reply@{host or 'localhost'}"

    @property
    def shutdown_grace(self) -> float:
        """WEBHOOK_SHUTDOWN_GRACE, by default one attempt's timeout plus a margin."""
        if self.webhook_shutdown_grace is not None:
            return self.webhook_shutdown_grace
        return self.webhook_timeout + SHUTDOWN_MARGIN

    def check(self) -> None:
        """Rules across variables, and the URLs' forms."""
        if self.webhook_lease <= self.webhook_timeout:
            raise SettingsError(
                f"WEBHOOK_LEASE ({self.webhook_lease:g} s) must be longer than "
                f"WEBHOOK_TIMEOUT ({self.webhook_timeout:g} s)"
            )
        _check_database_url(self.database_url)
        if self.public_url is not None and not _public_url_ok(self.public_url):
            raise SettingsError(
                "PUBLIC_URL must be an absolute http(s) URL such as "
                "https://pressline.example.com or https://example.com/pressline (no user, "
                f"query or fragment), got {masked_url(self.public_url)!r}"
            )
        if self.redis_url is not None and urlsplit(self.redis_url).scheme not in {
            "redis",
            "rediss",
            "unix",
        }:
            raise SettingsError("REDIS_URL must start with redis://, rediss:// or unix://")
        if self.smtp_url is not None:
            try:
                parse_smtp_url(self.smtp_url)
            except ValueError as exc:
                raise SettingsError(f"SMTP_URL: {exc}, got {masked_url(self.smtp_url)!r}") from None
        # ASCII only: an SMTP envelope and header without SMTPUTF8 can carry nothing else.
        if self.mail_from is not None and not (
            self.mail_from.isascii() and _MAILBOX.fullmatch(self.mail_from)
        ):
            raise SettingsError(
                "MAIL_FROM must be an ASCII address such as shop@example.com,"
                f" got {self.mail_from!r}"
            )


def _public_url_ok(url: str) -> bool:
    """What every absolute link may start with (api/links.py): scheme, host, port, path."""
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises on a port that is not a number from 0 to 65535
    except ValueError:
        return False
    return (
        parts.scheme in {"http", "https"}
        and bool(parts.hostname)
        and "@" not in parts.netloc
        and not parts.query
        and not parts.fragment
        and "?" not in url
        and "#" not in url
    )


def _check_database_url(url: str) -> None:
    if url.startswith(("postgres://", "postgresql://")):
        if not urlsplit(url).path.strip("/"):
            raise SettingsError("DATABASE_URL for PostgreSQL must name a database")
    elif not url.startswith("sqlite:///") or url == "sqlite:///":
        # Not the URL itself: a PostgreSQL one may carry a password.
        raise SettingsError(
            "DATABASE_URL must be sqlite:///relative.db, sqlite:////abs/path.db "
            "or postgres://user@host:port/db"
        )


# --- reading the environment -----------------------------------------------------------------

_FIELDS = {field.encode_name: field for field in msgspec.inspect.type_info(Settings).fields}  # type: ignore[attr-defined]
NAMES = tuple(_FIELDS)  # the variables, as spelled in the environment


def _raw(environ: Any) -> dict[str, Any]:
    """The variables that are set (empty counts as unset), shaped for a lax decode."""
    raw: dict[str, Any] = {}
    for name in NAMES:
        value = environ.get(name, "").strip()
        if not value:
            continue
        if name == "WEBHOOK_BACKOFF":
            raw[name] = [part.strip() for part in value.split(",")]
        elif name == "WEBHOOK_ALLOW_PRIVATE_TARGETS":
            lowered = value.lower()
            raw[name] = True if lowered in _TRUE else False if lowered in _FALSE else value
        elif name == "LOG_LEVEL":
            raw[name] = value.upper()
        else:
            raw[name] = value
    return raw


def _expected(name: str) -> str:
    """What `name` accepts, said from the field's own type and bounds."""
    info: Any = _FIELDS[name].type
    if isinstance(info, msgspec.inspect.UnionType):
        info = next(t for t in info.types if not isinstance(t, msgspec.inspect.NoneType))
    if isinstance(info, msgspec.inspect.BoolType):
        return "1 or 0 (also true/false, yes/no, on/off)"
    if isinstance(info, msgspec.inspect.LiteralType):
        return "one of " + ", ".join(map(str, info.values))
    if isinstance(info, msgspec.inspect.VarTupleType):
        return "a comma-separated list of whole seconds, 0 or more, such as 60,300,900"
    if isinstance(info, msgspec.inspect.StrType):
        return "a non-empty text"
    kind = "a whole number" if isinstance(info, msgspec.inspect.IntType) else "a number"
    if info.ge is not None and info.le is not None:
        return f"{kind} from {info.ge:g} to {info.le:g}"
    bounds = [
        f"{words} {value:g}"
        for words, value in (
            ("greater than", info.gt),
            ("of at least", info.ge),
            ("at most", info.le),
        )
        if value is not None
    ]
    return " and ".join([kind, *bounds]).replace(" and ", " ", 1)


def read(environ: Any = os.environ) -> Settings:
    """Decode and check the settings in `environ`; SettingsError names the first bad one."""
    raw = _raw(environ)
    try:
        settings = msgspec.convert(raw, Settings, strict=False)
    except msgspec.ValidationError as exc:
        found = _FIELD_AT.search(str(exc))
        if found is None:  # not expected: every error of a flat Struct has a field path
            raise SettingsError(str(exc)) from None
        name = found.group(1)
        given = environ.get(name, "").strip()
        raise SettingsError(f"{name} must be {_expected(name)}, got {given!r}") from None
    settings.check()
    return settings


_cached: tuple[tuple[str | None, ...], Settings] | None = None


def get_settings() -> Settings:
    """The settings, decoded once. The cache is keyed on the variables' raw values (a few
    dictionary look-ups), so a test that changes the environment gets fresh settings without
    a reset, and a process that never does decodes once."""
    global _cached
    key = tuple(os.environ.get(name) for name in NAMES)
    if _cached is None or _cached[0] != key:
        _cached = (key, read())
    return _cached[1]
