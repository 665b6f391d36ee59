"""The customer's proof page (/proofs/{token}): the emailed link is the only key,
so an altered token finds nothing, and the token never leaves in a Referer or a log line; the
page has the admin's security headers."""

from __future__ import annotations

import logging

import httpx
import pytest

from models.tables import ArtworkProof
from tests import factories
from tests.security.admin_walk import records
from tests.security.conftest import Browser


def altered(token: str) -> list[str]:
    flipped = ("A" if token[0] != "A" else "B") + token[1:]
    return [flipped, token[:-1], token + "x", token.upper(), token.swapcase()]


async def _answers() -> list[object]:
    return await ArtworkProof.select(ArtworkProof.answer, ArtworkProof.answered_at)


async def test_an_altered_token_finds_nothing(browsers: Browser) -> None:
    ws = await factories.workspace()
    token = (await records(ws))["proof_token"]
    customer = browsers()
    assert (await customer.get(f"/proofs/{token}")).status_code == 200
    before = await _answers()
    for other in altered(token):
        for path in (f"/proofs/{other}", f"/proofs/{other}/file"):
            answer = await customer.get(path)
            assert answer.status_code == 404, path
            assert token not in answer.text
        for action in ("approve", "changes"):
            posted = await customer.post(
                f"/proofs/{other}/{action}", data={"name": "Eve", "comment": "x"}
            )
            assert posted.status_code in {403, 404}, (other, action, posted.status_code)
    assert await _answers() == before


async def test_the_page_has_the_admins_headers_and_sends_no_referer(browsers: Browser) -> None:
    ws = await factories.workspace()
    token = (await records(ws))["proof_token"]
    page = await browsers().get(f"/proofs/{token}")
    assert page.status_code == 200
    assert page.headers["content-security-policy"] == "default-src 'self'; frame-ancestors 'none'"
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    # The token is in the address: no Referer may carry it to any other page, ours included.
    assert page.headers["referrer-policy"] == "no-referrer"
    assert page.headers["cache-control"] == "no-store"
    missing = await browsers().get("/proofs/not-a-token")
    assert missing.status_code == 404
    assert missing.headers["referrer-policy"] == "no-referrer"


async def test_the_token_reaches_no_log_line(
    browsers: Browser, caplog: pytest.LogCaptureFixture
) -> None:
    ws = await factories.workspace()
    token = (await records(ws))["proof_token"]
    customer: httpx.AsyncClient = browsers()
    with caplog.at_level(logging.DEBUG):
        await customer.get(f"/proofs/{token}")
        await customer.get(f"/proofs/{token}/file")
        await customer.post(f"/proofs/{token}/approve", data={"name": "Dana"})
    # The server's records only: the test's own HTTP client logs the URL it asked for.
    server = [r for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    assert any(r.name == "pressline.request" for r in server), "the requests were logged"
    for record in server:
        assert token not in record.getMessage()
        assert token not in repr(record.__dict__), record.name
