"""Hypothesis strategies for hostile input, and the request bodies that carry it.

Values: text a careless user or an attacker types (C0 controls and NUL, CR/LF, bidi and
byte-order marks, unicode digits, money written the European way, huge strings, paths, markup,
bracketed email addresses), bytes that are not UTF-8, and JSON of the wrong type, huge numbers,
escaped lone surrogates and deep nesting. Bodies: urlencoded and multipart forms built by hand
(so a part may have no filename and non-UTF-8 bytes, or a filename holding CR/LF, NUL, quotes or
slashes), JSON, and bodies whose content type lies. Nothing here touches the app or a database.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_from_bytes

import msgspec.inspect as mi
from hypothesis import strategies as st

from tests.proofs.files import PDF, png

CONTROLS = [chr(c) for c in range(32) if c not in (9, 10, 13)] + ["\x7f"]
ODD = ["\r", "\n", "\r\n", "\t", "\x85", "\u2028", "\u202e", "\ufeff", "\u200b", "\ufffd"]
WORDS = [
    "", " ", "0", "-0", "-1", "+5", "007", " 7 ", "1e9", "NaN", "inf", "0x10", "9" * 30,
    "-" + "9" * 30, "2147483648", "9223372036854775808", "12,50", "1.234,56", "1,204.50",
    "12.505", "4.5", ".5", "\u0661\u0662\u0663", "\u0661\u0662,\u0665\u0660",
    "\u0661\u0662\u066b\u0665\u0660", "\u06f4\u06f5", "\uff11\uff12", "\U0001d7d9", "²", "Ⅻ", "..",
    "../..", "a/b", "a\\b", "%2F", "%00", "/", "?", "#", "<i>x</i>", '"><i1>', "'", '"',
    "null", "true", "[]", "{}", "tøm@exämple.com", "<dana@acme.example>",
    "Dana <dana@acme.example>", "a@b", "@", "a@@b.com", "x" * 255 + "@example.com",
    "2026-02-30", "0000-00-00", "9999-12-31", "10000-01-01", "2026-13-01", "ǅ", "ﬃ", "İ",
    "e\u0301", "😀", "\U0010ffff", "\ufdd0", "\u0000", "DROP TABLE users;--",
]  # fmt: skip
BAD_BYTES = [b"\xff", b"\xfe\xff", b"\xc3(", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80abc", b"caf\xe9"]
FILE_NAMES = [
    "proof.png", "proof.pdf", "skus.csv", 'a"b.png', "a'b.png", "a\r\nb.png", "a\nb.png",
    "a\rb.png", "a\x00b.png", "a\x1bb.png", "../../etc/passwd", "a/b.png", "a\\b.png", "x.html",
    ".png", "png", "", " ", ";", "%22.png", "a\tb.png", "ünï😀.png", "x" * 1000 + ".png",
    "a;filename=b.png", 'a"; name="file', "\u202egnp.exe",
]  # fmt: skip


# Strategies are made once per argument: hypothesis works out a new strategy object's
# properties on its first draw, which costs more than the draw itself.
@functools.cache
def one_in(n: int) -> st.SearchStrategy[bool]:
    """True one time in `n`; never in the simplest example, which hypothesis tries first."""
    return st.integers(0, n - 1).map(lambda drawn: drawn == n - 1)


def _around(words: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    short = st.text(max_size=6)
    return st.builds(lambda a, w, b: a + w + b, short, words, short)


@functools.cache
def hostile_text() -> st.SearchStrategy[str]:
    """Text that ought to be refused, or kept exactly, but never crash anything."""
    return st.one_of(
        st.sampled_from(WORDS),
        _around(st.sampled_from(CONTROLS + ODD)),
        _around(st.just("\x00")),  # the one PostgreSQL cannot store in text
        st.text(max_size=30),
        st.builds(lambda w, n: w * n, st.sampled_from(["x", "é", "😀", "\x00", "\u0661"]),
                  st.sampled_from([10_001, 70_000])),  # huge, yet under the 1 MiB body limit
    )  # fmt: skip


def text_value(real: list[str]) -> st.SearchStrategy[str]:
    """Mostly a real value of the field (so the example gets past the form's first checks
    and into the domain), else a hostile one, else a real one with something hostile around."""
    return _text_value(tuple(real))


@functools.cache
def _text_value(real: tuple[str, ...]) -> st.SearchStrategy[str]:
    if not real:
        return hostile_text()
    pick = st.sampled_from(real)
    return st.one_of(pick, pick, pick, hostile_text(), _around(pick))


def field_bytes(real: list[str]) -> st.SearchStrategy[bytes]:
    """A form field's value as sent: UTF-8 of a value, now and then bytes that are not UTF-8."""
    return _field_bytes(tuple(real))


