"""The shop the write-route fuzzer attacks: two workspaces with one record of every kind, an
owner's admin session and API token, the fields of every form as the pages render them, and
the database's rows before and after a request.

Field names and real values come from the app's own pages (every admin GET page and the proof
page are read once and their POST forms parsed), so a new form is fuzzed with its real fields
without edits here; a route no page posts to is fuzzed with the names its handler reads.
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote

import httpx
import msgspec.inspect as mi
import pytest
from litestar import Litestar

from models import admin_sessions, db, passwords
from models.statements import Reader, Sql, connection
from models.tables import Artwork, ArtworkProof, Contact, CustomerMessage, User, Workspace
from tests import factories
from tests.admin.support import PASSWORD, csrf_of, member
from tests.api.route_table import WriteRoute
from tests.proofs.support import LINK
from tests.security.admin_walk import admin_routes, fill, records

# Rows a refused request may write by design, left out of the before/after comparison:
EXCLUDED_TABLES = {
    "failed_logins": "the login throttle counts every refused login",
    "idempotency_keys": "the API holds a request's key, and keeps its answer for a replay",
}
EXCLUDED_COLUMNS = {
    ("admin_sessions", "last_seen_at"): "any request touches its session, once a minute",
    ("api_tokens", "last_used_at"): "written in the background by models/token_use.py",
}
# The path parameters of the proof page and the API, by the records' names.
ALIASES = {"token": "proof_token"}
# What uvicorn (httptools) refuses to send: the connection is dropped, while the app and the
# request log both believe the answer went out.
BAD_HEADER_NAME = re.compile(rb'[\x00-\x1f\x7f()<>@,;:\[\]={} \t\\"]')
BAD_HEADER_VALUE = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
_PROOF_CSRF = re.compile(r'name="_csrf" value="([0-9a-f]+)"')
_READS = re.compile(r"""(?:text|many|fields\.get|data\.get)\((?:fields,\s*)?["'](\w+)["']""")


@dataclass
class Form:
    """A form's fields: each name with the values the page offers (options, prefilled)."""

    fields: dict[str, list[str]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # file inputs and what they accept

    def offer(self, name: str, value: str | None) -> None:
        values = self.fields.setdefault(name, [])
        if value and value not in values and len(values) < 20:
            values.append(value)


class _FormParser(HTMLParser):
    """The POST forms of a page, by action."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: dict[str, Form] = {}
        self._current: Form | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            post = (a.get("method") or "").lower() == "post"
            self._current = self.forms.setdefault(a.get("action") or "", Form()) if post else None
        elif self._current is None:
            return
        elif tag in {"input", "textarea", "select", "button"} and a.get("name"):
            name = a["name"] or ""
            if a.get("type") == "file":
                self._current.files[name] = a.get("accept") or ""
            self._current.offer(name, a.get("value"))
            self._select = name if tag == "select" else None
        elif tag == "option" and self._select:
            self._current.offer(self._select, a.get("value"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._current = None
        elif tag == "select":
            self._select = None


def forms_of(html: str) -> dict[str, Form]:
    parser = _FormParser()
    parser.feed(html)
    return parser.forms


def handler_reads(route: WriteRoute) -> list[str]:
    """The form fields a handler reads by name (for a route no page posts to)."""
    return sorted(set(_READS.findall(inspect.getsource(route.handler.fn))))


def body_struct(route: WriteRoute) -> mi.StructType | None:
    """The msgspec Struct an API handler decodes its body into, if any."""
    hints = typing.get_type_hints(route.handler.fn, include_extras=True)
    kind = hints.get("data")
    while typing.get_origin(kind) is typing.Annotated:
        kind = typing.get_args(kind)[0]
    if kind is None:
        return None
    info = mi.type_info(kind)
    return info if isinstance(info, mi.StructType) else None


@dataclass
class Site:
    app: Litestar
    client: httpx.AsyncClient
    owner: User
    ids: dict[str, Any]  # the owner's workspace's records, by path parameter
    other_ids: dict[str, Any]  # another workspace's
    api_auth: dict[str, str]
    session: str = ""
    csrf: str = ""
    pre_session: str = ""
    pre_csrf: str = ""
    other_csrf: str = ""  # a good token of another session (the other workspace's owner)
    forms: dict[str, Form] = field(default_factory=dict)  # by WriteRoute str
    proof_csrf: dict[str, str] = field(default_factory=dict)  # by link token
    over_uvicorn: httpx.AsyncClient = field(default_factory=httpx.AsyncClient)  # to `web`

    def cookies(self, *, session: bool = True, pre: bool = True) -> str:
        jar = []
        if session and self.session:
            jar.append(f"pressline_session={self.session}")
        if pre and self.pre_session:
            jar.append(f"pressline_presession={self.pre_session}")
        return "; ".join(jar)

    async def get(self, path: str, cookie: str | None = None) -> httpx.Response:
        self.client.cookies.clear()
        headers = {"cookie": self.cookies() if cookie is None else cookie}
        return await self.client.get(path, headers=headers)

    async def keep_session(self) -> None:
        """A live session and its CSRF token (a fuzzed logout or login may have ended it)."""
        if self.session and await admin_sessions.lookup(self.session) is not None:
            return
        self.session = await admin_sessions.create(self.owner.id, self.owner.workspace)
        self.csrf = csrf_of(await self.get("/admin/"))

    async def proof_token_for(self, token: str) -> str:
        """The proof page's own form token for this link (empty when there is no page)."""
        if token not in self.proof_csrf:
            page = await self.get(f"/proofs/{quote(token, safe='')}", cookie="")
            found = _PROOF_CSRF.search(page.text)
            self.proof_csrf[token] = found.group(1) if found else ""
        return self.proof_csrf[token]

    def path_ids(self, which: str) -> dict[str, Any]:
        ids = self.ids if which == "own" else self.other_ids
        return {**ids, **{alias: ids[name] for alias, name in ALIASES.items()}}

    def real_values(self) -> dict[str, list[Any]]:
        """Values worth trying in any field: the records' own, by field name."""
        own, other = self.ids, self.other_ids
        return {
            "customer_id": [own["customer_id"], other["customer_id"]],
            "customer": [str(own["customer_id"]), str(other["customer_id"])],
            "sku": [own["code"], other["code"]],
            "email": [self.owner.email, "new.person@example.com", "ann@example.com"],
            "password": [PASSWORD],
            "description": ["Front print"],
            "note": ["Logo 10 cm wide, centred"],
            "quantity": [10, 1],
            "unit_price_cents": [450, 0],
        }


async def proof_links() -> list[str]:
    """The customer's proof links in every queued proof email."""
    rows = await CustomerMessage.select(CustomerMessage.body).where(
        CustomerMessage.kind == "artwork.proof"
    )
    return sorted({found.group(1) for row in rows if (found := LINK.search(row["body"]))})


_hash = passwords.hash_password


@functools.cache
def _password_hash() -> str:
    return _hash(PASSWORD)


async def _seed(ws: Workspace) -> dict[str, Any]:
    ids = await records(ws)
    # A primary contact, so every uploaded proof is emailed with its link; the proof is the
    # order's current one and waits for its answer, so its page shows the forms.
    await Contact.update({Contact.is_primary: True}).where(Contact.id == ids["contact_id"])
    await ArtworkProof.update(
        {
            ArtworkProof.answer: None, ArtworkProof.answered_at: None,
            ArtworkProof.answered_name: None, ArtworkProof.answered_from: None,
            ArtworkProof.customer_comment: None,
        }
    ).where(ArtworkProof.order == ids["order_id"])  # fmt: skip
    await Artwork.update({Artwork.version: 1, Artwork.status: "awaiting_approval"}).where(
        Artwork.order == ids["order_id"]
    )
    return ids


async def open_site(
    app: Litestar, client: httpx.AsyncClient, routes: list[WriteRoute], route: WriteRoute
) -> Site:
    """The shop, and the forms of `route` (the others' too, the first time)."""
    ws = await factories.workspace(name="Fuzzed Prints")
    other_ws = await factories.workspace(name="Other Prints")
    other_owner = await factories.user(other_ws, role="owner")
    with pytest.MonkeyPatch.context() as patch:
        # Seeding only: the members' one password is hashed once, not for every route.
        patch.setattr(passwords, "hash_password", lambda _: _password_hash())
        owner = await member(ws, role="owner")
        own, other = await _seed(ws), await _seed(other_ws)
    site = Site(app, client, owner, own, other, await factories.headers(owner))
    await site.keep_session()
    login = await site.get("/admin/login", cookie="")
    site.pre_session = login.cookies.get("pressline_presession") or ""
    site.pre_csrf = csrf_of(login)
    theirs = await admin_sessions.create(other_owner.id, other_ws.id)
    site.other_csrf = csrf_of(await site.get("/admin/", cookie=f"pressline_session={theirs}"))
    await read_forms(site, routes, route)
    return site


# Which pages hold the forms posting to each route (route → page templates): learnt by the
# first shop that reads every page, so later ones read only the pages their route needs.
_PAGES: dict[str, set[str]] = {}


async def read_forms(site: Site, routes: list[WriteRoute], route: WriteRoute) -> None:
    """The pages holding `route`'s forms (every admin page and the proof page, the first
    time), read as the owner; each POST form's fields kept under the route its action names."""
    templates = [t for _, t in admin_routes(site.app, with_params=False)]
    templates += [t for _, t in admin_routes(site.app, with_params=True)]
    templates += ["/proofs/{token}"]
    if _PAGES:
        templates = sorted(_PAGES.get(str(route), set()))
    for template in templates:
        page = await site.get(fill(template, site.path_ids("own")))
        for action, form in forms_of(page.text).items():
            target = next((r for r in routes if r.pattern.match(action.split("?")[0])), None)
            if target is None:
                continue
            _PAGES.setdefault(str(target), set()).add(template)
            known = site.forms.setdefault(str(target), Form())
            known.files.update(form.files)
            for name, values in form.fields.items():
                for value in values or [""]:
                    known.offer(name, value)
    _PAGES.setdefault(str(route), set())
    known = site.forms.setdefault(str(route), Form())
    for name in handler_reads(route):
        known.offer(name, None)


# --- the database, before and after ------------------------------------------------------------


_COLUMNS: dict[str, list[tuple[str, str]]] = {}  # by engine kind: (table, column)


async def _columns(reader: Reader) -> list[tuple[str, str]]:
    kind = "postgres" if db.is_postgres() else "sqlite"
    if kind not in _COLUMNS:
        if kind == "postgres":
            sql = Sql(
                "SELECT table_name, column_name FROM information_schema.columns"
                " WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"
            )
        else:
            sql = Sql(
                "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p"
                " WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.cid"
            )
        _COLUMNS[kind] = [(str(t), str(c)) for t, c in await reader.rows(sql)]
    return _COLUMNS[kind]


async def snapshot() -> dict[str, list[str]]:
    """Every row of every table (but the bookkeeping above), in a comparable form, read on
    one connection."""
    found: dict[str, list[str]] = {}
    async with connection() as reader:
        kept: dict[str, list[str]] = {}
        for table, column in await _columns(reader):
            if table not in EXCLUDED_TABLES and (table, column) not in EXCLUDED_COLUMNS:
                kept.setdefault(table, []).append(f'"{column}"')
        for table, columns in kept.items():
            sql = Sql(f'SELECT {", ".join(columns)} FROM "{table}"')  # names from the catalog
            found[table] = sorted(repr(tuple(row)) for row in await reader.rows(sql))
    return found


def changes(before: dict[str, list[str]], after: dict[str, list[str]]) -> dict[str, Any]:
    """What differs, table by table: rows gone and rows new (a changed row is both)."""
    diff = {}
    for table in sorted(set(before) | set(after)):
        old, new = set(before.get(table, [])), set(after.get(table, []))
        if old != new:
            diff[table] = {"gone": sorted(old - new)[:3], "new": sorted(new - old)[:3]}
    return diff


def header_problems(response: httpx.Response) -> list[str]:
    """Response headers uvicorn would refuse to send (it drops the connection instead)."""
    return [
        f"{name!r}: {value!r}"
        for name, value in response.headers.raw
        if BAD_HEADER_NAME.search(name) or BAD_HEADER_VALUE.search(value)
    ]
