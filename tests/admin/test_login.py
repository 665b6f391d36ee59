"""Logging in and out, sessions, throttling: DECISIONS 10 "Login" and "Sessions"."""

from __future__ import annotations

import httpx

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
