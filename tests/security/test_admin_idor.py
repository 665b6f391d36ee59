"""Every admin path with another workspace's ids answers the 404 page and changes nothing
. The paths come from the app's route table, so a new page is covered as
soon as it exists; a new kind of path parameter fails here until records() knows it."""

from __future__ import annotations

from litestar import Litestar

from models.tables import ApiToken, User, WebhookDelivery, WebhookSubscription
from tests import factories
from tests.admin.support import csrf_of, log_in, member
from tests.security.admin_walk import admin_routes, fill, records
from tests.security.conftest import Browser

# Plausible fields for any admin form, so a refusal is about the record, not the form.
FORM = {
    "name": "Changed", "email": "changed@example.com", "role": "owner", "phone": "1",
    "url": "https://hooks.example.com/changed", "events": "*", "reason": "count",
    "quantity": "1", "delta": "1", "note": "x", "comment": "x", "confirm": "1",
    "resend_since": "", "external_ref": "X", "days": "5", "stage": "printing",
    "slug": "changed", "payment_terms": "net_30", "carrier": "", "price_list": "",
    "discount": "", "password": "a long enough password",
}  # fmt: skip


async def _snapshot() -> list[object]:
    return [
        await ApiToken.select(ApiToken.id, ApiToken.revoked_at).order_by(ApiToken.id),
        await User.select(User.id, User.role, User.is_active).order_by(User.id),
        await WebhookSubscription.select().order_by(WebhookSubscription.id),
        await WebhookDelivery.select().order_by(WebhookDelivery.id),
    ]


async def test_every_admin_path_hides_other_workspaces(app: Litestar, browsers: Browser) -> None:
    foreign = await factories.workspace(name="Foreign")
    ids = await records(foreign)
    mine = await factories.workspace(name="Mine")
    owner = await member(mine)
    browser = browsers()
    assert (await log_in(browser, owner.email)).status_code == 303
    token = csrf_of(await browser.get("/admin/"))
    before = await _snapshot()
    routes = admin_routes(app, with_params=True)
    assert len(routes) >= 30, routes  # the walk sees the pages (tokens, staff, orders…)
    leaks = []
    for method, template in routes:
        path = fill(template, ids)
        if method == "GET":
            answer = await browser.get(path)
        else:
            answer = await browser.post(path, data={**FORM, "_csrf_token": token})
        if (
            answer.status_code != 404
            or "There is no such page in this workspace" not in answer.text
        ):
            leaks.append((method, path, answer.status_code))
    assert leaks == []
    assert await _snapshot() == before
