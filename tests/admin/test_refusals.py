"""Bad input and abuse: each refusal of the admin, and that it changed nothing."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest

from models import clock
from models.admin_login import WRONG
from models.tables import AdminSession, ApiToken, User, WebhookDelivery, WebhookSubscription
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import PASSWORD, csrf_of, delivery, log_in, member, post_form, subscription

# --- another workspace's ids -------------------------------------------------------------------


@pytest.fixture
async def foreign(shop: Shop) -> dict[str, int]:
    """Another workspace's token, member, subscription and delivery."""
    other = await factories.workspace()
    person = await member(other)
    await factories.token(person)
    token = await ApiToken.select(ApiToken.id).where(ApiToken.user == person.id).first()
    sub = await subscription(other)
    return {
        "token": token["id"],
        "member": person.id,
        "subscription": sub,
        "delivery": await delivery(other, sub),
    }


async def test_another_workspaces_ids_are_not_found_and_left_alone(
    shop: Shop, foreign: dict[str, int]
) -> None:
    own_page = "/admin/webhooks"  # any page of ours gives a valid CSRF token
    gets = [
        f"/admin/tokens/{foreign['token']}/revoke",
        f"/admin/webhooks/{foreign['subscription']}",
        f"/admin/deliveries/{foreign['delivery']}",
        f"/admin/deliveries?subscription={foreign['subscription']}",
    ]
    for path in gets:
        page = await shop.client.get(path)
        assert page.status_code == 404, path
        assert "There is no such page in this workspace" in page.text
    posts = [
        (f"/admin/tokens/{foreign['token']}/revoke", {}),
        (f"/admin/staff/{foreign['member']}/deactivate", {}),
        (f"/admin/staff/{foreign['member']}/role", {"role": "staff"}),
        (f"/admin/webhooks/{foreign['subscription']}", {"url": "https://x.example", "events": "*"}),
        (f"/admin/webhooks/{foreign['subscription']}/disable", {}),
        (f"/admin/webhooks/{foreign['subscription']}/enable", {}),
        (f"/admin/webhooks/{foreign['subscription']}/secret", {}),
        (f"/admin/webhooks/{foreign['subscription']}/test", {}),
        (f"/admin/deliveries/{foreign['delivery']}/redeliver", {}),
    ]
    for action, data in posts:
        answer = await post_form(shop.client, own_page, action, data)
        assert answer.status_code == 404, action
    token = await ApiToken.select().where(ApiToken.id == foreign["token"]).first()
    assert token["revoked_at"] is None
    person = await User.select().where(User.id == foreign["member"]).first()
    assert person["is_active"] and person["role"] == "owner"
    sub = (
        await WebhookSubscription.select()
        .where(WebhookSubscription.id == foreign["subscription"])
        .first()
    )
    assert sub["is_active"] and sub["url"] == "https://hooks.example.com/in"
    sent = await WebhookDelivery.select().where(WebhookDelivery.id == foreign["delivery"]).first()
    assert sent["status"] == "failed" and sent["attempts"] == 1


async def test_another_workspaces_customer_in_a_form_is_a_field_error(shop: Shop) -> None:
    stranger = await factories.customer(await factories.workspace(), "Elsewhere Ltd")
    answer = await post_form(
        shop.client, "/admin/webhooks", "/admin/webhooks/",
        {"url": "https://hooks.example.com/x", "events": "*", "customer": str(stranger.id)},
    )  # fmt: skip
    assert answer.status_code == 422
    assert "Choose one of the workspace&#39;s customers" in answer.text
    assert 'value="https://hooks.example.com/x"' in answer.text
    assert await WebhookSubscription.count() == 0


async def test_ids_that_cannot_exist_are_not_found(shop: Shop) -> None:
    for path in ("/admin/deliveries/99999999999", "/admin/webhooks/0", "/admin/nowhere",
                 "/admin/deliveries?subscription=abc"):  # fmt: skip
        page = await shop.client.get(path)
        assert page.status_code == 404, path
        assert "text/html" in page.headers["content-type"], path


# --- staff on owner pages ---------------------------------------------------------------------


