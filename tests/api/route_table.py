"""The app's own route table, for tests that must cover every endpoint (a new one included)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from litestar import Litestar
from litestar.handlers import HTTPRouteHandler
from litestar.routes import HTTPRoute

PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")


def api_routes(app: Litestar) -> list[tuple[str, str]]:
    """(method, path template) of every GET/POST route under /api/v1."""
    found: list[tuple[str, str]] = []
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


WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@dataclass(frozen=True)
class WriteRoute:
    """One method of one path that may change data, with the handler that answers it."""

    method: str
    template: str  # parameters without their types: /admin/orders/{ref}/stage
    handler: HTTPRouteHandler

    def __str__(self) -> str:
        return f"{self.method} {self.template}"

    @property
    def pattern(self) -> re.Pattern[str]:
        """The paths this route answers (a form's `action`, say)."""
        parts = re.split(r"(\{\w+\})", self.template)
        return re.compile(
            "^" + "".join("[^/]+" if PARAM.fullmatch(p) else re.escape(p) for p in parts) + "/?$"
        )


def write_routes(app: Litestar, prefixes: tuple[str, ...]) -> list[WriteRoute]:
    """Every POST/PUT/PATCH/DELETE route whose path starts with one of `prefixes`, sorted."""
    found = []
    for route in app.routes:
        if not isinstance(route, HTTPRoute) or not route.path.startswith(prefixes):
            continue
        template = PARAM.sub(r"{\1}", route.path)
        for method, (handler, _) in route.route_handler_map.items():
            if method in WRITE_METHODS:
                found.append(WriteRoute(method, template, handler))
    return sorted(found, key=str)
