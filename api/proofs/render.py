"""The proof page's own Jinja environment (autoescape on), its headers and CSRF tokens."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import unicodedata
from pathlib import Path
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import jinja2
from litestar import Response

from api.admin.security import HEADERS, tokens_match
from models import proofs

HERE = Path(__file__).parent
PAGE_HEADERS = {**HEADERS, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}

_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(HERE / "templates"),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
    undefined=jinja2.StrictUndefined,
)


def _date(value: dt.datetime | None, timezone: str = "UTC") -> str:
    """`25 November 2026, 14:18 GMT` in the shop's time zone."""
    if value is None:
        return ""
    value = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    try:
        zone: dt.tzinfo = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = dt.UTC
    local = value.astimezone(zone)
    return f"{local:%-d %B %Y, %H:%M} {local.tzname()}"


def _size(value: int) -> str:
    if value >= 1024 * 1024:
        return f"{value / (1024 * 1024):.1f} MiB"
    return f"{max(1, round(value / 1024))} KiB"


_env.filters["date"] = _date
_env.filters["size"] = _size


def html(template: str, *, status_code: int = 200, **context: Any) -> Response[str]:
    return Response(
        content=_env.get_template(template).render(**context),
        status_code=status_code,
        media_type="text/html",
        headers=PAGE_HEADERS,
    )


def csrf_token(key: str, token: str) -> str:
    """The forms' token, bound to the proof's link: it changes nothing for someone holding
    the link, but a page elsewhere cannot post an answer without reading this one first."""
    return hmac.new(key.encode(), b"proof:" + token.encode(), hashlib.sha256).hexdigest()


def csrf_ok(key: str, token: str, given: str) -> bool:
    return tokens_match(given, csrf_token(key, token))


def content_disposition(kind: str, name: str) -> str:
    """`Content-Disposition` for `name` (RFC 6266): a quoted ASCII `filename` every browser
    reads, plus `filename*=UTF-8''…` (RFC 5987) with the name itself when that fallback is
    not it. Nothing of the name reaches the header unencoded but printable ASCII, so no name
    can break the header."""
    plain = unicodedata.normalize("NFKD", name)
    fallback = "".join(
        c if " " <= c <= "~" and c not in '"\\%' else "_"
        for c in plain
        if not unicodedata.combining(c)
    )
    value = f'{kind}; filename="{fallback}"'
    if fallback != name:
        value += f"; filename*=UTF-8''{quote(name, safe='')}"
    return value


def file_response(found: dict[str, Any], headers: dict[str, str]) -> Response[bytes]:
    """A proof's bytes as what its stored content type says, shown inline, never sniffed as
    another and never cached, under its name as models/proofs.py keeps it (rows stored before
    that rule too): for the customer's page and the staff's alike, each with its own headers.
    A content type no upload can have (a row written some other way) is only downloaded."""
    content_type = found["content_type"]
    known = content_type in proofs.EXTENSIONS
    name = proofs.stored_name(found["file_name"], content_type)
    return Response(
        content=bytes(found["data"]),
        media_type=content_type if known else "application/octet-stream",
        headers={
            **headers,
            "Content-Disposition": content_disposition("inline" if known else "attachment", name),
            "Cache-Control": "no-store",
            # A PDF is shown in a frame of the proof page: allowed by this origin only.
            "X-Frame-Options": "SAMEORIGIN",
            "Content-Security-Policy": "default-src 'none'; frame-ancestors 'self'",
        },
    )
