"""One fuzzed request to a write route, drawn for the shop of tests/security/fuzz_site.py.

Most requests carry what a browser or an integration would (the owner's session and the
page's CSRF token, the proof page's own token, a valid API token) and the route's real field
names, so the values reach the domain rather than stopping at the CSRF wall; the rest leave
the session, the token or a field out, or send someone else's.
"""

from __future__ import annotations

import functools
import re
import secrets
from typing import Any
from urllib.parse import quote

from hypothesis import strategies as st

from api.admin.security import CSRF_FIELD, PUBLIC
from tests.api.route_table import PARAM, WriteRoute
from tests.proofs.files import PDF, png
from tests.security.fuzz_site import Site, body_struct
from tests.security.fuzz_values import (
    RAW_JSON,
    Body,
    Part,
    csv_file,
    field_bytes,
    file_content,
    file_name,
    hostile_json,
    hostile_text,
    json_bytes,
    multipart,
    one_in,
    struct_body,
    urlencoded,
)

# Numbers past every column's range (PostgreSQL integer and bigint), and names of nothing.
HOSTILE_NUMBERS = ["0", "-1", "2147483648", "-2147483649", "9223372036854775808", "9" * 20]
HOSTILE_NAMES = [
    "..", ".", "a b", "ü", "\x00", "x" * 300, "ORD-0000", "'", "1.5", "1e3", "\u0661\u0662",
    "%", "\r\n", "TEE/BLK/M", "../x",
]  # fmt: skip
PROOF_CSRF_FIELD = "_csrf"
BIG = 1024 * 1024 + 10


@functools.cache  # one object per weighting (see fuzz_values.one_in)
def weighted(**weights: int) -> st.SearchStrategy[str]:
    """One of the names, about as often as its weight; shrinks towards the first (the usual
    case). Hypothesis favours both ends of a list, so the first is also the last."""
    names = [name for name, weight in weights.items() for _ in range(weight)]
    return st.sampled_from([*names, names[0]])


class Shot:
    """One request, on one line when hypothesis reports it."""

    def __init__(
        self, method: str, path: str, headers: dict[str, str], body: Body, over_uvicorn: bool,
        notes: list[str],
    ) -> None:  # fmt: skip
        self.method, self.path, self.headers, self.body = method, path, headers, body
        self.over_uvicorn, self.notes = over_uvicorn, notes

    def __repr__(self) -> str:
        content = self.body.content
        shown = content[:400] + (b"...(%d bytes)" % len(content) if len(content) > 400 else b"")
        where = "uvicorn" if self.over_uvicorn else "asgi"
        headers = {**self.body.headers, **self.headers}
        return f"<{self.method} {self.path} via {where} {self.notes} {headers} {shown!r}>"


def area(route: WriteRoute) -> str:
    return route.template.split("/")[1]  # admin, proofs or api


@st.composite
def shots(draw: st.DrawFn, site: Site, route: WriteRoute) -> Shot:
    path, notes = draw(paths(site, route))
    kind = area(route)
    if kind == "api":
        headers, body = draw(api_request(site, route, notes))
    else:
        headers, body = draw(form_request(site, route, path, notes))
    over_uvicorn = draw(one_in(10))
    return Shot(route.method, path, headers, body, over_uvicorn, notes)


@st.composite
def paths(draw: st.DrawFn, site: Site, route: WriteRoute) -> tuple[str, list[str]]:
    """The route's path with each parameter a record of this workspace (mostly), of the other
    workspace, or something that names no record."""
    notes = []
    values = {}
    for name in PARAM.findall(route.template):
        which = draw(weighted(own=8, other=1, hostile=1))
        if which == "hostile":
            value: Any = draw(st.sampled_from(HOSTILE_NUMBERS) | st.sampled_from(HOSTILE_NAMES))
        else:
            value = site.path_ids(which)[name]
        if which != "own":
            notes.append(f"{name}={which}")
        values[name] = quote(str(value), safe="")
    return PARAM.sub(lambda m: values[m.group(1)], route.template), notes


def _csrf_for(site: Site, route: WriteRoute, path: str) -> str:
    if area(route) == "proofs":
        return site.proof_csrf.get(path.split("/")[2], "")
    public = any(re.match(pattern, route.template) for pattern in PUBLIC)
    return site.pre_csrf if public else site.csrf