@functools.cache
def _field_bytes(real: tuple[str, ...]) -> st.SearchStrategy[bytes]:
    utf8 = _text_value(real).map(lambda s: s.encode("utf-8", "surrogatepass"))
    broken = st.builds(lambda a, b: a + b, utf8, st.sampled_from(BAD_BYTES))
    return st.one_of(utf8, utf8, utf8, utf8, utf8, utf8, broken)


# --- JSON -------------------------------------------------------------------------------------

HUGE_NUMBERS = [2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**30, -(10**30), 1e308, -0.0, 0.5, 1e-300]
LONE_SURROGATES = ["\ud800", "\udfff", "a\udc80b", "\ud83d"]


@functools.cache
def hostile_json() -> st.SearchStrategy[Any]:
    leaf = st.one_of(
        st.none(), st.booleans(), st.integers(), st.sampled_from(HUGE_NUMBERS),
        st.floats(allow_nan=False, allow_infinity=False), hostile_text(),
        st.sampled_from(LONE_SURROGATES),
    )  # fmt: skip
    return st.recursive(
        leaf,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
        max_leaves=6,
    )


def json_value(t: mi.Type, real: dict[str, list[Any]], name: str = "") -> st.SearchStrategy[Any]:
    """A value for a field of type `t`: mostly right (real values by field name first), else
    anything at all."""
    right = _right(t, real, name)
    return st.one_of(right, right, right, right, hostile_json())


def _right(t: mi.Type, real: dict[str, list[Any]], name: str) -> st.SearchStrategy[Any]:
    if real.get(name):
        return st.sampled_from(real[name])
    if isinstance(t, mi.IntType):
        low = t.ge if t.ge is not None else (t.gt + 1 if t.gt is not None else -5)
        high = t.le if t.le is not None else (t.lt - 1 if t.lt is not None else 10**6)
        return st.integers(low, high) | st.sampled_from([low - 1, high + 1])
    if isinstance(t, mi.StrType):
        return st.text(min_size=t.min_length or 0, max_size=min(t.max_length or 40, 40)) | (
            hostile_text()
        )
    if isinstance(t, mi.LiteralType):
        return st.sampled_from(list(t.values))
    if isinstance(t, mi.ListType):
        return st.lists(json_value(t.item_type, real), min_size=t.min_length or 0, max_size=3)
    if isinstance(t, mi.StructType):
        return struct_body(t, real)
    if isinstance(t, mi.UnionType):
        return st.one_of([_right(member, real, name) for member in t.types])
    if isinstance(t, mi.NoneType):
        return st.none()
    if isinstance(t, mi.BoolType):
        return st.booleans()
    if isinstance(t, mi.DateType):
        return st.dates().map(lambda d: d.isoformat()) | st.sampled_from(WORDS[-20:])
    if isinstance(t, mi.Metadata):
        return _right(t.type, real, name)
    return hostile_json()


_STRUCT_BODIES: dict[tuple[Any, ...], st.SearchStrategy[Any]] = {}


def struct_body(t: mi.StructType, real: dict[str, list[Any]]) -> st.SearchStrategy[Any]:
    """A JSON object with the struct's own field names: required ones nearly always, optional
    ones sometimes, and now and then a stray field (one object per struct and real values)."""
    key = (t.cls, tuple(sorted((name, tuple(values)) for name, values in real.items())))
    if key not in _STRUCT_BODIES:
        _STRUCT_BODIES[key] = _struct_body(t, real)
    return _STRUCT_BODIES[key]


