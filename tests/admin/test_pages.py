"""Every admin page renders for an owner, and each action changes what the page says."""

from __future__ import annotations

import re

from models.tables import ApiToken, User, WebhookDelivery, WebhookSubscription
from models.webhooks import subscriptions
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import delivery, log_in, member, post_form, subscription


async def test_every_page_answers_with_the_security_headers(shop: Shop) -> None:
    sub = await subscription(shop.ws)
    done = await delivery(shop.ws, sub, response_body="nope")
    for path in (
        "/admin/", "/admin/tokens", "/admin/staff", "/admin/webhooks", f"/admin/webhooks/{sub}",
        "/admin/deliveries", f"/admin/deliveries?subscription={sub}", f"/admin/deliveries/{done}",
    ):  # fmt: skip
        page = await shop.client.get(path)
        assert page.status_code == 200, (path, page.text[:300])
        assert page.headers["x-frame-options"] == "DENY", path
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"], path
        assert "<script>" not in page.text  # only <script src> of our own files
    static = await shop.client.get("/admin/static/htmx.min.js")
    assert static.status_code == 200 and static.headers["x-content-type-options"] == "nosniff"


async def test_token_is_shown_once_and_works_until_revoked(shop: Shop) -> None:
    created = await post_form(
        shop.client, "/admin/tokens", "/admin/tokens/", {"name": "Website", "days": "30"}
    )
    assert created.status_code == 303
    assert created.headers["location"] == "/admin/tokens/created"
    created = await shop.client.get("/admin/tokens/created")
    assert created.headers["cache-control"] == "no-store"
    token = re.search(r'id="new-token">(plk_[^<]+)<', created.text).group(1)
    assert (
        await shop.client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    ).status_code == 200
    listing = await shop.client.get("/admin/tokens")
    assert "Website" in listing.text and token not in listing.text
    row = await ApiToken.select().where(ApiToken.name == "Website").first()
    revoked = await post_form(
        shop.client, f"/admin/tokens/{row['id']}/revoke", f"/admin/tokens/{row['id']}/revoke"
    )
    assert revoked.status_code == 303
    me = await shop.client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 401
    assert "revoked" in (await shop.client.get("/admin/tokens")).text


async def test_tokens_are_refused_when_the_plan_has_no_api(browser) -> None:
    ws = await factories.workspace(plan="starter")
    owner = await member(ws)
    await log_in(browser, owner.email)
    page = await browser.get("/admin/tokens")
    assert "does not include API access" in page.text
    refused = await post_form(
        browser, "/admin/tokens", "/admin/tokens/", {"name": "x", "days": "5"}
    )
    assert refused.status_code == 422
    assert await ApiToken.count() == 0


async def test_owner_adds_a_member_who_can_log_in(shop: Shop, browser) -> None:
    added = await post_form(
        shop.client, "/admin/staff", "/admin/staff/",
        {"name": "Sam Press", "email": "sam@example.com", "role": "staff",
         "password": "twelve chars ok"},
    )  # fmt: skip
    assert added.status_code == 303
    sam = await User.select().where(User.email == "sam@example.com").first()
    assert sam["role"] == "staff" and sam["password_hash"].startswith("$argon2id$")


async def test_last_active_owner_cannot_be_deactivated_or_demoted(shop: Shop) -> None:
    owner = shop.owner.id
    for action, data in (("deactivate", {}), ("role", {"role": "staff"})):
        refused = await post_form(
            shop.client, "/admin/staff", f"/admin/staff/{owner}/{action}", data
        )
        assert refused.status_code == 422
        assert "at least one active owner" in refused.text
    row = await User.select().where(User.id == owner).first()
    assert row["is_active"] and row["role"] == "owner"


