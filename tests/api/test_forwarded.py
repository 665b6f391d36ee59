"""The client's address and scheme behind proxies (api/forwarded.py): counted from the right
of X-Forwarded-For, so a client cannot choose the address it is counted under."""

from __future__ import annotations

from typing import Any

import pytest

from api import forwarded


def scope(client: tuple[str, int] = ("10.0.0.5", 40000)) -> dict[str, Any]:
    return {"type": "http", "scheme": "http", "client": client, "headers": []}


@pytest.mark.parametrize(
    ("header", "hops", "expected"),
    [
        ("203.0.113.7", 1, "203.0.113.7"),
        ("192.0.2.1, 203.0.113.7", 1, "203.0.113.7"),  # the client's own entry is ignored
        ("192.0.2.1,203.0.113.7,198.51.100.9", 2, "203.0.113.7"),  # a CDN, then the router
        ("203.0.113.7", 2, "203.0.113.7"),  # fewer entries than hops: the first
        ("203.0.113.7:51234", 1, "203.0.113.7"),
        ("[2001:db8::1]:8080", 1, "2001:db8::1"),
        ("2001:DB8::1", 1, "2001:db8::1"),
        (" , 203.0.113.7 ,", 1, "203.0.113.7"),
    ],
)
def test_the_address_is_counted_from_the_right(header: str, hops: int, expected: str) -> None:
    assert forwarded.client_host(header, hops) == expected


@pytest.mark.parametrize("header", ["", " , ", "unknown", "203.0.113.7, not-an-address", "x" * 300])
def test_an_entry_that_is_no_address_leaves_the_connection_s(header: str) -> None:
    given = scope()
    forwarded.apply(given, header.encode(), None, 1)
    assert given["client"] == ("10.0.0.5", 40000)


def test_the_scheme_is_taken_only_when_it_is_http_or_https() -> None:
    for proto, expected in [(b"https", "https"), (b" http ", "http"), (b"HTTPS", "https"),
                            (b"https, http", "https"), (b"javascript", "http")]:  # fmt: skip
        given = scope()
        forwarded.apply(given, None, proto, 1)
        assert given["scheme"] == expected, proto


def test_with_no_proxy_in_front_the_headers_are_ignored() -> None:
    given = scope()
    forwarded.apply(given, b"203.0.113.7", b"https", 0)
    assert given["client"] == ("10.0.0.5", 40000)
    assert given["scheme"] == "http"
