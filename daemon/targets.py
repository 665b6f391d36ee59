"""Refusal of private, loopback and link-local targets, decided on the resolved address."""

from __future__ import annotations

import ipaddress
import socket

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

ALLOW_HINT = "set WEBHOOK_ALLOW_PRIVATE_TARGETS=1 to allow"


class TargetRefused(OSError):
    """The target resolves only to addresses the daemon must not call."""

    def __init__(self, host: str, address: str, reason: str) -> None:
        self.message = f"refused target {host}: {address} is {reason} ({ALLOW_HINT})"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052's well-known translation prefix


def refusal(address: str) -> str | None:
    """Why `address` (an IP literal) may not be called, or None when it is a public address.

    IPv6 forms that carry an IPv4 address are judged by what they reach: IPv4-mapped as the
    IPv4 address itself; NAT64 (64:ff9b::/96) by the IPv4 address it translates to, and
    otherwise as the reserved range it is in; 6to4 (2002::/16) and Teredo (2001::/32) are
    refused whatever they embed, as tunnels that a receiver never needs and whose relays
    nobody controls. Site-local (fec0::/10) is refused as the private range it was."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return _reason(ip.ipv4_mapped)
        if ip.sixtofour is not None:
            return f"6to4 address (embeds {ip.sixtofour})"
        if ip.teredo is not None:
            return f"Teredo address (embeds {ip.teredo[1]})"
        if ip in NAT64:
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
            inner_reason = _reason(inner)
            if inner_reason is not None:
                return f"NAT64 address embedding {inner} ({inner_reason})"
        if ip.is_site_local:
            return "site-local address"
    return _reason(ip)


def _reason(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    checks = (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
    )
    for reason, hit in checks:
        if hit:
            return reason + " address"
    if not ip.is_global:
        return "not a public address"
    return None


def literal_address(host: str) -> str | None:
    """The IP address that `host` is written as, or None for a name to resolve.

    Beside the standard forms, every IPv4 form that the C library's inet_aton accepts counts:
    `127.1`, `0177.0.0.1`, `0x7f.1`, `2130706433`. Resolvers turn those into addresses without
    asking DNS, so they are judged here as the address they stand for."""
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare)
    except ValueError:
        pass
    else:
        return bare
    try:
        return socket.inet_ntoa(socket.inet_aton(bare))
    except (OSError, ValueError):  # ValueError: an embedded NUL
        return None


def check_literal(host: str) -> None:
    """Hosts written as addresses are checked before the request, in Pressline's own terms
    (not left to how aiohttp or the resolver reads them)."""
    address = literal_address(host)
    if address is not None:
        reason = refusal(address)
        if reason is not None:
            raise TargetRefused(host, address, reason)


class GuardedResolver(AbstractResolver):
    """Resolves as usual, then keeps only public addresses; none left → TargetRefused."""

    def __init__(self, inner: AbstractResolver | None = None) -> None:
        self._inner = inner or DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        allowed: list[ResolveResult] = []
        first_refusal: tuple[str, str] | None = None
        for result in results:
            reason = refusal(result["host"])
            if reason is None:
                allowed.append(result)
            elif first_refusal is None:
                first_refusal = (result["host"], reason)
        if not allowed:
            address, reason = first_refusal or ("no address", "unresolvable")
            raise TargetRefused(host, address, reason)
        return allowed

    async def close(self) -> None:
        await self._inner.close()


def refused_cause(exc: BaseException) -> TargetRefused | None:
    """The TargetRefused behind an aiohttp connection error, if that is what it was."""
    seen: BaseException | None = exc
    for _ in range(5):  # the chain is short: ClientConnectorDNSError → TargetRefused
        if seen is None or isinstance(seen, TargetRefused):
            return seen
        seen = getattr(seen, "os_error", None) or seen.__cause__
    return None
