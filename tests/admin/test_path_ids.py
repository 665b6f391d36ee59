"""Every route with a numeric id in its path, from the app's own route table, refuses an id no
record can have — past PostgreSQL's integer (2**31), past SQLite's (2**63), zero and negative —
instead of passing it to the database, which refused it with a 500: the admin's with its 404
page (one guard), the API's with a 404 (or, for a write, the 422 of its body, checked first)."""

from __future__ import annotations

import re

import pytest
from litestar import Litestar
from litestar.routes import HTTPRoute

from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of

pytestmark = pytest.mark.usefixtures("backend")

INT_PARAM = re.compile(r"\{(\w+):int\}")
OTHER_PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")
BAD_IDS = [2**31, 2**63, 10**20, 0, -1, -(2**31) - 1]


def int_routes(app: Litestar) -> list[tuple[str, str]]:
    found = []
    for route in app.routes:
        if isinstance(route, HTTPRoute) and INT_PARAM.search(route.path):
            methods = sorted(route.methods - {"OPTIONS", "HEAD"})
            found += [(method, route.path) for method in methods]
    return found


def test_the_walk_sees_admin_and_api_routes(app: Litestar) -> None:
    paths = [path for _, path in int_routes(app)]
    assert any(p.startswith("/admin/") for p in paths)
    assert any(p.startswith("/api/v1/orders/") for p in paths)


async def test_ids_no_record_can_have_are_404_everywhere(app: Litestar, shop: Shop) -> None:
    csrf = csrf_of(await shop.client.get("/admin/customers"))
    headers = await factories.headers(shop.owner)
    answers = {}
    for method, template in int_routes(app):
        for bad in BAD_IDS:
            path = OTHER_PARAM.sub("x", INT_PARAM.sub(str(bad), template))
            if template.startswith("/admin"):
                data = {"_csrf_token": csrf} if method == "POST" else None
                answer = await shop.client.request(method, path, data=data)
            else:
                if method != "GET":  # a fresh user per write: the write limit is not in play
                    headers = await factories.caller(shop.ws)
                answer = await shop.client.request(method, path, headers=headers, json={})
            answers[(method, path)] = answer.status_code
    wrong = {
        (method, path): status
        for (method, path), status in answers.items()
        if status != 404 and not (path.startswith("/api/") and method != "GET" and status == 422)
    }
    assert not wrong, wrong
    assert len(answers) >= 20 * len(BAD_IDS)
