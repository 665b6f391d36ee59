"""Hostile values in the channels around a form's fields: a CSRF token that is not ASCII (in the
form, the header or the cookie it is bound to) is refused like any wrong token, control
characters in an admin query string are the admin's 422 page, and a path naming an order,
customer, invoice, SKU or static file with NUL, or with more digits than Python converts (or,
for a file, than a file name holds), is the 404 page; never a 500, and nothing written. On both
databases."""

from __future__ import annotations

import httpx
import pytest
from litestar import Litestar

from api.path_ids import CONTROL_IN_QUERY
from tests import factories
from tests.admin.support import log_in, member
from tests.security.admin_walk import admin_routes, records
from tests.security.conftest import Browser
from tests.security.fuzz_site import changes, snapshot

pytestmark = pytest.mark.usefixtures("backend")

# Tokens no form was given: non-ASCII (hmac.compare_digest refuses str holding any), and, for
# comparison, a wrong one of the right shape.
NOT_ASCII = ["é" * 64, "²", "😀", "ü", "0" * 63 + "é"]
WRONG = "0" * 64
NOT_FOUND_PAGE = "There is no such page in this workspace."


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


def _order_paths(number: str) -> list[str]:
    return [f"/admin/orders/{number}{tail}"
            for tail in ("", "/edit", "/cancel", "/artwork", "/work-order")]  # fmt: skip


async def test_paths_with_nul_or_thousands_of_digits_are_the_404_page(
    app: Litestar, browsers: Browser
) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    ids = await records(ws)
    client = browsers()
    assert (await log_in(client, owner.email)).status_code == 303
    digits = "1" * 4301  # past Python's int conversion limit (4,300 digits)
    number = ids["ref"]
    paths = [
        *_order_paths("ORD-2026-%00"), *_order_paths(f"{number}%00"), *_order_paths(digits),
        *_order_paths("%00"), f"/admin/orders/{digits}/proofs/1/file",
        f"/admin/customers/{digits}", f"/admin/customers/{digits}/edit", "/admin/customers/%00",
        f"/admin/invoices/{digits}", "/admin/invoices/INV-2026-%00",
        f"/admin/invoices/{ids['number']}%00", f"/admin/inventory/{digits}",
        "/admin/inventory/%00", f"/admin/inventory/id/{digits}", f"/admin/staff/{digits}/password",
        f"/admin/webhooks/{digits}", f"/admin/deliveries/{digits}", "/admin/static/%00",
        "/admin/static/admin%00.css", f"/admin/static/{digits}", "/admin/static/" + "é" * 200,
    ]  # fmt: skip
    wrong = {}
    for path in paths:
        answer = await client.get(path)
        if answer.status_code != 404 or NOT_FOUND_PAGE not in answer.text:
            wrong[path[:80]] = answer.status_code
    assert not wrong, wrong
    assert (await client.get(f"/admin/orders/{number}")).status_code == 200


async def test_a_documentation_file_no_file_can_have_is_a_404(client: httpx.AsyncClient) -> None:
    """The API documentation's files (Swagger UI) are looked up on disk, where NUL and names
    longer than 255 bytes are errors."""
    for path in ("/schema/assets/%00", "/schema/assets/swagger-ui%00.css",
                 "/schema/assets/" + "a" * 256, "/schema/assets/x/" + "1" * 4301):  # fmt: skip
        answer = await client.get(path)
        assert answer.status_code == 404, (path, answer.status_code)
    assert (await client.get("/schema/assets/swagger-ui.css")).status_code == 200


# Every query parameter an admin page reads, and one no page reads.
QUERY_NAMES = ["q", "stage", "customer", "due", "page", "status", "event", "failed",
               "subscription", "next", "rev", "order", "x"]  # fmt: skip
CONTROLS = ["%00", "a%00b", "%01", "%1F", "%0A", "%0D%0A"]


async def test_control_characters_in_any_admin_query_are_the_422_page(
    app: Litestar, browsers: Browser
) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    ids = await records(ws)
    client = browsers()
    assert (await log_in(client, owner.email)).status_code == 303
    pages = [t for m, t in admin_routes(app, with_params=False) if m == "GET"]
    pages += [f"/admin/orders/{ids['ref']}", f"/admin/customers/{ids['customer_id']}"]
    before = await snapshot()
    wrong = {}
    for path in pages:
        for n, name in enumerate(QUERY_NAMES):
            value = CONTROLS[(n + len(path)) % len(CONTROLS)]  # each value on every page
            answer = await client.get(f"{path}?{name}={value}")
            if answer.status_code != 422 or CONTROL_IN_QUERY not in answer.text:
                wrong[f"{path}?{name}={value}"] = answer.status_code
        answer = await client.get(f"{path}?a%00=1")  # in a name too
        if answer.status_code != 422:
            wrong[f"{path}?a%00=1"] = answer.status_code
    assert not wrong, wrong
    assert not changes(before, await snapshot())
    # A tab is text (a search may hold one), and so is anything printable.
    assert (await client.get("/admin/orders?q=a%09b")).status_code == 200
    assert (await client.get("/admin/customers?q=%C3%A9%F0%9F%98%80")).status_code == 200