async def test_staff_gets_403_on_owner_pages_and_actions(
    shop: Shop, browser: httpx.AsyncClient
) -> None:
    staff = await member(shop.ws, role="staff")
    sub = await subscription(shop.ws)
    sent = await delivery(shop.ws, sub)
    transport = httpx.ASGITransport(app=browser._transport.app)  # type: ignore[attr-defined]
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        await log_in(client, staff.email)
        assert (await client.get("/admin/staff")).status_code == 403
        assert (await client.get(f"/admin/webhooks/{sub}")).status_code == 200  # staff read
        for action, data in (
            (f"/admin/staff/{shop.owner.id}/deactivate", {}),
            ("/admin/staff/", {"name": "X", "email": "x@example.com", "role": "owner",
                               "password": "long enough pw"}),
            ("/admin/webhooks/", {"url": "https://x.example", "events": "*"}),
            (f"/admin/webhooks/{sub}/disable", {}),
            (f"/admin/webhooks/{sub}/secret", {}),
            (f"/admin/webhooks/{sub}/test", {}),
            (f"/admin/deliveries/{sent}/redeliver", {}),
        ):  # fmt: skip
            answer = await post_form(client, "/admin/webhooks", action, data)
            assert answer.status_code == 403, action
            assert "Only an owner" in answer.text
    assert await User.count() == 2 and await WebhookSubscription.count() == 1
    row = await WebhookSubscription.select().first()
    assert row["is_active"]
    assert (await WebhookDelivery.select().first())["attempts"] == 1


async def test_staff_sees_and_revokes_only_their_own_tokens(shop: Shop, browser) -> None:
    staff = await member(shop.ws, role="staff")
    await factories.token(shop.owner, name="owner's")
    owners = await ApiToken.select(ApiToken.id).first()
    transport = httpx.ASGITransport(app=browser._transport.app)  # type: ignore[attr-defined]
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        await log_in(client, staff.email)
        assert "owner&#39;s" not in (await client.get("/admin/tokens")).text
        answer = await post_form(client, "/admin/tokens", f"/admin/tokens/{owners['id']}/revoke")
        assert answer.status_code == 404
    assert (await ApiToken.select().first())["revoked_at"] is None


# --- hostile content is shown as text ---------------------------------------------------------


async def test_hostile_receiver_content_and_names_are_escaped(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, '<img src=x onerror="alert(1)">')
    sub = await subscription(shop.ws, 'https://hooks.example.com/"><script>alert(2)</script>',
                             customer_id=customer.id)  # fmt: skip
    sent = await delivery(
        shop.ws, sub,
        response_body="<script>alert(3)</script>\ufffd\ufffd<b>bold</b>",  # bad bytes, as stored
        response_headers='{"X-Evil": "<script>alert(4)</script>"}',
    )  # fmt: skip
    for path in (f"/admin/deliveries/{sent}", "/admin/webhooks", f"/admin/webhooks/{sub}"):
        page = await shop.client.get(path)
        assert page.status_code == 200, path
        assert "<script>alert" not in page.text and "<img src=x" not in page.text, path
        assert "<b>bold" not in page.text
    detail = await shop.client.get(f"/admin/deliveries/{sent}")
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in detail.text
    assert "&lt;script&gt;alert(4)&lt;/script&gt;" in detail.text


# --- CSRF and sessions ------------------------------------------------------------------------


async def test_post_without_or_with_a_wrong_csrf_token_is_refused(shop: Shop) -> None:
    for data in ({}, {"_csrf_token": "forged"}, {"_csrf_token": "a" * 128}):
        answer = await shop.client.post("/admin/tokens/", data={"name": "x", "days": "5", **data})
        assert answer.status_code == 403
        assert "Reload the page" in answer.text
    assert await ApiToken.count() == 0


async def test_login_form_needs_its_csrf_token(browser: httpx.AsyncClient) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    await browser.get("/admin/login")
    answer = await browser.post("/admin/login", data={"email": owner.email, "password": PASSWORD})
    assert answer.status_code == 403
    assert await AdminSession.count() == 0


def use_session(client: httpx.AsyncClient, value: str) -> None:
    """Send `value` as the session cookie from now on, keeping the CSRF cookie."""
    cookies = {cookie.name: cookie.value for cookie in client.cookies.jar}
    client.cookies.clear()
    for name, kept in {**cookies, "pressline_session": value}.items():
        client.cookies.set(name, kept)


