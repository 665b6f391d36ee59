"""The app's own route table, for tests that must cover every endpoint (a new one included)."""

from __future__ import annotations

import re

from litestar import Litestar
from litestar.routes import HTTPRoute

PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")


def api_routes(app: Litestar) -> list[tuple[str, str]]:
    """(method, path template) of every GET/POST route under /api/v1."""
    found = []
    for route in app.routes:
        if isinstance(route, HTTPRoute) and route.path.startswith("/api/v1"):
            template = PARAM.sub(r"{\1}", route.path)
            found += [(m, template) for m in sorted(route.methods) if m in {"GET", "POST"}]
    return found


def fill(template: str, ids: dict[str, int | str]) -> str:
    names = PARAM.findall(template)
    unknown = [name for name in names if name not in ids]
    assert not unknown, f"no records for path parameters {unknown}: add them to the fixture"
    return PARAM.sub(lambda m: str(ids[m.group(1)]), template)


def post_routes(app: Litestar) -> list[str]:
    return [template for method, template in api_routes(app) if method == "POST"]
