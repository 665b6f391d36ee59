"""A SKU's addresses in the admin: a code may hold any printable character,
so its URL carries it percent-encoded as one path segment (`/admin/inventory/TEE%2FBLK`), and
the SKU's routes read it back from the raw path, where an encoded `/` is still `%2F` (the
decoded path the router matches on has lost that difference).

A few codes cannot be a path segment at all: `.` and `..` (browsers resolve them away, also
when encoded), codes made only of `/` (the router drops empty segments) and `import` or
`import/…` (the import's own route). Their links go by id instead, `/admin/inventory/id/12`,
which every SKU also answers to. No encoded code is two segments, so neither form can be
taken for the other.
"""

from __future__ import annotations

from typing import Any, NamedTuple
from urllib.parse import quote, unquote_to_bytes

from api.admin.security import PREFIX
from models.filters import MAX_ID

PATH = f"{PREFIX}/inventory"
IMPORT = "import"
ADJUST = "adjust"
COST = "cost"
_ANCHOR = [part.encode() for part in PATH.strip("/").split("/")]


def by_id(code: str) -> bool:
    """The codes no URL can carry as a segment, reached by id."""
    return code in (".", "..") or not code.strip("/") or code.split("/")[0] == IMPORT


def sku_url(code: str, sku_id: int, action: str = "") -> str:
    """The one way to build a SKU's page or action address (templates and redirects)."""
    segment = f"id/{sku_id}" if by_id(code) else quote(code, safe="")
    return f"{PATH}/{segment}" + (f"/{action}" if action else "")


class Target(NamedTuple):
    """What a SKU route's path names: the SKU (its id as an int, its code as a str) and the
    action after it ("" for the page)."""

    sku: int | str
    action: str


def _segments(scope: Any) -> list[bytes] | None:
    raw: bytes = scope.get("raw_path") or quote(scope["path"]).encode()
    parts = raw.split(b"/")
    for i in range(len(parts) - 1):
        if parts[i : i + len(_ANCHOR)] == _ANCHOR:
            rest = parts[i + len(_ANCHOR) :]
            return rest[:-1] if rest and rest[-1] == b"" else rest  # one trailing slash
    return None


def target(scope: Any) -> Target | None:
    """The SKU and action named by the request's raw path, or None for a path no SKU URL has
    (a code that is not UTF-8, an unencoded `/` in a code, a stray segment)."""
    rest = _segments(scope)
    if not rest:
        return None
    sku: int | str
    if rest[0] == b"id" and len(rest) >= 2 and rest[1].isdigit():
        if len(rest[1]) > 10 or not 0 < int(rest[1]) <= MAX_ID:
            return None
        sku, rest = int(rest[1]), rest[2:]
    else:
        try:
            sku = unquote_to_bytes(rest[0]).decode("utf-8")
        except UnicodeDecodeError:
            return None
        rest = rest[1:]
    if not sku or len(rest) > 1:
        return None
    return Target(sku, rest[0].decode("ascii", "replace") if rest else "")