async def test_forged_expired_and_logged_out_sessions_are_refused(shop: Shop) -> None:
    real = next(c.value for c in shop.client.cookies.jar if c.name == "pressline_session")
    token = csrf_of(await shop.client.get("/admin/tokens"))
    use_session(shop.client, "forged-session-id")
    assert (await shop.client.get("/admin/")).status_code == 303
    posted = await shop.client.post(
        "/admin/tokens/", data={"name": "x", "days": "5", "_csrf_token": token}
    )
    assert posted.status_code == 401 and await ApiToken.count() == 0
    # idle past 12 h
    use_session(shop.client, real)
    assert (await shop.client.get("/admin/")).status_code == 200
    await AdminSession.update(
        {AdminSession.last_seen_at: clock.now() - dt.timedelta(hours=13)}
    ).where(AdminSession.user == shop.owner.id)
    assert (await shop.client.get("/admin/")).status_code == 303
    assert await AdminSession.count() == 0  # deleted, so it cannot come back
    # logged out
    shop.client.cookies.clear()
    await log_in(shop.client, shop.owner.email)
    kept = next(c.value for c in shop.client.cookies.jar if c.name == "pressline_session")
    out = await post_form(shop.client, "/admin/", "/admin/logout")
    assert out.status_code == 303 and await AdminSession.count() == 0
    use_session(shop.client, kept)
    again = await shop.client.get("/admin/")
    assert again.status_code == 303 and again.headers["location"].startswith("/admin/login")


async def test_absolute_expiry_ends_a_busy_session(shop: Shop) -> None:
    await AdminSession.update(
        {AdminSession.expires_at: clock.now() - dt.timedelta(seconds=1)}
    ).where(AdminSession.user == shop.owner.id)
    assert (await shop.client.get("/admin/")).status_code == 303


async def test_deactivated_members_open_session_ends(shop: Shop, browser) -> None:
    other_owner = await member(shop.ws)
    transport = httpx.ASGITransport(app=browser._transport.app)  # type: ignore[attr-defined]
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        await log_in(client, other_owner.email)
        assert (await client.get("/admin/")).status_code == 200
        gone = await post_form(
            shop.client, "/admin/staff", f"/admin/staff/{other_owner.id}/deactivate"
        )
        assert gone.status_code == 303
        assert (await client.get("/admin/")).status_code == 303
    assert await AdminSession.count() == 1  # the owner's own session only


# --- passwords and throttling -----------------------------------------------------------------


async def test_unknown_email_and_wrong_password_get_the_same_message(
    browser: httpx.AsyncClient,
) -> None:
    ws = await factories.workspace()
    owner = await member(ws)
    unknown = await log_in(browser, "nobody@example.com")
    wrong = await log_in(browser, owner.email, "not the password")
    assert unknown.status_code == wrong.status_code == 400
    assert WRONG.replace("'", "&#39;") in unknown.text and WRONG in wrong.text
    assert 'value="nobody@example.com"' in unknown.text  # what was typed is kept
    assert await AdminSession.count() == 0


async def test_invalid_forms_come_back_with_messages_and_typed_values(shop: Shop) -> None:
    bad_hook = await post_form(
        shop.client,
        "/admin/webhooks",
        "/admin/webhooks/",
        {"url": 'ftp://nope"quoted', "customer": ""},
    )
    assert bad_hook.status_code == 422
    assert "The URL must be absolute" in bad_hook.text
    assert "Choose at least one event" in bad_hook.text
    assert 'value="ftp://nope&#34;quoted"' in bad_hook.text
    bad_member = await post_form(
        shop.client, "/admin/staff", "/admin/staff/",
        {"name": "", "email": "not-an-email", "role": "boss", "password": "short"},
    )  # fmt: skip
    assert bad_member.status_code == 422
    for message in ("The name must not be blank.", "must be an email address",
                    "The role must be one of the choices offered.",
                    "at least 12 characters"):  # fmt: skip
        assert message in bad_member.text, message
    assert 'value="not-an-email"' in bad_member.text
    assert await User.count() == 1
    bad_token = await post_form(
        shop.client, "/admin/tokens", "/admin/tokens/", {"name": "n", "days": "0"}
    )
    assert bad_token.status_code == 422 and "must be between 1 and 3650" in bad_token.text
    assert await ApiToken.count() == 0
