"""Email addresses are refused when typed (`local@domain`, ASCII, no display
name or brackets): contacts, staff and the workspace's reply-to, through the admin's forms and
the `pressline` command, with nothing written."""

from __future__ import annotations

import httpx
import pytest

from models.tables import Contact, User, Workspace
from tests import factories
from tests.admin.support import log_in, member, post_form

REFUSED = (
    "tøm@exämple.com",  # not ASCII: aiosmtplib cannot send it (UnicodeEncodeError)
    "tom@exämple.com",
    "<dana@acme.example>",  # brackets
    "Dana <dana@acme.example>",  # a display name
    '"dana"@acme.example',  # quoting
    "dana@acme",  # no dot in the domain
    "dana@@acme.example",
    "dana@acme.example, ruth@acme.example",  # a list
    "dana..reyes@acme.example",
    "dana@-acme.example",
    "dana@[192.0.2.1]",
    "x" * 65 + "@acme.example",  # a local part longer than 64
)
ACCEPTED = ("dana@acme.example", "o'neil+orders@x-y.co.uk", "A.B_C-9@MAIL.Example.COM")
MESSAGE = "must be an email address such as name@example.com, in plain ASCII"


@pytest.fixture
async def owner(browser: httpx.AsyncClient) -> Workspace:
    """A workspace whose owner is logged in on `browser`."""
    ws = await factories.workspace()
    user = await member(ws, role="owner", email="owner@shop.example")
    assert (await log_in(browser, user.email)).status_code == 303
    return ws


async def test_the_admin_refuses_bad_contact_addresses_and_writes_nothing(
    browser: httpx.AsyncClient, owner: Workspace
):
    customer = await factories.customer(owner)
    url = f"/admin/customers/{customer.id}"
    for address in REFUSED:
        answer = await post_form(
            browser, url, f"{url}/contacts", {"name": "Dana", "email": address}
        )
        assert answer.status_code == 422, address
        assert MESSAGE in answer.text, address
        assert await Contact.count() == 0, address
    for address in ACCEPTED:
        answer = await post_form(browser, url, f"{url}/contacts", {"name": "Ok", "email": address})
        assert answer.status_code == 303, (address, answer.text)
    assert sorted(r["email"] for r in await Contact.select(Contact.email)) == sorted(ACCEPTED)


async def test_editing_a_contact_to_a_bad_address_changes_nothing(
    browser: httpx.AsyncClient, owner: Workspace
):
    customer = await factories.customer(owner)
    contact = await factories.contact(customer, email="dana@acme.example", is_primary=True)
    url = f"/admin/customers/{customer.id}/contacts/{contact.id}"
    for address in ("tøm@exämple.com", "<dana@acme.example>"):
        answer = await post_form(browser, url, url, {"name": "Dana R", "email": address})
        assert answer.status_code == 422 and MESSAGE in answer.text, address
    row = await Contact.select(Contact.name, Contact.email).first()
    assert row == {"name": contact.name, "email": "dana@acme.example"}


async def test_the_admin_refuses_bad_staff_and_reply_to_addresses(
    browser: httpx.AsyncClient, owner: Workspace
):
    users = await User.count()
    for address in ("tøm@exämple.com", "Priya <priya@shop.example>"):
        form = {"name": "Priya", "email": address, "role": "staff", "password": "x" * 16}
        answer = await post_form(browser, "/admin/staff/", "/admin/staff/", form)
        assert answer.status_code == 422 and MESSAGE in answer.text, address
        assert await User.count() == users, address

        answer = await post_form(
            browser, "/admin/settings/", "/admin/settings/", {"email": address}
        )
        assert answer.status_code == 422 and MESSAGE in answer.text, address
        row = await Workspace.select(Workspace.email).where(Workspace.id == owner.id).first()
        assert row["email"] == "", address


async def test_the_command_line_refuses_bad_addresses_and_writes_nothing(pressline):
    ws = await factories.workspace()
    customer = await factories.customer(ws)
    for address in ("tøm@exämple.com", "<dana@acme.example>", "Dana <dana@acme.example>"):
        contact = await pressline(
            "contact", "add", "--customer", customer.id, "--name", "Dana", "--email", address
        )
        user = await pressline(
            "user", "create", "--workspace", ws.id, "--name", "Dana", "--email", address
        )
        reply_to = await pressline("workspace", "set", "--id", ws.id, "--email", address)
        for run in (contact, user, reply_to):
            assert run.code != 0 and f"email: {MESSAGE}" in run.err, (address, run.err)
    assert await Contact.count() == 0 and await User.count() == 0
    row = await Workspace.select(Workspace.email).where(Workspace.id == ws.id).first()
    assert row["email"] == ""
    added = await pressline(
        "contact", "add", "--customer", customer.id, "--name", "Dana", "--email", ACCEPTED[1]
    )
    assert added.code == 0, added.err


async def test_a_contact_stored_before_the_rule_still_shows_and_can_be_corrected(
    browser: httpx.AsyncClient, owner: Workspace
):
    customer = await factories.customer(owner)
    stored = await factories.contact(customer, email="<dana@acme.example>", is_primary=True)
    url = f"/admin/customers/{customer.id}"
    page = await browser.get(url)
    assert page.status_code == 200 and "&lt;dana@acme.example&gt;" in page.text
    edit = f"{url}/contacts/{stored.id}"
    kept = await post_form(browser, edit, edit, {"name": "Dana", "email": "<dana@acme.example>"})
    assert kept.status_code == 422 and MESSAGE in kept.text
    fixed = await post_form(browser, edit, edit, {"name": "Dana", "email": "dana@acme.example"})
    assert fixed.status_code == 303, fixed.text
    row = await Contact.select(Contact.email).where(Contact.id == stored.id).first()
    assert row["email"] == "dana@acme.example"
