"""Logging in and out, sessions, throttling."""

from __future__ import annotations

import asyncio
import datetime as dt

import httpx
import pytest
from argon2 import PasswordHasher, extract_parameters, profiles

from models import login_throttle, passwords
from models.admin_login import WRONG
from models.tables import AdminSession, FailedLogin, User
from tests import factories
from tests.admin.support import PASSWORD, log_in, member
from tests.hash_spy import watch

WRONG_HTML = WRONG.replace("'", "&#39;")
OLD_PROFILE = PasswordHasher.from_parameters(profiles.RFC_9106_LOW_MEMORY)  # before 2026-11-26


def client_from(app, address: str, base_url: str = "http://testserver") -> httpx.AsyncClient:
    """A browser at `address` (the ASGI scope's client, as the server would see it)."""
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url=base_url)


async def age_attempts(by: dt.timedelta) -> None:
    """Move every counted attempt `by` into the past (the window passing)."""
    for row in await FailedLogin.select(FailedLogin.id, FailedLogin.at):
        await FailedLogin.update({FailedLogin.at: row["at"] - by}).where(
            FailedLogin.id == row["id"]
        )


async def test_owner_logs_in_and_sees_the_overview(browser: httpx.AsyncClient) -> None:
    ws = await factories.workspace(name="Inkwell Prints")
    owner = await member(ws)
    answer = await log_in(browser, owner.email)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/admin/"
    cookies = answer.headers.get_list("set-cookie")
    session = next(c for c in cookies if c.startswith("pressline_session="))
    assert "HttpOnly" in session and "Path=/admin" in session and "SameSite=lax" in session
    assert "Secure" not in session  # plain http here
    assert any(c.startswith("pressline_presession=") and "Max-Age=0" in c for c in cookies)
    page = await browser.get("/admin/")
    assert page.status_code == 200
    assert "Inkwell Prints" in page.text
    assert page.headers["content-security-policy"] == "default-src 'self'; frame-ancestors 'none'"
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "same-origin"


async def test_over_https_the_session_cookie_is_host_prefixed(app) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    async with client_from(app, "10.0.0.5", "https://testserver") as client:
        answer = await log_in(client, owner.email)
        assert answer.status_code == 303, answer.text
        session = next(
            c for c in answer.headers.get_list("set-cookie") if c.startswith("__Host-pressline_")
            and "session=" in c and "presession" not in c
        )  # fmt: skip
        assert "Secure" in session and "Path=/;" in session and "Domain" not in session
        assert (await client.get("/admin/")).status_code == 200
        # A plain-named cookie (as a sibling subdomain could plant) is not read over HTTPS.
        value = client.cookies.get("__Host-pressline_session")
        client.cookies.clear()
        client.cookies.set("pressline_session", value)
        assert (await client.get("/admin/")).status_code == 303