def _struct_body(t: mi.StructType, real: dict[str, list[Any]]) -> st.SearchStrategy[Any]:
    fields = {f.encode_name: json_value(f.type, real, f.encode_name) for f in t.fields}
    required = [f.encode_name for f in t.fields if f.required]
    optional = [f.encode_name for f in t.fields if not f.required]

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        body = {}
        for name in required:
            if not draw(one_in(10)):
                body[name] = draw(fields[name])
        for name in optional:
            if draw(st.booleans()):
                body[name] = draw(fields[name])
        if draw(one_in(10)):
            body[draw(hostile_text())] = draw(hostile_json())
        return body

    return build()


RAW_JSON = [
    b"", b"null", b"[]", b'""', b"1e999999", b"1" * 5000, b"NaN", b"{", b'{"a":', b"\xef\xbb\xbf{}",
    b"[" * 100_000, b'{"a":' * 20_000, b'"\\ud800"', b'{"\\u0000": "\\u0000"}', b"\xff\xfe{}",
]  # fmt: skip


def json_bytes(value: Any) -> bytes:
    """JSON as a client would send it; lone surrogates travel escaped (`\\ud800`)."""
    return json.dumps(value, ensure_ascii=True, allow_nan=False).encode()


# --- bodies -----------------------------------------------------------------------------------


@dataclass
class Part:
    name: bytes
    data: bytes
    filename: bytes | None = None
    content_type: bytes | None = None


@dataclass
class Body:
    """A request body and the headers that describe it."""

    content: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    kind: str = "none"


def urlencoded(fields: list[tuple[bytes, bytes]]) -> Body:
    content = "&".join(
        f"{quote_from_bytes(name, safe='')}={quote_from_bytes(value, safe='')}"
        for name, value in fields
    ).encode()
    return Body(content, {"content-type": "application/x-www-form-urlencoded"}, "urlencoded")


def multipart(parts: list[Part], boundary: str | None = None) -> Body:
    boundary = boundary or secrets.token_hex(12)
    out = io.BytesIO()
    for part in parts:
        out.write(b"--" + boundary.encode() + b"\r\n")
        disposition = b'Content-Disposition: form-data; name="' + part.name + b'"'
        if part.filename is not None:
            disposition += b'; filename="' + part.filename + b'"'
        out.write(disposition + b"\r\n")
        if part.content_type is not None:
            out.write(b"Content-Type: " + part.content_type + b"\r\n")
        out.write(b"\r\n" + part.data + b"\r\n")
    out.write(b"--" + boundary.encode() + b"--\r\n")
    headers = {"content-type": f"multipart/form-data; boundary={boundary}"}
    return Body(out.getvalue(), headers, "multipart")


def csv_file() -> st.SearchStrategy[bytes]:
    """An inventory CSV: the real header and rows, cells now and then hostile."""
    cell = st.one_of(st.sampled_from(["FZ-1", "Tee", "Gildan", "Black", "#000000", "M", "5"]),
                     hostile_text())  # fmt: skip
    row = st.lists(cell, min_size=7, max_size=8)

    def write(rows: list[list[str]]) -> bytes:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["code", "style", "brand", "colour", "colour_hex", "size", "on_hand"])
        writer.writerows(rows)
        return out.getvalue().encode("utf-8", "surrogatepass")

    return st.lists(row, min_size=1, max_size=3).map(write)


def file_content() -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.just(png(8, 8)), st.just(PDF), csv_file(), st.just(b""),
        st.sampled_from(BAD_BYTES), st.binary(max_size=64),
    )  # fmt: skip


def file_name() -> st.SearchStrategy[bytes]:
    """A plain name half the time, else a hostile one."""
    plain = st.sampled_from(FILE_NAMES[:3])
    names = st.one_of(
        plain, plain, st.sampled_from(FILE_NAMES), _around(st.sampled_from(FILE_NAMES))
    )
    return names.map(lambda s: s.encode("utf-8", "surrogatepass"))
