"""Password guessing: concurrent guesses cannot get past the throttle, and one
client address cannot lock out one email after another."""

from __future__ import annotations

import asyncio
import datetime as dt

import httpx
import pytest

from models import login_throttle
from models.tables import AdminSession, FailedLogin
from tests import factories
from tests.admin.support import csrf_of, log_in, member
from tests.security.conftest import Browser
from tests.security.processes import web_process

GUESSES = 150


async def guess_at_once(client: httpx.AsyncClient, email: str) -> list[int]:
    """GUESSES wrong passwords for `email`, all sent at once: the status of each answer."""
    token = csrf_of(await client.get("/admin/login"))

    async def guess(n: int) -> int:
        answer = await client.post(
            "/admin/login",
            data={"email": email, "password": f"guess number {n}", "_csrf_token": token},
        )
        return answer.status_code

    return list(await asyncio.gather(*(guess(n) for n in range(GUESSES))))


async def age_attempts(by: dt.timedelta) -> None:
    """Move every counted attempt `by` into the past."""
    for row in await FailedLogin.select(FailedLogin.id, FailedLogin.at):
        await FailedLogin.update({FailedLogin.at: row["at"] - by}).where(
            FailedLogin.id == row["id"]
        )


async def test_150_concurrent_guesses_get_at_most_10_password_checks(browsers: Browser) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    attacker = browsers("203.0.113.50")
    statuses = await guess_at_once(attacker, owner.email)
    # Every password check is preceded by its counted row, and a failed check keeps it: the
    # rows are the checks that were made.
    checked = await FailedLogin.count().where(FailedLogin.email == owner.email.lower())
    assert checked <= login_throttle.MAX_PER_EMAIL
    assert statuses.count(400) == checked and statuses.count(429) == GUESSES - checked
    # The right password, from another address, is refused for the rest of the window.
    owner_browser = browsers("198.51.100.9")
    refused = await log_in(owner_browser, owner.email)
    assert refused.status_code == 429
    assert 840 <= int(refused.headers["retry-after"]) <= 900
    assert await AdminSession.count() == 0
    # Only when the window has passed does it open again.
    await age_attempts(dt.timedelta(minutes=14))
    assert (await log_in(owner_browser, owner.email)).status_code == 429
    await age_attempts(dt.timedelta(minutes=1))
    assert (await log_in(owner_browser, owner.email)).status_code == 303


async def test_31_failures_from_one_address_lock_it_but_no_other(browsers: Browser) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    attacker, colleague = browsers("203.0.113.7"), browsers("198.51.100.2")
    for n in range(login_throttle.MAX_PER_ADDRESS):
        assert (await log_in(attacker, f"victim{n}@example.com", "wrong!")).status_code == 400
    # The 31st, with any email (even the right password of a real one), is refused.
    for email in ("victim31@example.com", owner.email):
        refused = await log_in(attacker, email)
        assert refused.status_code == 429 and "Try again in 15 minutes" in refused.text
    assert await FailedLogin.count().where(FailedLogin.address == "203.0.113.7") == 30
    # The emails tried were not locked for everyone: one failure each.
    assert await login_throttle.attempts("victim0@example.com") == 1
    assert (await log_in(colleague, owner.email)).status_code == 303


@pytest.mark.slow
async def test_150_concurrent_guesses_at_a_real_web_process(backend: str, tmp_path) -> None:
    """The same through uvicorn and real sockets: 150 connections at once."""
    ws = await factories.workspace()
    owner = await member(ws)
    with web_process(backend, tmp_path / "web.log") as web:
        limits = httpx.Limits(max_connections=GUESSES, max_keepalive_connections=GUESSES)
        async with httpx.AsyncClient(base_url=web.base, timeout=60, limits=limits) as attacker:
            statuses = await guess_at_once(attacker, owner.email)
        checked = await FailedLogin.count().where(FailedLogin.email == owner.email.lower())
        assert 1 <= checked <= login_throttle.MAX_PER_EMAIL
        assert statuses.count(400) == checked and statuses.count(429) == GUESSES - checked
        async with httpx.AsyncClient(base_url=web.base, timeout=30) as owner_browser:
            refused = await log_in(owner_browser, owner.email)
        assert refused.status_code == 429 and "Try again in 15 minutes" in refused.text
    assert await AdminSession.count() == 0
