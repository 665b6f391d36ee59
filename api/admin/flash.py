"""One-time notices for POST-redirect-GET: a POST that succeeds stores what to tell the user,
answers 303, and the page it leads to reads the notice once; a reload shows nothing again and
repeats nothing.

Use in a controller:

    from api.admin import flash

    @post("/things", status_code=303)
    async def create_thing(self, request: Request) -> Redirect:
        ...  # the domain function
        return await flash.redirect(request, f"{PREFIX}/things/{id}", "The thing was created.")

    @get("/things/{id:int}")
    async def show_thing(self, request: Request, id: int) -> Template:
        shown = await flash.take(request)
        return page(request, "thing.html", notice=shown.notice, ...)

base.html shows `notice`. A value that may be shown only once (a new token, a signing secret)
goes in `secret=` (with anything the page shows beside it as keyword `details`); the page that
shows it passes `secret=bool(shown.secret)` to `page()` so it is sent with Cache-Control:
no-store:

    return await flash.redirect(request, f"{PREFIX}/tokens/created", "Token created.",
                                secret=clear, name=row.name)
    ...
    shown = await flash.take(request)
    if shown.secret is None: -> redirect to the list (the value is gone)

Why the database: the notice must survive the redirect to whichever web process answers the
GET, must belong to the browser's session only (a flash row references the session row, and is
deleted with it), and a secret must never sit in a cookie or a URL. The row is deleted as it is
read; one not read within MAX_AGE is ignored and deleted by the next `redirect` of any session.

Most page loads have nothing to show, so they must not pay for looking: `redirect` also sets
a small marker cookie (no content, gone after MAX_AGE), and `take` looks in the database only
while the browser sends it, then with one indexed read; the row is deleted (a write) only when
there is one.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import msgspec
from litestar import Request
from litestar.response import Redirect

from api.admin.pages import see_other
from api.admin.security import PREFIX, is_https
from models import clock, statements
from models.tables import AdminFlash

MAX_AGE = dt.timedelta(minutes=10)
MAX_NOTICE = 2_000
# Only a hint that a notice may be waiting (a forged one costs one read): no value, no secret.
MARKER_COOKIE = "pressline_notice"
WAITING = statements.Sql("SELECT 1 FROM admin_flashes WHERE session = $1 LIMIT 1")


class Flash(msgspec.Struct, frozen=True):
    """What the last POST left for this page: empty when nothing (or already read)."""

    notice: str = ""
    secret: str | None = None
    details: dict[str, Any] = msgspec.field(default_factory=dict)


def _session_id(request: Request[Any, Any, Any]) -> int:
    """The admin session's row id (set by the session middleware as `request.auth`)."""
    return int(request.auth)


async def _push(
    request: Request[Any, Any, Any], notice: str, *, secret: str | None, details: dict[str, Any]
) -> None:
    """Keep `notice` (and a secret to show once) for this session's next page."""
    now = clock.now()
    session_id = _session_id(request)
    await AdminFlash.delete().where(
        (AdminFlash.session == session_id) | (AdminFlash.created_at < now - MAX_AGE)
    )
    await AdminFlash(
        session=session_id,
        notice=notice[:MAX_NOTICE],
        secret=secret,
        details=msgspec.json.encode(details).decode(),
        created_at=now,
    ).save()


async def redirect(
    request: Request[Any, Any, Any],
    path: str,
    notice: str,
    *,
    secret: str | None = None,
    **details: Any,
) -> Redirect:
    """The whole POST-redirect-GET answer of a successful POST: `notice` (and a secret to show
    once, with `details`) kept for this session's next page, and the 303 to `path`."""
    await _push(request, notice, secret=secret, details=details)
    response = see_other(path)
    response.set_cookie(
        MARKER_COOKIE, "1", max_age=int(MAX_AGE.total_seconds()), path=PREFIX,
        secure=is_https(request), httponly=True, samesite="lax",
    )  # fmt: skip
    return response


async def take(request: Request[Any, Any, Any]) -> Flash:
    """This session's notice, deleted as it is read (a reload shows nothing). Without the
    marker cookie, or with no row waiting, nothing is written and nothing more is read."""
    if MARKER_COOKIE not in request.cookies:
        return Flash()
    async with statements.connection() as reader:
        if await reader.row(WAITING, _session_id(request)) is None:
            return Flash()
    rows = await (
        AdminFlash.delete()
        .where(AdminFlash.session == _session_id(request))
        .returning(AdminFlash.notice, AdminFlash.secret, AdminFlash.details, AdminFlash.created_at)
    )
    if not rows:
        return Flash()
    row = max(rows, key=lambda r: statements.when(r["created_at"]))
    if statements.when(row["created_at"]) < clock.now() - MAX_AGE:
        return Flash()
    return Flash(
        notice=row["notice"],
        secret=row["secret"],
        details=msgspec.json.decode(row["details"] or "{}"),
    )
