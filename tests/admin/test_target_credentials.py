"""A webhook URL with `user:password@`: no admin page shows the password, and editing the
other fields keeps it without the owner typing it again."""

from __future__ import annotations

from models.tables import WebhookSubscription
from tests.admin.conftest import Shop
from tests.admin.support import delivery, post_form

PASSWORD = "s3cret"
URL = f"https://user:{PASSWORD}@hooks.example/x"
SHOWN = "https://user:****@hooks.example/x"


async def _stored_url(subscription_id: int) -> str:
    row = await WebhookSubscription.select(WebhookSubscription.url).where(
        WebhookSubscription.id == subscription_id
    )
    return str(row[0]["url"])


async def test_no_admin_page_shows_the_password_of_a_target_url(shop: Shop) -> None:
    created = await post_form(
        shop.client, "/admin/webhooks", "/admin/webhooks/",
        {"url": URL, "events": "*", "customer": ""},
    )  # fmt: skip
    assert created.status_code == 303
    shown = await shop.client.get(created.headers["location"])  # the secret, once
    assert shown.status_code == 200 and PASSWORD not in shown.text
    sub_id = (await WebhookSubscription.select().first())["id"]
    assert await _stored_url(sub_id) == URL  # stored whole: the delivery sends it
    done = await delivery(shop.ws, sub_id, error="HTTP 500")
    pages = [
        "/admin/", "/admin/webhooks", f"/admin/webhooks/{sub_id}", "/admin/deliveries",
        f"/admin/deliveries/?subscription={sub_id}", f"/admin/deliveries/{done}",
    ]  # fmt: skip
    for path in pages:
        page = await shop.client.get(path)
        assert page.status_code == 200, path
        assert PASSWORD not in page.text, path
    detail = await shop.client.get(f"/admin/webhooks/{sub_id}")
    assert f'value="{SHOWN}"' in detail.text  # the edit form holds the masked URL
    # A form sent back with an error does not repeat a password that was typed in it.
    refused = await post_form(
        shop.client, "/admin/webhooks", "/admin/webhooks/", {"url": URL, "customer": ""}
    )
    assert refused.status_code == 422 and PASSWORD not in refused.text


async def test_editing_keeps_the_password_only_when_the_rest_of_the_url_is_unchanged(
    shop: Shop,
) -> None:
    await post_form(
        shop.client, "/admin/webhooks", "/admin/webhooks/",
        {"url": URL, "events": "*", "customer": ""},
    )  # fmt: skip
    sub_id = (await WebhookSubscription.select().first())["id"]
    page, action = f"/admin/webhooks/{sub_id}", f"/admin/webhooks/{sub_id}"

    kept = await post_form(
        shop.client, page, action, {"url": SHOWN, "events": "invoice.paid", "customer": ""}
    )
    assert kept.status_code == 303
    assert await _stored_url(sub_id) == URL

    elsewhere = "https://user:****@other.example/x"
    refused = await post_form(
        shop.client, page, action, {"url": elsewhere, "events": "*", "customer": ""}
    )
    assert refused.status_code == 422
    assert "Type the password again" in refused.text and PASSWORD not in refused.text
    assert await _stored_url(sub_id) == URL

    changed = await post_form(
        shop.client, page, action,
        {"url": "https://user:n3w@other.example/x", "events": "*", "customer": ""},
    )  # fmt: skip
    assert changed.status_code == 303
    assert await _stored_url(sub_id) == "https://user:n3w@other.example/x"
