"""Who is calling, behind the platform's proxies: the client's address and the scheme.

Each proxy in front of the web process appends the address it was called from to
`X-Forwarded-For`, so only the last `FORWARDED_HOPS` entries were written by proxies we
trust; anything to their left came from the client and may be invented. The client's address
is the entry `FORWARDED_HOPS` from the right (a platform's router, one hop: the last entry),
never the first. `X-Forwarded-Proto` gives the scheme (the links' and the admin cookie's) when
its first value — the client-facing proxy's — says `http` or `https`, in any case. With
`FORWARDED_HOPS=0` (the web process faces clients itself) both headers are ignored.

The address is what the admin's login throttle and the request log count (docs/security.md).
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from litestar.types import Scope

_SCHEMES = frozenset(("http", "https"))


def apply(scope: Scope, forwarded_for: bytes | None, proto: bytes | None, hops: int) -> None:
    """Set the scope's client address and scheme from the forwarded headers, if trusted."""
    if hops <= 0:
        return
    if forwarded_for is not None:
        host = client_host(forwarded_for.decode("latin-1"), hops)
        if host is not None:
            scope["client"] = (host, 0)
    if proto is not None:
        first = proto.decode("latin-1").split(",", 1)[0].strip().lower()
        if first in _SCHEMES:
            scope["scheme"] = first


def client_host(forwarded_for: str, hops: int) -> str | None:
    """The address `hops` entries from the right of an `X-Forwarded-For` list (its first entry
    when the list is shorter), or None when that entry is not an IP address."""
    entries = [entry for entry in (part.strip() for part in forwarded_for.split(",")) if entry]
    if not entries:
        return None
    entry = entries[-hops] if len(entries) >= hops else entries[0]
    if entry.startswith("["):  # "[2001:db8::1]:8080"
        entry = entry[1:].partition("]")[0]
    elif entry.count(":") == 1:  # "203.0.113.7:51234"
        entry = entry.partition(":")[0]
    try:
        return str(ipaddress.ip_address(entry))
    except ValueError:
        return None
