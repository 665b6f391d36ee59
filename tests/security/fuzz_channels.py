"""One fuzzed request to any route of the app's route table, with hostile values in the
channels around the body: path segments, the query string and the headers (CSRF tokens,
`Last-Event-ID`, `If-Match`, `Idempotency-Key`, `Authorization`, `Cookie` and the others a
proxy or a script sends), drawn for the shop of fuzz_site.py. A write route's body is the
form or JSON body fuzz_requests.py draws for it.

Most values in a request are the real ones (the owner's session and the page's CSRF token, a
valid API token, this workspace's records in the path), so each hostile value reaches the
code that reads it rather than stopping at the first refusal. Header values are bytes a
server passes on (printable ASCII, tab, and bytes past 0x7f, which it reads as latin-1);
path and query bytes may be anything, percent-encoded or not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, quote_from_bytes

from hypothesis import strategies as st
from litestar import Litestar
from litestar.routes import HTTPRoute

from tests.api.route_table import PARAM, WRITE_METHODS, WriteRoute
from tests.security.fuzz_requests import (
    HOSTILE_NAMES,
    HOSTILE_NUMBERS,
    Shot,
    api_request,
    area,
    form_request,
    weighted,
)
from tests.security.fuzz_site import Site
from tests.security.fuzz_values import BAD_BYTES, Body, hostile_text, one_in

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
STREAM = "/admin/stream"  # an answer that never ends: read until it starts, then left

# Path segments as sent (already percent-encoded): NUL and other controls, bytes that are not
# UTF-8, more digits than Python converts, ids past every column, encoded slashes and dots,
# superscript and Arabic-Indic digits, a byte-order mark, markup.
HOSTILE_SEGMENTS = [
    "%00", "a%00b", "ORD-2026-%00", "INV-2026-%00", "1" * 4301, "%FF", "%C0%AF", "%ED%A0%80",
    "%2F", "%2E%2E", "..%2F..%2Fetc%2Fpasswd", "%252e", "%20", "%09", "%0A", "%0D%0A",
    "%E2%80%AE", "%C2%B2", "%D9%A1%D9%A2", "%EF%BB%BF1", "x" * 300, "%25", "%22%3E%3Ci%3E",
    "id", "id%2F1", "id%2F" + "9" * 30, "ORD-" + "9" * 40, "%7B%7D",
    *(quote(value, safe="") for value in HOSTILE_NUMBERS + HOSTILE_NAMES),
]  # fmt: skip

# Every query parameter some page or list reads (the admin's and the API's), and some that none
# does; values that are real for them, to get past the first check of the others.
QUERY_NAMES = [
    "q", "search", "stage", "customer", "due", "page", "per_page", "status", "event", "failed",
    "subscription", "next", "rev", "order", "updated_since", "since", "low", "names", "name",
    "cursor", "limit", "x", "_csrf_token", "page[size]",
]  # fmt: skip
REAL_QUERY = {
    "q": ["Acme", "fox", "ORD-2026"], "search": ["Acme"], "page": ["1", "2"],
    "stage": ["open", "artwork", "print_queue"], "due": ["overdue", "week"], "per_page": ["10"],
    "status": ["failed", "issued"], "failed": ["24h"], "next": ["/admin/orders"], "rev": ["1"],
    "updated_since": ["2026-01-01T00:00:00Z"], "low": ["true"], "names": ["order.stage_changed"],
}  # fmt: skip
RAW_QUERY_VALUES = [
    "%zz", "%FF%FE", "%", "%0", "%C3", "%00", "%1F", "%7F", "%E2%82", "1" * 4301, "%2B99:00",
    "2026-13-01", "2026-01-01T25:00:00", "-0", "1e3", "0x10", "%C2%B2", "%D9%A1", "+1", " 1",
]  # fmt: skip
ODD_QUERIES = ["&&==&", "=x", "a", ";a=b", "a=1;b=2", "%FF=1", "a%00=1", "&", "==", "a==b"]

# Header values a server passes on: printable ASCII, tab, and bytes past 0x7f.
HOSTILE_HEADER_VALUES = [
    b"", b" ", b"\t", b"\xb2", b"1\xb2", b"\xff" * 8, b"\xc3\xa9" * 32, b"\xe9" * 64, b"0" * 64,
    b"x" * 8000, b"a\tb", b"-1", b"1e3", b"+1", b"99999999999", b"2147483648", b"0", b"1",
    b'"abc"', b"*", b'W/"x"', b'"' + b"9" * 30 + b'"', b"null", b"%00", b"\\x00", b"()<>@,;:",
]  # fmt: skip
TOKENISH = [
    b"Bearer", b"Bearer ", b"Bearer x", b"bearer x", b"Basic YTpi", b"Token x",
    b"Bearer plk_" + b"A" * 43, b"Bearer plk_\xff\xfe", b"Bearer " + b"B" * 7000,
]  # fmt: skip
COOKIE_NAMES = [b"pressline_session", b"pressline_presession", b"__Host-pressline_session",
                b"__Host-pressline_presession", b"pressline_flash"]  # fmt: skip
HEADER_NAMES = [
    "x-csrftoken", "last-event-id", "if-match", "if-none-match", "idempotency-key",
    "authorization", "cookie", "content-type", "accept", "hx-request", "x-forwarded-for",
    "x-forwarded-proto", "x-request-id", "range", "accept-encoding", "origin", "referer",
]  # fmt: skip
SERVER_PASSES = re.compile(rb"[\t\x20-\x7e\x80-\xff]*")


def every_route(app: Litestar) -> list[WriteRoute]:
    """Every method of every route of the app's table (HEAD and OPTIONS aside), sorted."""
    found = []
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        template = PARAM.sub(r"{\1}", route.path)
        for method, (handler, _) in route.route_handler_map.items():
            if method in METHODS:
                found.append(WriteRoute(method, template, handler))
    return sorted(found, key=str)