async def test_the_session_cookie_is_secure_when_public_url_is_https(
    app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxy terminating TLS may forward plain http: PUBLIC_URL says how clients connect."""
    monkeypatch.setenv("PUBLIC_URL", "https://shop.example.com")
    from api.app import create_app

    ws = await factories.workspace()
    owner = await member(ws)
    transport = httpx.ASGITransport(app=create_app())
    # The browser talks https to the proxy, so it sends the Secure cookies back.
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        answer = await log_in(client, owner.email)
    assert answer.status_code == 303
    assert "__Host-pressline_session=" in answer.headers["set-cookie"]
    assert "Secure" in answer.headers["set-cookie"]


async def test_a_deactivated_user_gets_the_wrong_password_answer(
    browser: httpx.AsyncClient,
) -> None:
    ws = await factories.workspace()
    gone = await member(ws, is_active=False)
    right = await log_in(browser, gone.email)
    wrong = await log_in(browser, gone.email, "not the password at all")
    assert right.status_code == wrong.status_code == 400
    assert WRONG_HTML in right.text and "deactivated" not in right.text
    assert right.text.replace(gone.email, "") == wrong.text.replace(gone.email, "")
    assert await AdminSession.count() == 0


async def test_ten_failures_throttle_the_email_for_the_rest_of_the_window(browser) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    for _ in range(login_throttle.MAX_PER_EMAIL):
        assert (await log_in(browser, owner.email, "wrong password!")).status_code == 400
    refused = await log_in(browser, owner.email)  # even the right password now
    assert refused.status_code == 429
    assert "Try again in 15 minutes" in refused.text and "Logins are refused until" in refused.text
    assert 1 <= int(refused.headers["retry-after"]) <= 900
    assert await AdminSession.count() == 0
    assert await login_throttle.attempts(owner.email) == 10  # refused tries are not counted
    other = await member(ws)
    assert (await log_in(browser, other.email)).status_code == 303  # other emails unaffected
    await age_attempts(login_throttle.WINDOW)
    browser.cookies.clear()
    assert (await log_in(browser, owner.email)).status_code == 303  # the window passed


async def test_a_successful_login_gives_its_attempt_back(browser: httpx.AsyncClient) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    for _ in range(login_throttle.MAX_PER_EMAIL + 5):
        browser.cookies.clear()
        assert (await log_in(browser, owner.email)).status_code == 303
    assert await login_throttle.attempts(owner.email) == 0


async def test_thirty_failures_from_one_address_lock_that_address_only(app) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    async with (
        client_from(app, "203.0.113.7") as attacker,
        client_from(app, "198.51.100.2") as shop,
    ):
        for n in range(login_throttle.MAX_PER_ADDRESS):
            answer = await log_in(attacker, f"guess{n}@example.com", "wrong password!")
            assert answer.status_code == 400
        refused = await log_in(attacker, owner.email)
        assert refused.status_code == 429
        assert "your network address" in refused.text
        assert 1 <= int(refused.headers["retry-after"]) <= 900
        assert (await log_in(shop, owner.email)).status_code == 303


async def test_behind_the_router_the_address_counted_is_the_one_the_router_saw(app) -> None:
    """The platform's router appends the address it was called from to X-Forwarded-For; what
    the client wrote to its left changes nothing (FORWARDED_HOPS=1, the default)."""
    ws = await factories.workspace()
    owner = await member(ws)
    async with (
        client_from(app, "10.0.0.5") as attacker,  # every request arrives from the router
        client_from(app, "10.0.0.5") as shop,
    ):
        shop.headers["X-Forwarded-For"] = "198.51.100.2"
        for n in range(login_throttle.MAX_PER_ADDRESS):
            attacker.headers["X-Forwarded-For"] = f"192.0.2.{n}, 203.0.113.7"  # a new lie each time
            answer = await log_in(attacker, f"guess{n}@example.com", "wrong password!")
            assert answer.status_code == 400
        attacker.headers["X-Forwarded-For"] = "192.0.2.200, 203.0.113.7"
        refused = await log_in(attacker, owner.email)
        assert refused.status_code == 429
        assert "your network address" in refused.text
        assert (await log_in(shop, owner.email)).status_code == 303


async def test_login_always_starts_a_new_session(browser: httpx.AsyncClient) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    await log_in(browser, owner.email)
    first = browser.cookies.get("pressline_session")
    await log_in(browser, owner.email)  # logging in again while logged in
    second = browser.cookies.get("pressline_session")
    assert first and second and first != second
    assert await AdminSession.count() == 1  # the earlier session ended


# --- password hashing: the current parameters, upgrades, and a bound per process ----------


async def stored_hash(user_id: int) -> str:
    rows = await User.select(User.password_hash).where(User.id == user_id)
    return str(rows[0]["password_hash"])


async def test_an_old_hash_logs_in_and_is_hashed_again_with_the_current_parameters(
    browser: httpx.AsyncClient,
) -> None:
    ws = await factories.workspace()
    old = OLD_PROFILE.hash(PASSWORD)  # as every password was hashed before (64 MiB)
    owner = await factories.user(ws, role="owner", password_hash=old)
    assert (await log_in(browser, owner.email, "wrong password!")).status_code == 400
    assert await stored_hash(owner.id) == old  # only a login that succeeds upgrades
    assert (await log_in(browser, owner.email)).status_code == 303
    upgraded = await stored_hash(owner.id)
    assert (upgraded != old, upgraded.startswith("$argon2id$v=19$m=19456,t=2,p=1$")) == (True, True)
    assert extract_parameters(upgraded) == passwords.PARAMETERS
    assert passwords.verify(upgraded, PASSWORD)
    browser.cookies.clear()
    assert (await log_in(browser, owner.email)).status_code == 303  # with the new hash
    assert await stored_hash(owner.id) == upgraded


async def test_a_deactivated_users_old_hash_is_left_as_it_is(browser: httpx.AsyncClient) -> None:
    ws = await factories.workspace()
    old = OLD_PROFILE.hash(PASSWORD)
    gone = await factories.user(ws, password_hash=old, is_active=False)
    assert (await log_in(browser, gone.email)).status_code == 400
    assert await stored_hash(gone.id) == old


async def test_thirty_logins_at_once_hash_two_at_a_time(app, monkeypatch) -> None:
    """However many logins arrive at once (from as many addresses), a process runs at most
    SLOTS hashes; the others wait for a slot and are all answered."""
    ws = await factories.workspace()
    owners = [await member(ws) for _ in range(3)]
    spy = watch(monkeypatch)
    clients = [client_from(app, f"192.0.2.{n}") for n in range(30)]
    attempts = [
        (owners[n % 3].email, PASSWORD if n % 3 else "wrong password!") for n in range(20)
    ] + [(f"nobody{n}@example.com", PASSWORD) for n in range(10)]
    try:
        answers = await asyncio.gather(
            *[log_in(c, email, pw) for c, (email, pw) in zip(clients, attempts, strict=True)]
        )
    finally:
        for c in clients:
            await c.aclose()
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [303] * 13 + [400] * 17
    assert spy.calls == 30
    assert spy.peak == passwords.SLOTS == 2


async def test_logins_past_the_waiting_room_are_refused_as_busy_and_not_counted(
    app, monkeypatch
) -> None:
    """SLOTS logins hash and WAITING wait; the next ones get 503 with Retry-After at once, and
    their attempts are not counted against the email or the address."""
    monkeypatch.setattr(passwords, "WAITING", 1)
    ws = await factories.workspace()
    owner = await member(ws)
    clients = [client_from(app, f"198.51.100.{n}") for n in range(5)]
    try:
        with passwords.slots.held(passwords.SLOTS):  # every slot busy: the logins queue up
            tasks = [asyncio.ensure_future(log_in(c, owner.email)) for c in clients]
            deadline = asyncio.get_running_loop().time() + 30
            while sum(task.done() for task in tasks) < 2:
                assert asyncio.get_running_loop().time() < deadline, "no login was refused"
                await asyncio.sleep(0.01)
            refused = [task.result() for task in tasks if task.done()]
            assert await FailedLogin.count() == 3  # the three waiting
        answers = await asyncio.gather(*tasks)
    finally:
        for c in clients:
            await c.aclose()
    for answer in refused:
        assert answer.status_code == 503
        assert answer.headers["retry-after"] == "1"
        assert "Too many logins are being checked right now" in answer.text
    assert sorted(a.status_code for a in answers) == [303] * 3 + [503] * 2
    assert await FailedLogin.count() == 0  # the three succeeded and gave theirs back
