"""POST-redirect-GET on the tokens and staff pages: every successful POST answers 303, the page
it leads to shows a one-time notice (and a new token once), and a reload repeats nothing."""

from __future__ import annotations

import re

import httpx

from models.tables import AdminFlash, AdminSession, ApiToken, User
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import PASSWORD, log_in, member, post_form


async def test_token_created_answers_303_and_the_value_is_shown_once(shop: Shop) -> None:
    created = await post_form(
        shop.client, "/admin/tokens", "/admin/tokens/", {"name": "Website", "days": "30"}
    )
    assert created.status_code == 303
    assert created.headers["location"] == "/admin/tokens/created"
    shown = await shop.client.get("/admin/tokens/created")
    assert shown.status_code == 200
    assert shown.headers["cache-control"] == "no-store"
    token = re.search(r'id="new-token">(plk_[^<]+)<', shown.text).group(1)
    assert "The token was created." in shown.text
    # A reload: the value is gone, nothing is created again.
    again = await shop.client.get("/admin/tokens/created")
    assert again.status_code == 303 and again.headers["location"] == "/admin/tokens"
    listing = await shop.client.get("/admin/tokens")
    assert token not in listing.text and "The token was created." not in listing.text
    assert await ApiToken.count().where(ApiToken.name == "Website") == 1
    assert await AdminFlash.count() == 0  # read once, then deleted


async def test_revoke_notice_shows_once(shop: Shop) -> None:
    await post_form(shop.client, "/admin/tokens", "/admin/tokens/", {"name": "W", "days": "3"})
    await shop.client.get("/admin/tokens/created")
    row = await ApiToken.select(ApiToken.id).where(ApiToken.name == "W").first()
    revoked = await post_form(
        shop.client, f"/admin/tokens/{row['id']}/revoke", f"/admin/tokens/{row['id']}/revoke"
    )
    assert revoked.status_code == 303 and revoked.headers["location"] == "/admin/tokens"
    assert "The token was revoked." in (await shop.client.get("/admin/tokens")).text
    assert "The token was revoked." not in (await shop.client.get("/admin/tokens")).text


# --- staff ------------------------------------------------------------------------------------


async def test_member_added_answers_303_and_the_notice_shows_once(shop: Shop) -> None:
    added = await post_form(
        shop.client, "/admin/staff", "/admin/staff/",
        {"name": "Sam Press", "email": "sam@example.com", "role": "staff",
         "password": "twelve chars ok"},
    )  # fmt: skip
    assert added.status_code == 303 and added.headers["location"] == "/admin/staff"
    assert "The member was added: Sam Press (staff)" in (await shop.client.get("/admin/staff")).text
    assert "The member was added" not in (await shop.client.get("/admin/staff")).text
    assert await User.count().where(User.email == "sam@example.com") == 1


async def test_the_last_active_owner_has_no_deactivate_button_nor_role_choice(shop: Shop) -> None:
    sam = await member(shop.ws, role="staff", name="Sam")
    listing = await shop.client.get("/admin/staff")
    own_row = re.search(rf'<tr id="member-{shop.owner.id}">(.*?)</tr>', listing.text, re.S).group(1)
    assert "Deactivate" not in own_row and "<select" not in own_row
    assert "the only active owner" in own_row
    sam_row = re.search(rf'<tr id="member-{sam.id}">(.*?)</tr>', listing.text, re.S).group(1)
    assert f"/admin/staff/{sam.id}/deactivate" in sam_row and "<select" in sam_row
    # With a second active owner, both owners get the buttons.
    await member(shop.ws, role="owner")
    listing = await shop.client.get("/admin/staff")
    own_row = re.search(rf'<tr id="member-{shop.owner.id}">(.*?)</tr>', listing.text, re.S).group(1)
    assert f"/admin/staff/{shop.owner.id}/deactivate" in own_row


async def test_deactivate_has_a_confirmation_page_then_the_post(shop: Shop, browser) -> None:
    sam = await member(shop.ws, role="staff", name="Sam")
    confirm = await shop.client.get(f"/admin/staff/{sam.id}/deactivate")
    assert confirm.status_code == 200 and "Deactivate Sam?" in confirm.text
    assert (await User.objects().where(User.id == sam.id).first()).is_active  # GET changed nothing
    done = await post_form(
        shop.client, f"/admin/staff/{sam.id}/deactivate", f"/admin/staff/{sam.id}/deactivate"
    )
    assert done.status_code == 303 and done.headers["location"] == "/admin/staff"
    assert not (await User.objects().where(User.id == sam.id).first()).is_active
    assert "Sam was deactivated" in (await shop.client.get("/admin/staff")).text


async def test_an_owner_sets_a_members_password_and_their_sessions_end(shop: Shop) -> None:
    sam = await member(shop.ws, role="staff", name="Sam")
    transport = httpx.ASGITransport(app=shop.client._transport.app)  # type: ignore[attr-defined]
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as sams:
        assert (await log_in(sams, sam.email)).status_code == 303
        url = f"/admin/staff/{sam.id}/password"
        short = await post_form(
            shop.client, url, url, {"password": "short", "confirm_password": "short"}
        )
        assert short.status_code == 422 and "at least 12 characters" in short.text
        other = await post_form(
            shop.client, url, url, {"password": "a new long one", "confirm_password": "another"}
        )
        assert other.status_code == 422 and "does not match" in other.text
        done = await post_form(
            shop.client, url, url,
            {"password": "a new long one", "confirm_password": "a new long one"},
        )  # fmt: skip
        assert done.status_code == 303
        assert (await sams.get("/admin/")).status_code == 303  # logged out
        assert (await log_in(sams, sam.email)).status_code != 303  # the old password is gone
        assert (await log_in(sams, sam.email, "a new long one")).status_code == 303
    assert "Sam&#39;s password was set" in (await shop.client.get("/admin/staff")).text