@dataclass
class Extras:
    """Path parameters that name files or places rather than records."""

    event_ids: dict[str, str]  # by workspace ("own", "other")


def path_values(site: Site, extras: Extras, which: str, route: WriteRoute) -> dict[str, Any]:
    ids = site.path_ids(which)
    if route.template.startswith("/i/"):  # the customer's invoice page: the invoice's link
        ids = {**ids, "token": ids["invoice_token"]}
    return {
        **ids,
        "event_id": extras.event_ids[which],
        "file_path": "admin.css",  # the admin's static files
        "rest": "nowhere",  # the admin's 404 page
        "path": "openapi.yaml",  # the OpenAPI document's other forms
    }


def kind(route: WriteRoute) -> str:
    """admin, proofs, api, or other (health, metrics, the OpenAPI document)."""
    found = area(route)
    return found if found in {"admin", "proofs", "api"} else "other"


@st.composite
def channel_path(
    draw: st.DrawFn, site: Site, extras: Extras, route: WriteRoute
) -> tuple[str, list[str]]:
    """The route's path: each parameter this workspace's record (mostly), the other
    workspace's, or a hostile segment."""
    notes = []
    values = {}
    for name in PARAM.findall(route.template):
        which = draw(weighted(own=6, other=1, hostile=3))
        if which == "hostile":
            values[name] = draw(SEGMENT)
            notes.append(f"{name}=hostile")
        else:
            values[name] = quote(str(path_values(site, extras, which, route)[name]), safe="")
            if which == "other":
                notes.append(f"{name}=other")
    return PARAM.sub(lambda m: values[m.group(1)], route.template), notes


# Strategies built once (hypothesis works out each new strategy's properties on its first
# draw, which would cost more than the draws themselves).
SEGMENT = st.sampled_from(HOSTILE_SEGMENTS)


def _encoded(text: str) -> str:
    """Percent-encoded, at most 3,000 characters (cut anywhere, an escape too): four values
    stay within the 16 KiB a request's head may have (api/server.py)."""
    return quote_from_bytes(text[:3000].encode("utf-8", "surrogatepass"), safe="")[:3000]


