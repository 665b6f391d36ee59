"""Reading the admin's forms: text fields as typed, so a refused form comes back filled in."""

from __future__ import annotations

import re
from typing import Any

from litestar import Request

from api.admin.form_data import read_form
from api.admin.security import CSRF_FIELD


async def form(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """The posted text fields: one string each, a list for repeated names (checkboxes). Values
    are whole (the request body limit, api/app.py, bounds them), so a refusal tells a field's
    real length; a file sent where text is expected counts as not sent. Text that is not UTF-8
    is a 400 (api/admin/form_data.py)."""
    data = await read_form(request)
    fields: dict[str, Any] = {}
    for name in data:
        if name == CSRF_FIELD:  # checked by the CSRF middleware, no form field of its own
            continue
        values = [value for value in data.getall(name) if isinstance(value, str)]
        if values:
            fields[name] = values if len(values) > 1 else values[0]
    return fields


def text(fields: dict[str, Any], name: str) -> str:
    value = fields.get(name, "")
    return value[-1] if isinstance(value, list) else str(value)


def many(fields: dict[str, Any], name: str) -> list[str]:
    value = fields.get(name, [])
    return value if isinstance(value, list) else [value]


_WHOLE = re.compile(r"-?[0-9]{1,12}")


def whole_number(value: str) -> int | None:
    """`value` as an int, or None when it is not a whole number in ASCII digits (Arabic-Indic
    or full-width digits are not numbers here, as in the API's JSON)."""
    value = value.strip()
    return int(value) if _WHOLE.fullmatch(value) else None
