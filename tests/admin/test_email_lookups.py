"""Every look-up of a user or a contact by email folds ASCII letters only (models/emails.py):
"KATE@…" is kate@…, but the Kelvin sign "K" is not "k", "ǆ" is not "ǅ" and "ß" is not "ss"
(PostgreSQL's LOWER() and Python's lower() fold them; each case below passed before)."""

from __future__ import annotations

import httpx
from litestar import Litestar

from models import login_throttle
from models.tables import AdminSession, User
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import log_in, member, post_form

KELVIN = "\u212a"  # "K", which lower() makes an ASCII "k"


def client_at(app: Litestar, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


async def test_login_finds_the_user_by_ascii_letters_in_any_case(browser) -> None:
    ws = await factories.workspace()
    kate = await member(ws, email="kate@example.com")
    assert (await log_in(browser, "KATE@Example.COM")).status_code == 303
    browser.cookies.clear()
    refused = await log_in(browser, f"{KELVIN}ate@example.com")  # the right password
    assert refused.status_code == 400
    assert "Wrong email or password." in refused.text
    assert await AdminSession.count() == 1
    assert (await AdminSession.select(AdminSession.user).first())["user"] == kate.id


async def test_login_does_not_fold_unicode_letters_of_a_stored_address(browser) -> None:
    """An address stored before emails were checked as ASCII is matched exactly but for A-Z."""
    ws = await factories.workspace()
    await member(ws, email="\u01c5o@example.com")  # ǅ
    for typed in ("\u01c6o@example.com", "\u01c4o@example.com"):  # ǆ, Ǆ
        browser.cookies.clear()
        assert (await log_in(browser, typed)).status_code == 400, typed
    browser.cookies.clear()
    assert (await log_in(browser, "\u01c5O@EXAMPLE.com")).status_code == 303
    await member(ws, email="strasse@example.com")
    browser.cookies.clear()
    assert (await log_in(browser, "stra\u00dfe@example.com")).status_code == 400


async def test_failed_logins_are_counted_for_the_address_as_typed_but_for_case(app) -> None:
    ws = await factories.workspace()
    kate = await member(ws, email="kate@example.com")
    async with client_at(app, "10.0.0.7") as guesser:
        for _ in range(login_throttle.MAX_PER_EMAIL):
            answer = await log_in(guesser, f"{KELVIN}ate@example.com", "wrong password!")
            assert answer.status_code == 400
        assert (await log_in(guesser, f"{KELVIN}ATE@example.com")).status_code == 429
    assert await login_throttle.attempts(kate.email) == 0
    assert await login_throttle.attempts(f"{KELVIN}ate@EXAMPLE.com") == 10
    async with client_at(app, "10.0.0.8") as owner:
        assert (await log_in(owner, "Kate@example.com")).status_code == 303


async def test_staff_cannot_be_added_twice_by_the_case_of_the_address(shop: Shop) -> None:
    sam = await member(shop.ws, email="sam@example.com")
    refused = await post_form(
        shop.client, "/admin/staff", "/admin/staff/",
        {"name": "Sam Again", "email": "SAM@Example.com", "role": "staff"},
    )  # fmt: skip
    assert refused.status_code == 422
    assert "SAM@Example.com already has a user in this workspace" in refused.text
    names = await User.select(User.email).where(User.workspace == shop.ws.id)
    assert sorted(row["email"] for row in names) == sorted([shop.owner.email, sam.email])


async def test_a_unicode_look_alike_address_is_refused_as_not_ascii(shop: Shop) -> None:
    await member(shop.ws, email="kate@example.com")
    refused = await post_form(
        shop.client, "/admin/staff", "/admin/staff/",
        {"name": "Kate", "email": f"{KELVIN}ate@example.com", "role": "staff"},
    )  # fmt: skip
    assert refused.status_code == 422
    assert "in plain ASCII" in refused.text
    assert await User.count().where(User.workspace == shop.ws.id) == 2


async def test_the_command_line_refuses_an_address_taken_but_for_case(backend, pressline) -> None:
    ws = await factories.workspace()
    await member(ws, email="sam@example.com")
    run = await pressline(
        f"--json user create --workspace {ws.id} --name S --email Sam@Example.COM"
    )
    assert run.code == 1
    assert run.data["errors"] == {"email": ["Sam@Example.COM already has a user in this workspace"]}
    other = await factories.workspace()  # an address may be a user in several workspaces
    run = await pressline(f"user create --workspace {other.id} --name S --email Sam@Example.COM")
    assert run.code == 0, run.err
