"""Logging in and out, sessions, throttling: DECISIONS 10 "Login" and "Sessions"."""

from __future__ import annotations

import httpx
import pytest

from tests import factories
from tests.admin.support import log_in, member


async def test_owner_logs_in_and_sees_the_overview(browser: httpx.AsyncClient) -> None:
    ws = await factories.workspace(name="Inkwell Prints")
    owner = await member(ws)
    answer = await log_in(browser, owner.email)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/admin/"
    cookie = answer.headers["set-cookie"]
    assert "pressline_session=" in cookie
    assert "HttpOnly" in cookie and "Path=/admin" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie  # plain http here
    page = await browser.get("/admin/")
    assert page.status_code == 200
    assert "Inkwell Prints" in page.text
    assert page.headers["content-security-policy"] == "default-src 'self'; frame-ancestors 'none'"
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "same-origin"


async def test_the_session_cookie_is_secure_when_public_url_is_https(
    app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxy terminating TLS may forward plain http: PUBLIC_URL says how clients connect."""
    monkeypatch.setenv("PUBLIC_URL", "https://shop.example.com")
    from api.app import create_app

    ws = await factories.workspace()
    owner = await member(ws)
    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        answer = await log_in(client, owner.email)
    assert answer.status_code == 303
    assert "Secure" in answer.headers["set-cookie"]