async def test_everyone_changes_their_own_password_and_other_sessions_end(
    shop: Shop,
) -> None:
    sam = await member(shop.ws, role="staff", name="Sam")
    transport = httpx.ASGITransport(app=shop.client._transport.app)  # type: ignore[attr-defined]
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as here,
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as elsewhere,
    ):
        await log_in(here, sam.email)
        await log_in(elsewhere, sam.email)
        url = "/admin/account/password"
        wrong = await post_form(
            here, "/admin/account", url,
            {"current_password": "not it at all", "new_password": "brand new secret",
             "confirm_password": "brand new secret"},
        )  # fmt: skip
        assert wrong.status_code == 422 and "is not your current password" in wrong.text
        done = await post_form(
            here, "/admin/account", url,
            {"current_password": PASSWORD, "new_password": "brand new secret",
             "confirm_password": "brand new secret"},
        )  # fmt: skip
        assert done.status_code == 303 and done.headers["location"] == "/admin/account"
        page = await here.get("/admin/account")
        assert page.status_code == 200 and "Your password was changed" in page.text
        assert (await elsewhere.get("/admin/")).status_code == 303  # the other session ended
    assert await AdminSession.count().where(AdminSession.user == sam.id) == 1
    # Staff cannot set anyone's password through the staff pages.
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        await log_in(client, sam.email, "brand new secret")
        assert (await client.get(f"/admin/staff/{shop.owner.id}/password")).status_code == 403


async def test_staff_posts_need_csrf_and_stay_in_the_workspace(shop: Shop) -> None:
    sam = await member(shop.ws, role="staff")
    for action in (f"/admin/staff/{sam.id}/deactivate", f"/admin/staff/{sam.id}/password",
                   "/admin/account/password"):  # fmt: skip
        assert (await shop.client.post(action, data={})).status_code == 403, action
    other = await factories.workspace()
    theirs = await member(other, role="staff")
    for path in (f"/admin/staff/{theirs.id}/deactivate", f"/admin/staff/{theirs.id}/password"):
        assert (await shop.client.get(path)).status_code == 404
        answer = await post_form(
            shop.client, "/admin/staff", path,
            {"password": "a new long one", "confirm_password": "a new long one"},
        )  # fmt: skip
        assert answer.status_code == 404
    assert (await User.objects().where(User.id == theirs.id).first()).is_active


async def test_tokens_and_staff_tables_have_no_empty_header(shop: Shop) -> None:
    for path in ("/admin/tokens", "/admin/staff"):
        assert "<th></th>" not in (await shop.client.get(path)).text


async def test_a_notice_not_read_in_time_is_never_shown(shop: Shop) -> None:
    """A flash left unread (the browser never followed the 303) expires with its secret."""
    import datetime as dt

    from api.admin import flash
    from models import clock

    await post_form(shop.client, "/admin/tokens", "/admin/tokens/", {"name": "Late", "days": "3"})
    stale = clock.now() - flash.MAX_AGE - dt.timedelta(seconds=1)
    await AdminFlash.update({AdminFlash.created_at: stale}).where(AdminFlash.id > 0)
    late = await shop.client.get("/admin/tokens/created")
    assert late.status_code == 303 and late.headers["location"] == "/admin/tokens"
    assert await AdminFlash.count() == 0
    # Another session's push also clears what is stale.
    await post_form(shop.client, "/admin/tokens", "/admin/tokens/", {"name": "Later", "days": "3"})
    await AdminFlash.update({AdminFlash.created_at: stale}).where(AdminFlash.id > 0)
    other = await member(shop.ws, role="owner")
    transport = httpx.ASGITransport(app=shop.client._transport.app)  # type: ignore[attr-defined]
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        await log_in(client, other.email)
        await post_form(client, "/admin/tokens", "/admin/tokens/", {"name": "Theirs", "days": "3"})
    rows = await AdminFlash.select(AdminFlash.secret)
    assert len(rows) == 1 and rows[0]["secret"] is not None  # only the other session's fresh one


async def test_pages_look_for_a_notice_only_after_a_post_left_one(
    shop: Shop, statements: list[str]
) -> None:
    """No page load writes for nothing: without the marker cookie of a POST's 303 a page sends
    no statement about notices; with it, one read, and the delete only when one is waiting."""

    def about_notices() -> list[str]:
        return [sql.split()[0] for sql in statements if "admin_flashes" in sql]

    await shop.client.get("/admin/tokens")  # the session's periodic touch is not counted
    statements.clear()
    assert (await shop.client.get("/admin/tokens")).status_code == 200
    assert about_notices() == []
    await post_form(shop.client, "/admin/tokens", "/admin/tokens/", {"name": "W", "days": "3"})
    statements.clear()
    assert "The token was created." in (await shop.client.get("/admin/tokens/created")).text
    assert about_notices() == ["SELECT", "DELETE"]
    statements.clear()
    assert (await shop.client.get("/admin/tokens")).status_code == 200
    assert about_notices() == ["SELECT"]  # the marker lasts MAX_AGE; nothing is waiting
