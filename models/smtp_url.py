"""SMTP_URL read once: `smtp://user:pass@host:port`, `smtps://` for implicit TLS, `?starttls=1`
(a module of its own: the settings check it, the worker uses it)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True, slots=True)
class SmtpTarget:
    host: str
    port: int
    username: str | None
    password: str | None
    implicit_tls: bool  # smtps://
    starttls: bool  # ?starttls=1 (smtp:// only)


def parse_smtp_url(url: str) -> SmtpTarget:
    """The server to send through; ValueError says what is wrong (never echoing a password)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ValueError("the port must be a number from 1 to 65535") from None
    if parts.scheme not in {"smtp", "smtps"}:
        raise ValueError("it must start with smtp:// or smtps://")
    if not parts.hostname:
        raise ValueError("it must name a host, as in smtp://user:pass@smtp.example.com:587")
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = set(query) - {"starttls"}
    if unknown:
        raise ValueError(f"unknown option {sorted(unknown)[0]!r} (only starttls=1 is known)")
    flag = query.get("starttls", ["0"])[-1].lower()
    if flag not in _TRUE | _FALSE:
        raise ValueError("starttls must be 1 or 0")
    starttls = flag in _TRUE
    implicit = parts.scheme == "smtps"
    if implicit and starttls:
        raise ValueError("smtps:// is already TLS; starttls=1 goes with smtp://")
    return SmtpTarget(
        host=parts.hostname,
        port=port or (465 if implicit else 587 if starttls else 25),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        implicit_tls=implicit,
        starttls=starttls,
    )
