"""POST-redirect-GET on the tokens and staff pages: every successful POST answers 303, the page
it leads to shows a one-time notice (and a new token once), and a reload repeats nothing."""

from __future__ import annotations

import re

from models.tables import AdminFlash, ApiToken
from tests.admin.conftest import Shop
from tests.admin.support import post_form


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
