"""Absolute links: the one place that decides their scheme, host and prefix.

Every absolute URL the API sends (a list's `links`, a create's `Location`) is `endpoint_url`
of the request's ASGI scope. With PUBLIC_URL set, links start with it and forwarded headers
play no part. Without it, the scheme is the request's (X-Forwarded-Proto's when it says `http`
or `https`, read with the client's address by api/forwarded.py), and the host is taken from
X-Forwarded-Host (its first value, the client-side proxy's; else Host) only when it is a
syntactically valid `host[:port]`; anything else falls back to the address the request was
made to.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any

from litestar import Request
from litestar.openapi.spec import OpenAPI, Server

STATE_KEY = "public_url"  # app.state: PUBLIC_URL without its trailing slash, or None

# One DNS label (underscores too: container and service names use them), or an IPv4 address.
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_HOST = re.compile(rf"(?:(?:{_LABEL}\.)*{_LABEL}\.?|\[([0-9A-Fa-f:.]+)\])(?::([0-9]{{1,5}}))?")
_MAX_HOST = 253 + len(":65535") + 2
_SCHEMES = {"http": "http", "https": "https", "ws": "http", "wss": "https"}


def public_base(public_url: str | None) -> str | None:
    """PUBLIC_URL as links start with it (computed once, when the app is built)."""
    return public_url.rstrip("/") if public_url else None


def valid_host(value: str) -> bool:
    """Whether `value` is a host name, IPv4 or bracketed IPv6 address, with an optional port
    from 1 to 65535, and nothing else (no path, user, query, spaces or second colon)."""
    if len(value) > _MAX_HOST:
        return False
    found = _HOST.fullmatch(value)
    if found is None:
        return False
    v6, port = found.groups()
    if port is not None and not 0 < int(port) <= 65535:
        return False
    if v6 is not None:
        try:
            ipaddress.IPv6Address(v6)
        except ValueError:
            return False
    return True


def _origin(scope: Mapping[str, Any]) -> str:
    """`scheme://host[:port]` of the request as the client addressed it."""
    forwarded_host = host = None
    for name, value in scope["headers"]:
        if name == b"x-forwarded-host" and forwarded_host is None:
            forwarded_host = value.decode("latin-1").split(",", 1)[0].strip()
        elif name == b"host" and host is None:
            host = value.decode("latin-1")
    scheme = _SCHEMES.get(scope.get("scheme", ""), "http")
    if forwarded_host is not None and valid_host(forwarded_host):
        return f"{scheme}://{forwarded_host}"
    if host is not None and valid_host(host):
        return f"{scheme}://{host}"
    server = scope.get("server")
    if not server:
        return f"{scheme}://localhost"
    address, port = server[0], server[1]
    if ":" in address:
        address = f"[{address}]"
    default = 443 if scheme == "https" else 80
    return f"{scheme}://{address}" if port in (None, default) else f"{scheme}://{address}:{port}"


def endpoint_url(scope: Mapping[str, Any], public: str | None) -> str:
    """The absolute URL of the requested path, without its query string.

    `public` is `public_base(PUBLIC_URL)`: the address of the application's root, so
    `https://x.example/pressline` gives `https://x.example/pressline/api/v1/orders`, any root
    path the server was given being replaced by PUBLIC_URL's own."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    if public is not None:
        return public + path
    return _origin(scope) + root + path


def request_url(request: Request[Any, Any, Any]) -> str:
    """`endpoint_url` of a Litestar request, with the PUBLIC_URL its app was built with."""
    return endpoint_url(request.scope, request.app.state.get(STATE_KEY))


def document_server(schema: OpenAPI, public: str | None) -> None:
    """With PUBLIC_URL, the OpenAPI document names it as the API's server; otherwise the
    server stays `/`, relative to wherever the document was fetched from."""
    if public is not None:
        schema.servers = [Server(url=public)]
