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


def refusal(address: str) -> str | None:
    """Why `address` (an IP literal) may not be called, or None when it is a public address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
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


def literal_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def check_literal(host: str) -> None:
    """aiohttp does not resolve IP literals, so those are checked before the request."""
    bare = host.strip("[]")
    if literal_ip(bare):
        reason = refusal(bare)
        if reason is not None:
            raise TargetRefused(host, bare, reason)


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
