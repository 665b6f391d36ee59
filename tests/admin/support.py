"""Admin test helpers: users with passwords, logging in through the real form, CSRF tokens
read from the page like a browser would."""

from __future__ import annotations

import re
from typing import Any

import httpx

from models import passwords
from models.tables import User, Workspace
from tests import factories

PASSWORD = "correct horse battery staple"
_CSRF = re.compile(r'name="_csrf_token" value="([^"]+)"')


async def member(ws: Workspace, *, role: str = "owner", **fields: Any) -> User:
    """A user of `ws` who can log in with PASSWORD."""
    return await factories.user(
        ws, role=role, password_hash=passwords.hash_password(PASSWORD), **fields
    )


def csrf_of(page: httpx.Response) -> str:
    found = _CSRF.search(page.text)
    assert found, f"no CSRF field on {page.request.url}"
    return found.group(1)


async def log_in(client: httpx.AsyncClient, email: str, password: str = PASSWORD) -> httpx.Response:
    form = await client.get("/admin/login")
    return await client.post(
        "/admin/login",
        data={"email": email, "password": password, "_csrf_token": csrf_of(form)},
    )


async def post_form(
    client: httpx.AsyncClient, page: str, action: str, data: dict[str, Any] | None = None
) -> httpx.Response:
    """Open `page`, then submit `data` to `action` with that page's CSRF token."""
    opened = await client.get(page)
    assert opened.status_code == 200, (page, opened.status_code)
    return await client.post(action, data={**(data or {}), "_csrf_token": csrf_of(opened)})