@st.composite
def form_request(
    draw: st.DrawFn, site: Site, route: WriteRoute, path: str, notes: list[str]
) -> tuple[dict[str, str], Body]:
    """An admin or proof-page form: its fields, its token, its session, one encoding."""
    form = site.forms[str(route)]
    real = {name: [str(v) for v in values] for name, values in site.real_values().items()}
    token_field = PROOF_CSRF_FIELD if area(route) == "proofs" else CSRF_FIELD
    session = draw(weighted(good=18, none=1, forged=1))
    csrf = draw(weighted(good=14, in_header=2, none=1, wrong=1, other_session=1))
    if session != "good":
        notes.append(f"session={session}")
    if csrf != "good":
        notes.append(f"csrf={csrf}")
    headers = {"cookie": site.cookies(session=session == "good")}
    if session == "forged":
        headers["cookie"] += "; pressline_session=" + secrets.token_urlsafe(32)
    token = {
        "good": _csrf_for(site, route, path), "in_header": _csrf_for(site, route, path),
        "wrong": "0" * 64, "other_session": site.other_csrf, "none": "",
    }[csrf]  # fmt: skip

    fields: list[tuple[bytes, bytes]] = []
    files: list[Part] = []
    for name in sorted(form.fields):
        if name in {CSRF_FIELD, PROOF_CSRF_FIELD} or draw(one_in(10)):
            continue
        if name in form.files:
            files.append(draw(file_part(name, form.files[name])))
            continue
        value = field_bytes(form.fields[name] + real.get(name, []))
        fields.append((name.encode(), draw(value)))
        if draw(one_in(20)):  # the same name twice
            fields.append((name.encode(), draw(value)))
    if draw(one_in(6)):  # a field the form does not have
        stray = draw(hostile_text()).encode("utf-8", "surrogatepass")[:200]
        fields.append((stray, draw(field_bytes([]))))
    encoding = draw(weighted(multipart=6, urlencoded=2, json=1, odd=1) if files else
                    weighted(urlencoded=5, multipart=3, json=1, odd=1))  # fmt: skip
    if encoding != "urlencoded":
        notes.append(encoding)
    if csrf == "in_header" or (encoding == "json" and token_field == CSRF_FIELD):
        headers["x-csrftoken"] = token  # as a script would send it
    elif csrf != "none":
        fields.insert(0, (token_field.encode(), token.encode()))
    if encoding == "urlencoded":
        body = urlencoded(fields + [(p.name, p.data) for p in files])
    elif encoding == "multipart":
        body = multipart([Part(name, value) for name, value in fields] + files)
    elif encoding == "json":
        document = {n.decode("utf-8", "replace"): v.decode("utf-8", "replace") for n, v in fields}
        body = Body(json_bytes(document), {"content-type": "application/json"}, "json")
    else:
        body = draw(odd_body(fields, files))
    return headers, body


@st.composite
def file_part(draw: st.DrawFn, name: str, accept: str) -> Part:
    """A file of the kind the input accepts (mostly), under a name that may be hostile."""
    kind = draw(st.sampled_from([None, b"image/png", b"application/pdf", b"text/csv",
                                 b"text/html", b"x\r\ny: z"]))  # fmt: skip
    fitting = csv_file() if "csv" in accept else st.sampled_from([png(8, 8), PDF])
    content = draw(st.one_of(fitting, fitting, file_content()))
    return Part(name.encode(), content, draw(file_name()), kind)


@st.composite
def odd_body(draw: st.DrawFn, fields: list[tuple[bytes, bytes]], files: list[Part]) -> Body:
    """A body whose content type lies, or that is cut, or too large."""
    plain = urlencoded(fields).content
    parts = multipart([Part(n, v) for n, v in fields] + files)
    choice = draw(st.integers(0, 6))
    if choice == 0:
        return Body(plain, {"content-type": "text/plain"}, "text/plain form")
    if choice == 1:
        return Body(plain, {}, "no content type")
    if choice == 2:
        return Body(parts.content, {"content-type": "multipart/form-data"}, "no boundary")
    if choice == 3:
        cut = parts.content[: draw(st.integers(0, max(0, len(parts.content) - 1)))]
        return Body(cut, parts.headers, "cut multipart")
    if choice == 4:
        raw = b"%FF%FE=%C3%28&&==&%zz=1&" + plain
        return Body(raw, {"content-type": "application/x-www-form-urlencoded"}, "bad escapes")
    if choice == 5:
        latin = "name=Caf\xe9&note=\xff".encode("latin-1")
        content_type = "application/x-www-form-urlencoded; charset=latin-1"
        return Body(latin + b"&" + plain, {"content-type": content_type}, "latin-1")
    return Body(plain + b"&x=" + b"a" * BIG, urlencoded([]).headers, "over 1 MiB")


@st.composite
def api_request(
    draw: st.DrawFn, site: Site, route: WriteRoute, notes: list[str]
) -> tuple[dict[str, str], Body]:
    """A JSON body with the route's own struct fields (mostly), with or without a good token."""
    auth = draw(weighted(good=18, none=1, garbage=1))
    headers = {
        "good": dict(site.api_auth), "none": {},
        "garbage": {"authorization": draw(st.sampled_from(["Bearer x", "Basic a", "B" * 5000]))},
    }[auth]  # fmt: skip
    if auth != "good":
        notes.append(f"auth={auth}")
    if draw(one_in(4)):
        key = draw(st.sampled_from(["", "x" * 300, "k \t k"]) | st.uuids().map(str))
        headers["idempotency-key"] = key
    struct = body_struct(route)
    kind = draw(weighted(struct=7, raw=1, form=1, lying=1, big=1) if struct else
                weighted(anything=7, raw=1, form=1, lying=1, big=1))  # fmt: skip
    document: Any = draw(struct_body(struct, site.real_values()) if struct else hostile_json())
    json_type = {"content-type": "application/json"}
    if kind != "struct":
        notes.append(kind)
    if kind in {"struct", "anything"}:
        return headers, Body(json_bytes(document), json_type, "json")
    if kind == "raw":
        return headers, Body(draw(st.sampled_from(RAW_JSON)), json_type, "raw json")
    if kind == "form":
        flat = [(str(k).encode("utf-8", "surrogatepass"), str(v).encode("utf-8", "surrogatepass"))
                for k, v in (document.items() if isinstance(document, dict) else [])]  # fmt: skip
        return headers, urlencoded(flat)
    if kind == "lying":
        return headers, Body(json_bytes(document), {"content-type": "text/plain"}, "lying")
    return headers, Body(b'{"notes": "' + b"a" * BIG + b'"}', json_type, "over 1 MiB")