async def test_subscription_lifecycle(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, "Acme Tees")
    created = await post_form(
        shop.client, "/admin/webhooks", "/admin/webhooks/",
        {"url": "https://user:hunter2@hooks.example.com/in",
         "events": ["order.dispatched", "invoice.paid"], "customer": str(customer.id)},
    )  # fmt: skip
    sub = await WebhookSubscription.select().first()
    assert created.status_code == 303
    assert created.headers["location"] == f"/admin/webhooks/{sub['id']}/secret"
    shown = await shop.client.get(created.headers["location"])
    assert shown.headers["cache-control"] == "no-store"
    secret = re.search(r'id="signing-secret">(whsec_[A-Za-z0-9+/=]+)<', shown.text).group(1)
    assert secret == sub["secret"]
    again = await shop.client.get(created.headers["location"])  # a reload: the secret is gone
    assert again.status_code == 303 and secret not in again.text
    assert sub["events"] == "invoice.paid,order.dispatched" and sub["customer"] == customer.id
    listing = await shop.client.get("/admin/webhooks")
    assert "hunter2" not in listing.text, listing.text[listing.text.find("hunter2") - 300 :][:400]
    assert "hooks.example.com" in listing.text
    edited = await post_form(
        shop.client, f"/admin/webhooks/{sub['id']}", f"/admin/webhooks/{sub['id']}",
        {"url": "https://hooks.example.com/v2", "events": "*", "customer": ""},
    )  # fmt: skip
    assert edited.status_code == 303
    assert "was saved" in (await shop.client.get(edited.headers["location"])).text
    disabled = await post_form(
        shop.client, f"/admin/webhooks/{sub['id']}/disable", f"/admin/webhooks/{sub['id']}/disable"
    )
    assert disabled.status_code == 303
    skipped = await delivery(shop.ws, sub["id"], status="skipped", status_code=None)
    enabled = await post_form(
        shop.client, f"/admin/webhooks/{sub['id']}", f"/admin/webhooks/{sub['id']}/enable",
        {"requeue": "1", "since": "2000-01-01 00:00+00:00"},
    )  # fmt: skip
    assert enabled.status_code == 303
    notice = (await shop.client.get(enabled.headers["location"])).text
    assert "1 failed or skipped delivery was queued again." in notice
    row = await subscriptions.get(sub["id"])
    assert row["url"] == "https://hooks.example.com/v2" and row["events"] == "*"
    assert row["customer"] is None and row["is_active"]
    status = await WebhookDelivery.select(WebhookDelivery.status).where(
        WebhookDelivery.id == skipped
    )
    assert status[0]["status"] == "pending"


async def test_rotation_and_test_event_have_a_confirmation_step(shop: Shop) -> None:
    sub = await subscription(shop.ws)
    old = (await WebhookSubscription.select().first())["secret"]
    confirm = await shop.client.get(f"/admin/webhooks/{sub}/rotate")
    assert confirm.status_code == 200 and "Rotate the signing secret?" in confirm.text
    refused = await post_form(
        shop.client, f"/admin/webhooks/{sub}/rotate", f"/admin/webhooks/{sub}/secret",
        {"overlap_hours": "169"},
    )  # fmt: skip
    assert refused.status_code == 422 and "from 0 to 168" in refused.text
    rotated = await post_form(
        shop.client, f"/admin/webhooks/{sub}/rotate", f"/admin/webhooks/{sub}/secret",
        {"overlap_hours": "24"},
    )  # fmt: skip
    assert rotated.status_code == 303
    shown = await shop.client.get(rotated.headers["location"])
    row = await WebhookSubscription.select().where(WebhookSubscription.id == sub).first()
    assert row["secret"] in shown.text and row["previous_secret"] == old
    assert "still signs until" in (await shop.client.get(f"/admin/webhooks/{sub}")).text

    assert "Send test event" in (await shop.client.get(f"/admin/webhooks/{sub}/test")).text
    tested = await post_form(
        shop.client, f"/admin/webhooks/{sub}/test", f"/admin/webhooks/{sub}/test"
    )
    assert tested.status_code == 303
    test_page = await shop.client.get(tested.headers["location"])
    assert "webhook.test" in test_page.text and "A test event was queued" in test_page.text


async def test_redeliver_on_an_inactive_subscription_is_refused_with_the_reason(
    shop: Shop,
) -> None:
    sub = await subscription(shop.ws)
    done = await delivery(shop.ws, sub)
    await delivery(shop.ws, sub, status="succeeded", status_code=200)
    recent = await shop.client.get("/admin/deliveries?failed=24h")  # the overview's figure
    assert recent.text.count('id="delivery-') == 1 and f'id="delivery-{done}"' in recent.text
    await subscriptions.disable(sub)
    page = await shop.client.get(f"/admin/deliveries/{done}")
    assert "Redeliver is not offered" in page.text
    refused = await post_form(
        shop.client, f"/admin/deliveries/{done}", f"/admin/deliveries/{done}/redeliver"
    )
    assert refused.status_code == 409 and "is inactive (disabled by an operator)" in refused.text
    row = await WebhookDelivery.select().where(WebhookDelivery.id == done).first()
    assert row["status"] == "failed"


