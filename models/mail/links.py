"""Absolute links in emails: PUBLIC_URL, or the local default http://127.0.0.1:$PORT."""

from __future__ import annotations

from models.settings import get_settings


def base_url() -> str:
    settings = get_settings()
    if settings.public_url:
        return settings.public_url.rstrip("/")
    return f"http://127.0.0.1:{settings.port}"


def link(path: str) -> str:
    """`path` (starting with /) under the service's public address."""
    return base_url() + path
