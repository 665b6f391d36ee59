"""Session fixation: whatever session id the browser brings, a login
always issues a new one, and a planted id never becomes a session."""

from __future__ import annotations

from models import admin_sessions
from models.tables import AdminSession
from tests import factories
from tests.admin.support import log_in, member
from tests.security.conftest import Browser


async def test_a_planted_session_id_is_replaced_at_login(browsers: Browser) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    browser = browsers()
    planted = "attacker-chosen-session-id-0123456789abcdef"
    browser.cookies.set("pressline_session", planted, domain="testserver.local", path="/admin")
    answer = await log_in(browser, owner.email)
    assert answer.status_code == 303
    issued = browser.cookies.get("pressline_session")
    assert issued and issued != planted
    digests = await AdminSession.select(AdminSession.digest).output(as_list=True)
    assert digests == [admin_sessions.digest(issued)]
    attacker = browsers()
    attacker.cookies.set("pressline_session", planted, path="/admin")
    assert (await attacker.get("/admin/")).status_code == 303  # to the login page


async def test_a_stolen_session_id_from_before_a_new_login_is_dead(browsers: Browser) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    browser = browsers()
    await log_in(browser, owner.email)
    old = browser.cookies.get("pressline_session")
    await log_in(browser, owner.email)
    thief = browsers()
    thief.cookies.set("pressline_session", old or "", path="/admin")
    assert (await thief.get("/admin/")).status_code == 303