async def test_delivery_detail_shows_body_signature_and_attempts(shop: Shop) -> None:
    sub = await subscription(shop.ws)
    secret = (await WebhookSubscription.select().first())["secret"]
    body = '{"event":"order.stage_changed","order_number":"ORD-2026-0001"}'
    done = await delivery(
        shop.ws, sub, body=body, response_body="x" * 10, response_headers='{"X-Trace": "abc"}'
    )
    page = await shop.client.get(f"/admin/deliveries/{done}")
    from models.webhooks.signing import signature

    assert signature(secret, body.encode()) in page.text
    assert "&#34;order_number&#34;: &#34;ORD-2026-0001&#34;" in page.text  # pretty-printed
    assert "X-Trace" in page.text and "HTTP 500" in page.text
    # Its webhook-id (dlv_…), as the receiver sees it, and the headers' X-SVC-Workspace.
    public_id = (await WebhookDelivery.select().where(WebhookDelivery.id == done).first())[
        "public_id"
    ]
    assert public_id.startswith("dlv_") and page.text.count(public_id) >= 3  # fact and 2 headers
    assert f'<th>X-SVC-Workspace</th><td class="break">{shop.ws.id}</td>' in page.text
    again = await post_form(
        shop.client, f"/admin/deliveries/{done}", f"/admin/deliveries/{done}/redeliver"
    )
    assert again.status_code == 303
    row = await WebhookDelivery.select().where(WebhookDelivery.id == done).first()
    assert row["status"] == "pending" and row["attempts"] == 0


async def test_deliveries_are_paged_and_filtered(shop: Shop) -> None:
    sub = await subscription(shop.ws)
    for n in range(52):
        await delivery(shop.ws, sub, status="succeeded" if n % 2 else "failed", status_code=200)
    first = await shop.client.get("/admin/deliveries")
    assert first.text.count('id="delivery-') == 50 and "Older" in first.text
    second = await shop.client.get("/admin/deliveries?page=2")
    assert second.text.count('id="delivery-') == 2
    failed = await shop.client.get("/admin/deliveries?status=failed")
    assert failed.text.count('id="delivery-') == 26
    recent = await shop.client.get("/admin/deliveries?failed=24h")  # every attempt was a 200
    assert recent.text.count('id="delivery-') == 0
    partial = await shop.client.get(
        "/admin/deliveries?status=failed", headers={"HX-Request": "true"}
    )
    assert "<html" not in partial.text and partial.text.count('id="delivery-') == 26


async def test_last_use_of_a_token_is_listed(shop: Shop) -> None:
    from models import token_use

    token = await factories.token(shop.owner, name="Integration")
    assert "never" in (await shop.client.get("/admin/tokens")).text
    me = await shop.client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200
    assert await token_use.flush() >= 1  # with uses noted by earlier tests
    row = await ApiToken.select(ApiToken.last_used_at).where(ApiToken.name == "Integration")
    assert row[0]["last_used_at"] is not None
    assert "never" not in (await shop.client.get("/admin/tokens")).text


async def test_the_webhooks_page_counts_only_its_own_workspaces_webhooks(shop: Shop) -> None:
    """Subscriptions, pending deliveries and the last day's failed attempts (on the Webhooks
    page, not the overview), this workspace's alone: another workspace's are left out."""
    mine = await subscription(shop.ws)
    await subscriptions.disable(await subscription(shop.ws))
    await delivery(shop.ws, mine, status="pending", status_code=None, error="timed out")
    await delivery(shop.ws, mine, status="failed", status_code=500)
    await delivery(shop.ws, mine, status="succeeded", status_code=200)
    other = await factories.workspace(name="Elsewhere")
    theirs = await subscription(other)
    await subscriptions.disable(theirs)
    for _ in range(3):
        await delivery(other, theirs, status="pending", status_code=503)

    page = await shop.client.get("/admin/webhooks")
    figures = [int(n) for n in re.findall(r'class="figure">(\d+)', page.text)]
    assert figures == [1, 1, 2]  # active subscriptions, pending, failures
    assert "1 deactivated" in page.text
    assert "oldest waiting" in page.text
    overview = await shop.client.get("/admin/")
    assert "Deliveries pending" not in overview.text and "Failed attempts" not in overview.text


async def test_the_deliveries_list_links_each_delivery_to_its_order(shop: Shop) -> None:
    from models.tables import WebhookEvent

    customer = await factories.customer(shop.ws, "Acme Tees")
    order = await factories.order(shop.ws, customer)
    sub = await subscription(shop.ws, "https://hooks.example.com/a/very/long/path?x=1&y=2")
    done = await delivery(shop.ws, sub)
    [row] = await WebhookDelivery.select(WebhookDelivery.event).where(WebhookDelivery.id == done)
    await WebhookEvent.update({WebhookEvent.order: order.id}).where(WebhookEvent.id == row["event"])
    listing = await shop.client.get("/admin/deliveries")
    link = f'<a href="/admin/orders/{order.number}">{order.number}</a>'
    assert link in listing.text
    assert link in (await shop.client.get(f"/admin/deliveries/{done}")).text
    # Long URLs may break after / ? & only (never inside a word).
    assert "https:/<wbr>/<wbr>hooks.example.com/<wbr>a/<wbr>very" in listing.text
