"""Reading the admin's forms: text fields as typed, so a refused form comes back filled in."""

from __future__ import annotations

from typing import Any

from litestar import Request

from api.admin.security import CSRF_FIELD

MAX_FIELD = 10_000  # longer values are cut; every domain limit is far below this


async def form(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """The posted fields: one string each, a list for repeated names (checkboxes)."""
    data = await request.form()
    fields: dict[str, Any] = {}
    for name in data:
        if name == CSRF_FIELD:  # checked by the CSRF middleware, no form field of its own
            continue
        values = [str(value)[:MAX_FIELD] for value in data.getall(name)]
        fields[name] = values if len(values) > 1 else values[0]
    return fields


def text(fields: dict[str, Any], name: str) -> str:
    value = fields.get(name, "")
    return value[-1] if isinstance(value, list) else str(value)


def many(fields: dict[str, Any], name: str) -> list[str]:
    value = fields.get(name, [])
    return value if isinstance(value, list) else [value]


def whole_number(value: str) -> int | None:
    """`value` as an int, or None when it is not a whole number."""
    value = value.strip()
    if not value.lstrip("-").isdigit() or len(value) > 12:
        return None
    return int(value)
