"""Hostile values in the channels around a form's fields: a CSRF token that is not ASCII (in the
form, the header or the cookie it is bound to) is refused like any wrong token; never a 500,
and nothing written. On both databases."""

from __future__ import annotations

import httpx
import pytest

from tests import factories
from tests.admin.support import log_in, member
from tests.security.admin_walk import records
from tests.security.conftest import Browser
from tests.security.fuzz_site import changes, snapshot

pytestmark = pytest.mark.usefixtures("backend")

# Tokens no form was given: non-ASCII (hmac.compare_digest refuses str holding any), and, for
# comparison, a wrong one of the right shape.
NOT_ASCII = ["é" * 64, "²", "😀", "ü", "0" * 63 + "é"]
WRONG = "0" * 64


def latin1(text: str) -> bytes:
    """A header's bytes as a server reads them back into `text` (HTTP headers are latin-1);
    characters past it travel as their UTF-8 bytes."""
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return text.encode()


async def _refusals(
    browsers: Browser, client: httpx.AsyncClient, action: str, data: dict[str, str],
    token_field: str, page: str, cookie: str | None = None,
) -> dict[str, dict[str, int]]:  # fmt: skip
    """The status of `action` posted with each token in the form, in the header (the admin's)
    and as the cookie the form's token is bound to (`cookie`, from a browser without cookies),
    by channel."""
    found: dict[str, dict[str, int]] = {"form": {}, "header": {}, "cookie": {}}
    for token in [WRONG, *NOT_ASCII]:
        assert (await client.get(page)).status_code == 200
        answer = await client.post(action, data={**data, token_field: token})
        found["form"][token] = answer.status_code
        if token_field == "_csrf_token":
            answer = await client.post(action, data=data, headers={"x-csrftoken": latin1(token)})
            found["header"][token] = answer.status_code
        if cookie is not None:
            jar = {"cookie": f"{cookie}=".encode() + latin1(token)}
            posted = {**data, token_field: token}
            found["cookie"][token] = (
                await browsers().post(action, data=posted, headers=jar)
            ).status_code
    return found


def _like_a_wrong_token(found: dict[str, dict[str, int]]) -> None:
    for channel, statuses in found.items():
        if not statuses:
            continue
        wrong = statuses.pop(WRONG)
        assert 400 <= wrong < 500, (channel, wrong)
        assert statuses == dict.fromkeys(statuses, wrong), (channel, wrong, statuses)


async def test_a_token_that_is_not_ascii_is_refused_like_any_wrong_one(browsers: Browser) -> None:
    ws = await factories.workspace(name="Inkwell Prints")
    owner = await member(ws)
    ids = await records(ws)
    login = browsers()
    assert (await login.get("/admin/login")).status_code == 200  # the CSRF key is made
    before = await snapshot()

    data = {"email": owner.email, "password": "correct horse battery staple"}
    found = await _refusals(browsers, login, "/admin/login", data, "_csrf_token",
                            "/admin/login", cookie="pressline_presession")  # fmt: skip
    assert found["form"][WRONG] == 403
    _like_a_wrong_token(found)

    settings = browsers()
    assert (await log_in(settings, owner.email)).status_code == 303
    after_login = await snapshot()
    data = {"email": "shop@example.com"}
    found = await _refusals(browsers, settings, "/admin/settings", data, "_csrf_token",
                            "/admin/settings", cookie="pressline_session")  # fmt: skip
    assert found["form"][WRONG] == 403 and found["cookie"][WRONG] == 401
    _like_a_wrong_token(found)

    customer = browsers()
    link = f"/proofs/{ids['proof_token']}"
    assert (await customer.get(link)).status_code == 200
    found = await _refusals(browsers, customer, f"{link}/approve", {"name": "Dana"}, "_csrf", link)
    assert found["form"][WRONG] == 403
    _like_a_wrong_token(found)

    # Only the login wrote (its session); the refused forms wrote nothing.
    assert set(changes(before, after_login)) <= {"admin_sessions"}
    assert not changes(after_login, await snapshot())
