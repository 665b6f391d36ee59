"""Stored XSS: every text the shop floor stores is shown escaped on every admin page (Jinja2
autoescape). Each field holds a value that would open a tag and break out of an
attribute; every admin page is rendered (from the route table), and the customer's proof
page and invoice page, and searched."""

from __future__ import annotations

from litestar import Litestar

from tests import factories
from tests.admin.support import csrf_of, log_in, member
from tests.security.admin_walk import (
    FIELDS,
    admin_routes,
    escaped_tag,
    fill,
    marked,
    raw_tag,
    records,
)
from tests.security.conftest import Browser


async def test_no_admin_page_renders_a_stored_value_as_markup(
    app: Litestar, browsers: Browser
) -> None:
    ws = await factories.workspace(name="Inkwell")
    ids = await records(ws, marks=True)
    owner = await member(ws)
    browser = browsers()
    assert (await log_in(browser, owner.email)).status_code == 303
    pages: dict[str, str] = {}
    for method, template in [
        *admin_routes(app, with_params=False),
        *admin_routes(app, with_params=True),
    ]:
        if method != "GET":
            continue
        path = fill(template, ids)
        answer = await browser.get(path)
        # 303: a page shown once after an action (a new token's value) sends a plain GET on.
        assert answer.status_code in {200, 303}, (path, answer.status_code)
        pages[path] = answer.text
    # The customer's proof page too (no login: the link is the key).
    proof_path = f"/proofs/{ids['proof_token']}"
    proof_page = await browsers().get(proof_path)
    assert proof_page.status_code == 200
    pages[proof_path] = proof_page.text
    # And the customer's invoice page.
    invoice_path = f"/i/{ids['invoice_token']}"
    invoice_page = await browsers().get(invoice_path)
    assert invoice_page.status_code == 200
    pages[invoice_path] = invoice_page.text
    for field, n in FIELDS.items():
        raw = [path for path, text in pages.items() if raw_tag(n) in text]
        assert raw == [], f"{field} rendered as markup on {raw}"
        shown = [path for path, text in pages.items() if escaped_tag(n) in text]
        assert shown, f"{field} is shown on no admin page"


async def test_a_refused_form_shows_what_was_typed_as_text(
    app: Litestar, browsers: Browser
) -> None:
    """Reflected: every admin form without a record in its path, sent with markup in every
    common field, answers with it escaped (a refused form comes back filled in)."""
    ws = await factories.workspace()
    owner = await member(ws)
    browser = browsers()
    assert (await log_in(browser, owner.email)).status_code == 303
    token = csrf_of(await browser.get("/admin/"))
    names = (
        "name", "email", "phone", "slug", "url", "days", "role", "reason", "quantity",
        "external_ref", "description", "note", "code", "password", "discount", "carrier",
    )  # fmt: skip
    data = {name: marked(40 + n) for n, name in enumerate(names)}
    posted = reflected = 0
    for method, template in admin_routes(app, with_params=False):
        if method != "POST" or template in {"/admin/login", "/admin/logout"}:
            continue
        answer = await browser.post(template, data={**data, "_csrf_token": token})
        posted += 1
        reflected += sum(escaped_tag(n) in answer.text for n in range(40, 40 + len(names)))
        for n in range(40, 40 + len(names)):
            assert raw_tag(n) not in answer.text, (template, names[n - 40])
    assert posted >= 5
    assert reflected >= 5  # the refused forms did come back with what was typed
