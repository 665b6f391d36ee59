"""The pure rules: signature, retry schedule, address refusal, configuration checks."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import socket

import pytest
from aiohttp.abc import AbstractResolver, ResolveResult

from daemon import retry, targets
from daemon.config import DaemonConfig
from models import settings
from models.settings import DEFAULT_WEBHOOK_BACKOFF, SettingsError
from models.webhooks import signing


def test_signature_is_sha256_prefix_and_lowercase_hex_hmac_of_the_raw_body():
    body = '{"event":"order.dispatched","note":"café ✓"}'.encode()
    expected = hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert signing.signature("s3cret", body) == "sha256=" + expected
    assert expected == expected.lower() and len(expected) == 64
    # A published HMAC-SHA256 test vector (RFC 4231, case 2).
    assert signing.signature("Jefe", b"what do ya want for nothing?") == (
        "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )


def test_headers_are_exactly_the_decided_set():
    webhook_id = "dlv_" + "a" * 26
    headers = signing.headers(
        event="invoice.paid", secret="k", body=b"{}", webhook_id=webhook_id, workspace_id=12,
        attempt=3, timestamp=1700,
    )  # fmt: skip
    assert headers == {
        "Content-Type": "application/json",
        "User-Agent": "Service-Webhooks/1.0",
        "X-SVC-Event": "invoice.paid",
        "X-SVC-Signature": signing.signature("k", b"{}"),
        "X-SVC-Delivery": webhook_id,
        "X-SVC-Workspace": "12",
        "X-SVC-Attempt": "3",
        "webhook-id": webhook_id,
        "webhook-timestamp": "1700",
        "webhook-signature": signing.standard_signature("k", webhook_id, 1700, b"{}"),
    }


def test_default_schedule_is_now_then_1m_5m_15m_1h_and_five_attempts():
    assert DEFAULT_WEBHOOK_BACKOFF == (60, 300, 900, 3600, 14400)
    waits = [retry.delay_after(n, DEFAULT_WEBHOOK_BACKOFF, 5) for n in range(1, 6)]
    assert waits == [60, 300, 900, 3600, None]


def test_more_attempts_use_the_fifth_entry_then_repeat_the_last():
    waits = [retry.delay_after(n, (60, 300, 900, 3600, 14400), 8) for n in range(1, 9)]
    assert waits == [60, 300, 900, 3600, 14400, 14400, 14400, None]
    assert retry.delay_after(1, (10,), 1) is None
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    assert retry.next_attempt_at(start, 2, (60, 300), 5) == start + dt.timedelta(minutes=5)


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.9", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("0.0.0.0", "unspecified"),  # noqa: S104
        ("::", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("fc00::1", "private"),
        ("::ffff:127.0.0.1", "loopback"),
        ("100.64.0.1", "not a public"),
        ("240.0.0.1", "reserved"),
    ],
)
def test_non_public_addresses_are_refused(address, reason):
    refusal = targets.refusal(address)
    assert refusal is not None and refusal.startswith(reason)


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_are_allowed(address):
    assert targets.refusal(address) is None


def test_ip_literals_are_checked_before_the_request():
    with pytest.raises(targets.TargetRefused, match=r"127\.0\.0\.1 is loopback"):
        targets.check_literal("127.0.0.1")
    with pytest.raises(targets.TargetRefused, match="is link-local"):
        targets.check_literal("[fe80::1]")
    targets.check_literal("8.8.8.8")
    targets.check_literal("hooks.example.com")  # names go through the resolver


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        # 6to4 is refused whatever it embeds; the reason names the embedded address.
        ("2002:7f00:1::", "6to4 address (embeds 127.0.0.1)"),
        ("2002:a00:1::1", "6to4 address (embeds 10.0.0.1)"),
        ("2002:808:808::1", "6to4 address (embeds 8.8.8.8)"),
        # Teredo: the client address is stored inverted in the last 32 bits.
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo address (embeds 127.0.0.1)"),
        ("2001::1", "Teredo address"),
        # NAT64's well-known prefix: the IPv4 address it translates to is checked.
        ("64:ff9b::7f00:1", "NAT64 address embedding 127.0.0.1 (loopback address)"),
        ("64:ff9b::a00:1", "NAT64 address embedding 10.0.0.1 (private address)"),
        ("64:ff9b::a9fe:a9fe", "NAT64 address embedding 169.254.169.254 (link-local address)"),
        ("fec0::1", "site-local address"),
        ("feff:ffff::1", "site-local address"),
    ],
)
def test_tunnelled_translated_and_site_local_addresses_are_refused(address, reason):
    refusal = targets.refusal(address)
    assert refusal is not None and refusal.startswith(reason), refusal


@pytest.mark.parametrize(
    ("host", "address", "reason"),
    [
        ("127.1", "127.0.0.1", "loopback"),  # inet_aton's a.b form
        ("127.0.1", "127.0.0.1", "loopback"),  # a.b.c
        ("0177.0.0.1", "127.0.0.1", "loopback"),  # octal
        ("0x7f.0.0.1", "127.0.0.1", "loopback"),  # hexadecimal
        ("0x7f000001", "127.0.0.1", "loopback"),
        ("2130706433", "127.0.0.1", "loopback"),  # one integer
        ("017700000001", "127.0.0.1", "loopback"),
        ("0", "0.0.0.0", "unspecified"),  # noqa: S104
        ("10.1", "10.0.0.1", "private"),
        ("167772161", "10.0.0.1", "private"),
        ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254", "link-local"),
        ("[2002:7f00:1::]", "2002:7f00:1::", "6to4"),
        ("[fec0::1]", "fec0::1", "site-local"),
        ("[64:ff9b::7f00:1]", "64:ff9b::7f00:1", "NAT64"),
    ],
)
def test_literal_hosts_in_every_form_are_refused_before_the_request(host, address, reason):
    with pytest.raises(targets.TargetRefused) as refused:
        targets.check_literal(host)
    assert refused.value.message.startswith(f"refused target {host}: {address} is {reason}")


@pytest.mark.parametrize("host", ["134744072", "0x8.0x8.0x8.0x8", "8.8.8.8", "hooks.example.com"])
def test_public_literals_in_any_form_and_names_pass_the_literal_check(host):
    targets.check_literal(host)  # 134744072 and 0x8.0x8.0x8.0x8 are 8.8.8.8


def test_lease_must_outlive_the_attempt_timeout():
    with pytest.raises(SettingsError, match="WEBHOOK_LEASE"):
        settings.read({"WEBHOOK_TIMEOUT": "10", "WEBHOOK_LEASE": "10"})
    assert settings.read({"WEBHOOK_TIMEOUT": "10", "WEBHOOK_LEASE": "10.5"}).webhook_lease == 10.5


def test_the_worker_configuration_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("WEBHOOK_LEASE", "45")
    monkeypatch.setenv("WEBHOOK_CONCURRENCY", "3")
    monkeypatch.setenv("WEBHOOK_BACKOFF", "1,2")
    monkeypatch.setenv("WEBHOOK_MAX_ATTEMPTS", "3")
    monkeypatch.setenv("WEBHOOK_TIMEOUT", "4")
    config = DaemonConfig.from_settings()
    assert (config.lease, config.concurrency, config.backoff, config.max_attempts) == (
        45.0,
        3,
        (1, 2),
        3,
    )
    assert config.shutdown_grace == 4 + settings.SHUTDOWN_MARGIN
    monkeypatch.setenv("WEBHOOK_SHUTDOWN_GRACE", "0")
    assert DaemonConfig.from_settings().shutdown_grace == 0
    monkeypatch.setenv("WEBHOOK_LEASE", "soon")
    with pytest.raises(SettingsError, match="WEBHOOK_LEASE must be a number greater than 0"):
        DaemonConfig.from_settings()


class _Answers(AbstractResolver):
    """Stands in for DNS: answers every name with the given addresses."""

    def __init__(self, *addresses: str) -> None:
        self.addresses = addresses

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        return [
            ResolveResult(hostname=host, host=a, port=port, family=family, proto=0, flags=0)
            for a in self.addresses
        ]

    async def close(self) -> None:
        return None


async def test_the_resolver_keeps_only_public_addresses():
    mixed = targets.GuardedResolver(_Answers("10.0.0.7", "93.184.215.14", "::1"))
    assert [r["host"] for r in await mixed.resolve("hooks.example.com", 443)] == ["93.184.215.14"]
    private = targets.GuardedResolver(_Answers("169.254.169.254", "10.0.0.7"))
    with pytest.raises(targets.TargetRefused) as refused:
        await private.resolve("metadata.example.com", 80)
    assert str(refused.value) == (
        "refused target metadata.example.com: 169.254.169.254 is link-local address "
        "(set WEBHOOK_ALLOW_PRIVATE_TARGETS=1 to allow)"
    )
