"""docs/api.md cannot drift from the app: its route table lists exactly the routes the
OpenAPI document has (with their operation ids), and it names every webhook event and every
error code. The docs cite nothing outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

from litestar import Litestar

from models.errors import ErrorCode
from models.webhooks.names import EventName

ROOT = Path(__file__).resolve().parents[2]
API_DOC = ROOT / "docs" / "api.md"
ROW = re.compile(r"^\| (GET|POST|PATCH|PUT|DELETE) \| `(/[^`]*)` \| `(\w+)` \|", re.MULTILINE)
PARAMETER = re.compile(r"\{\w+\}")
PREFIX = "/api/v1"


def _shape(path: str) -> str:
    """A path with its parameters unnamed: docs say `{id}` where OpenAPI says `{order_id}`."""
    return PARAMETER.sub("{}", path)


def _documented() -> set[tuple[str, str, str]]:
    return {
        (method, _shape(path), operation)
        for method, path, operation in ROW.findall(API_DOC.read_text())
    }


def _served(app: Litestar) -> set[tuple[str, str, str]]:
    paths = app.openapi_schema.to_schema()["paths"]
    return {
        (method.upper(), _shape(path.removeprefix(PREFIX)), operation["operationId"])
        for path, item in paths.items()
        if path.startswith(PREFIX)
        for method, operation in item.items()
        if method in {"get", "post", "patch", "put", "delete"}
    }


def test_the_route_table_lists_every_route_and_only_those(app: Litestar) -> None:
    documented, served = _documented(), _served(app)
    assert len(served) >= 20  # the walk found the app's routes
    assert served - documented == set(), "routes missing from docs/api.md §4"
    assert documented - served == set(), "docs/api.md §4 lists routes the app does not have"


def test_every_event_and_error_code_is_named(app: Litestar) -> None:
    text = API_DOC.read_text()
    missing_events = [e.value for e in EventName if f"`{e.value}`" not in text]
    missing_codes = [c.value for c in ErrorCode if f"`{c.value}`" not in text]
    assert missing_events == []
    assert missing_codes == []


def test_the_docs_stand_alone() -> None:
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    for page in pages:
        text = page.read_text()
        assert "DECISIONS" not in text, page
        assert "../shared" not in text, page