def _query(pairs: list[tuple[str, str]], odd: tuple[int, str] | None) -> str:
    parts = [f"{name}={value}" for name, value in pairs]
    if odd is not None:
        parts.insert(min(odd[0], len(parts)), odd[1])
    return "?" + "&".join(parts)


_NAME = st.sampled_from(QUERY_NAMES)
_QUERY_PAIR = st.one_of(
    st.sampled_from([(name, _encoded(v)) for name, values in REAL_QUERY.items() for v in values]),
    st.tuples(_NAME, hostile_text().map(_encoded)),
    st.tuples(_NAME, st.sampled_from(RAW_QUERY_VALUES)),
    st.tuples(_NAME, st.sampled_from(BAD_BYTES).map(lambda raw: quote_from_bytes(raw, safe=""))),
)
_SOME_QUERY = st.builds(
    _query,
    st.lists(_QUERY_PAIR, min_size=1, max_size=4),
    st.none() | st.tuples(st.integers(0, 4), st.sampled_from(ODD_QUERIES)),
)
# `?…` or nothing (a third of the requests): real and hostile values for the names pages and
# lists read, raw escapes that are not UTF-8 or not escapes at all, repeated names, odd
# separators.
QUERY = st.one_of(st.just(""), _SOME_QUERY, _SOME_QUERY)

_GENERIC = st.sampled_from(HOSTILE_HEADER_VALUES)
_SHAPED = {
    "authorization": _GENERIC | st.sampled_from(TOKENISH),
    "last-event-id": _GENERIC | st.sampled_from([
        b"\xb2", b"\xb9", b"1\xb3", b"99999999999", b"2147483648", b"2147483647", b"-1", b"1e3",
        b"0", b" 1", b"0x1",
    ]),
    "content-type": _GENERIC | st.sampled_from([
        b"application/json; charset=latin-1", b"multipart/form-data", b"text/plain",
        b"application/x-www-form-urlencoded; charset=\xff", b"multipart/form-data; boundary=",
    ]),
    "cookie": st.builds(
        lambda name, value, extra: name + b"=" + value + extra,
        st.sampled_from(COOKIE_NAMES), _GENERIC,
        st.sampled_from([b"", b"; a", b";;;", b"; =x", b"; pressline_session=x"]),
    ),
}  # fmt: skip
# (name, value, whether the owner's own cookies come first): one to three hostile headers.
_HEADER = st.one_of([
    st.tuples(st.just(name), _SHAPED.get(name, _GENERIC), st.booleans()) for name in HEADER_NAMES
])  # fmt: skip
HEADERS = st.lists(_HEADER, max_size=3)
ODD_BODY = Body(b'{"a": "\\u0000"}\xff', {"content-type": "application/json"}, "odd")


def base_headers(site: Site, route: WriteRoute) -> dict[str, str]:
    """What a browser or an integration sends to a route it may read."""
    area_ = kind(route)
    if area_ == "admin":
        return {"cookie": site.cookies()}
    if area_ == "api":
        return dict(site.api_auth)
    return {}


@st.composite
def channel_shots(draw: st.DrawFn, site: Site, extras: Extras, route: WriteRoute) -> Shot:
    """One request to `route`; build it once per route and draw from it (see above)."""
    path, notes = draw(channel_path(site, extras, route))
    area_ = kind(route)
    headers: dict[str, Any]
    if route.method in WRITE_METHODS and area_ == "api":
        headers, body = draw(api_request(site, route, notes))
    elif route.method in WRITE_METHODS and area_ in {"admin", "proofs"}:
        headers, body = draw(form_request(site, route, path, notes))
    else:
        headers, body = base_headers(site, route), Body()
        if draw(one_in(10)):  # a body where none is read
            body = ODD_BODY
    query = draw(QUERY)
    if query:
        notes.append("query")
    headers = dict(headers)
    for name, value, own_first in draw(HEADERS):
        if name == "cookie" and own_first:
            value = site.cookies().encode() + b"; " + value
        assert SERVER_PASSES.fullmatch(value), value
        headers[name] = value
        notes.append(f"{name}=hostile")
    return Shot(route.method, path + query, headers, body, False, notes)
