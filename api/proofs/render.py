"""The proof page's own Jinja environment (autoescape on), its headers and CSRF tokens."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import jinja2
from litestar import Response

from api.admin.security import HEADERS

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
    return hmac.compare_digest(csrf_token(key, token), given)


def file_response(found: dict[str, Any], headers: dict[str, str]) -> Response[bytes]:
    """A proof's bytes with its own content type, shown inline, never sniffed as another: for
    the customer's page and the staff's alike, each with its own page headers."""
    name = found["file_name"].replace('"', "").encode("ascii", "replace").decode()
    return Response(
        content=bytes(found["data"]),
        media_type=found["content_type"],
        headers={
            **headers,
            "Content-Disposition": f'inline; filename="{name}"',
            # A PDF is shown in a frame of the proof page: allowed by this origin only.
            "X-Frame-Options": "SAMEORIGIN",
            "Content-Security-Policy": "default-src 'none'; frame-ancestors 'self'",
        },
    )
