"""CSRF: a form's token is good for its own session only; before login, for
the login form's own pre-session cookie only; login and logout replace it."""

from __future__ import annotations

from models.tables import AdminSession, ApiToken, User
from tests import factories
from tests.admin.support import PASSWORD, csrf_of, log_in, member
from tests.security.conftest import Browser


async def test_a_token_from_another_session_is_refused(browsers: Browser) -> None:
    ws = await factories.workspace()
    victim_user, attacker_user = await member(ws), await member(ws, role="staff")
    victim, attacker = browsers(), browsers()
    assert (await log_in(victim, victim_user.email)).status_code == 303
    assert (await log_in(attacker, attacker_user.email)).status_code == 303
    # The attacker's own, valid token, sent with the victim's session (a forged form).
    stolen = csrf_of(await attacker.get("/admin/tokens"))
    forged = await victim.post(
        "/admin/staff/",
        data={"name": "Mallory", "email": "m@example.com", "role": "owner",
              "password": "long enough password", "_csrf_token": stolen},
    )  # fmt: skip
    assert forged.status_code == 403 and "Reload the page" in forged.text
    also = await victim.post(
        "/admin/tokens/", data={"name": "x", "days": "5"}, headers={"X-CSRFToken": stolen}
    )
    assert also.status_code == 403
    assert await User.count().where(User.email == "m@example.com") == 0
    assert await ApiToken.count() == 0
    # The victim's own token still works.
    own = csrf_of(await victim.get("/admin/tokens"))
    made = await victim.post("/admin/tokens/", data={"name": "x", "days": "5", "_csrf_token": own})
    assert made.status_code == 303


async def test_a_token_from_before_login_or_before_logout_is_refused(browsers: Browser) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    browser = browsers()
    before = csrf_of(await browser.get("/admin/login"))
    assert (await log_in(browser, owner.email)).status_code == 303
    after = csrf_of(await browser.get("/admin/tokens"))
    assert after != before
    refused = await browser.post(
        "/admin/tokens/", data={"name": "x", "days": "5", "_csrf_token": before}
    )
    assert refused.status_code == 403 and await ApiToken.count() == 0
    # Log out, log in again: the old session's token is dead.
    assert (await browser.post("/admin/logout", data={"_csrf_token": after})).status_code == 303
    assert (await log_in(browser, owner.email)).status_code == 303
    stale = await browser.post(
        "/admin/tokens/", data={"name": "x", "days": "5", "_csrf_token": after}
    )
    assert stale.status_code == 403 and await ApiToken.count() == 0


async def test_login_csrf_needs_the_login_forms_own_cookie(browsers: Browser) -> None:
    """An attacker's valid login-form token cannot log a victim into the attacker's account."""
    ws = await factories.workspace()
    attacker_user = await member(ws)
    attacker, victim = browsers(), browsers()
    token = csrf_of(await attacker.get("/admin/login"))
    await victim.get("/admin/login")  # the victim has a pre-session cookie of their own
    data = {"email": attacker_user.email, "password": PASSWORD, "_csrf_token": token}
    assert (await victim.post("/admin/login", data=data)).status_code == 403
    fresh = browsers()  # no cookie at all
    assert (await fresh.post("/admin/login", data=data)).status_code == 403
    assert await AdminSession.count() == 0
    assert (await attacker.post("/admin/login", data=data)).status_code == 303


async def test_the_pre_session_cookie_is_short_and_host_bound(browsers: Browser) -> None:
    plain = await browsers().get("/admin/login")
    cookie = plain.headers["set-cookie"]
    assert cookie.startswith("pressline_presession=") and "Path=/admin" in cookie
    assert "HttpOnly" in cookie and "Max-Age=7200" in cookie and "SameSite=strict" in cookie
    secure = await browsers(base_url="https://testserver").get("/admin/login")
    cookie = secure.headers["set-cookie"]
    assert cookie.startswith("__Host-pressline_presession=") and "Secure" in cookie
    assert "Path=/;" in cookie and "Domain" not in cookie


async def test_over_https_forms_work_with_the_host_cookies_only(browsers: Browser) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    browser = browsers(base_url="https://testserver")
    assert (await log_in(browser, owner.email)).status_code == 303
    token = csrf_of(await browser.get("/admin/tokens"))
    made = await browser.post(
        "/admin/tokens/", data={"name": "x", "days": "5", "_csrf_token": token}
    )
    assert made.status_code == 303 and await ApiToken.count() == 1
    # The same session id and token under the plain http name are not this session over HTTPS.
    session = browser.cookies.get("__Host-pressline_session")
    browser.cookies.clear()
    browser.cookies.set("pressline_session", session or "", domain="testserver.local")
    again = await browser.post(
        "/admin/tokens/", data={"name": "y", "days": "5", "_csrf_token": token}
    )
    assert again.status_code == 401 and await ApiToken.count() == 1
