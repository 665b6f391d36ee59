"""The workspace's email settings: the admin's settings page and `pressline workspace set`."""

from __future__ import annotations

import httpx

from models.actors import OPERATOR
from models.orders.stage_moves import advance_order
from models.tables import CustomerMessage, Workspace
from tests import factories
from tests.admin.support import log_in, member, post_form


async def _settings(ws: Workspace) -> tuple[str, str]:
    row = (
        await Workspace.select(Workspace.email, Workspace.mail_stages)
        .where(Workspace.id == ws.id)
        .first()
    )
    return row["email"], row["mail_stages"]


async def test_an_owner_sets_the_reply_to_address_and_the_emailed_stages(
    browser: httpx.AsyncClient,
):
    ws = await factories.workspace()
    owner = await member(ws, role="owner")
    assert (await log_in(browser, owner.email)).status_code == 303
    page = await browser.get("/admin/settings/")
    assert page.status_code == 200
    assert 'value="in_production" checked' in page.text.replace("  ", " ")
    saved = await post_form(
        browser,
        "/admin/settings/",
        "/admin/settings/",
        {"email": "hello@shop.example", "mail_stages": ["print_queue", "dispatched"]},
    )
    assert saved.status_code == 303
    assert await _settings(ws) == ("hello@shop.example", "print_queue,dispatched")
    shown = await browser.get(saved.headers["location"])
    assert "The settings were saved." in shown.text
    assert "The settings were saved." not in (await browser.get("/admin/settings/")).text

    refused = await post_form(
        browser, "/admin/settings/", "/admin/settings/", {"email": "not an address"}
    )
    assert refused.status_code == 422
    assert "must be an email address" in refused.text
    assert await _settings(ws) == ("hello@shop.example", "print_queue,dispatched")

    # Every box unticked: no move emails the customer any more (proofs still do).
    await post_form(browser, "/admin/settings/", "/admin/settings/", {"email": ""})
    assert await _settings(ws) == ("", "")
    customer = await factories.customer(ws)
    await factories.contact(customer, is_primary=True)
    order = await factories.order(ws, customer)
    await advance_order(
        actor=OPERATOR, workspace_id=ws.id, order_id=order.id, to_stage="dispatched"
    )
    assert (await CustomerMessage.select(CustomerMessage.status).first())["status"] == "muted"


async def test_staff_read_the_settings_but_cannot_change_them(browser: httpx.AsyncClient):
    ws = await factories.workspace()
    clerk = await member(ws, role="staff")
    assert (await log_in(browser, clerk.email)).status_code == 303
    page = await browser.get("/admin/settings/")
    assert page.status_code == 200 and "Only an owner can change" in page.text
    refused = await post_form(
        browser, "/admin/settings/", "/admin/settings/", {"email": "x@shop.example"}
    )
    assert refused.status_code == 403
    assert await _settings(ws) == ("", "in_production,dispatched")


async def test_workspace_set_email_and_stages(pressline):
    ws = await factories.workspace()
    done = await pressline(
        f"workspace set --id {ws.id} --email hello@shop.example --mail-stages qc_pack,dispatched"
    )
    assert done.code == 0, done.err
    assert "email hello@shop.example" in done.out
    assert await _settings(ws) == ("hello@shop.example", "qc_pack,dispatched")
    as_json = await pressline(f"workspace set --id {ws.id} --mail-stages '' --json")
    assert as_json.data == {"email": "hello@shop.example", "mail_stages": []}
    bad = await pressline(f"workspace set --id {ws.id} --email nope --mail-stages shipped")
    assert bad.code != 0
    assert "email" in bad.err and "unknown stage 'shipped'" in bad.err
    assert await _settings(ws) == ("hello@shop.example", "")
    both = await pressline(f"workspace set --id {ws.id} --plan standard --email a@b.example")
    assert both.code == 0, both.err
    assert (await Workspace.select(Workspace.plan).where(Workspace.id == ws.id).first())[
        "plan"
    ] == "standard"
