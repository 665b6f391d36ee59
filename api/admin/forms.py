"""Reading the admin's forms: text fields as typed, so a refused form comes back filled in; and
their refusals in people's words (`in_words`): every message names the field as the form labels
it, never the API's or the domain's key."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from litestar import Request

from api.admin.form_data import read_form
from api.admin.security import CSRF_FIELD
from models import numbers


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


def whole_number(value: str) -> int | None:
    """`value` as an int (`6000`, `6,000`, `6 000`), or None when it is not a whole number as
    people type one (models/numbers.py, the one reading of every whole-number field)."""
    return numbers.whole_number(value)


def percent(value: str) -> str:
    """A typed percentage as the domain reads it (`17,5` → `17.5`; models/numbers.py)."""
    return numbers.percent_text(value)


# --- refusals in people's words -----------------------------------------------------------------

# The validation's machine wording (api/validation.py, the domain's checks) as people say it.
_PLAIN: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"must be an integer"), "must be a whole number, e.g. 2"),
    (re.compile(r"must be a valid date in the format YYYY-MM-DD"),
     "must be a date, e.g. 2026-12-24"),
    (re.compile(r"must not be greater than ([0-9]+) characters"), r"must be at most \1 characters"),
    (re.compile(r"must not be greater than ([0-9]+)"), r"must be at most \1"),
    (re.compile(r"must be one of [a-z0-9_*.]+(?:, [a-z0-9_*.]+)+"),
     "must be one of the choices offered"),
    (re.compile(r"must be (?:a string|an array|an object|true or false)"), "could not be read"),
)  # fmt: skip


# A message that says what its field must be, without naming it ("must not be blank").
_FRAGMENT = re.compile(
    r"(?:must|is|are|does|do|needs|can|cannot|could|has|have|should|may|was|already)\b"
)


def plain(words: str) -> str:
    """`words` with the validation's machine phrases ("must be an integer") as people say them."""
    for pattern, said in _PLAIN:
        words = pattern.sub(said, words)
    return words


def sentence(key: str, message: str, label: str | None, where: str = "") -> str:
    """One refusal about the field keyed `key` as a sentence naming it by `label` (the form's
    words for it, as a sentence says them: "the unit price"), after `where` when the form has
    many of its kind ("Line 1"): the API's "The lines.0.unit_price_cents field is required." as
    "Line 1: the unit price is required."; the domain's "must not be blank" as "The name must
    not be blank."; a sentence of its own ("Type an amount like …") after where and the label
    ("Line 1, the unit price: Type …")."""
    rest = None
    for said in (f"The {key} field ", f"The {key} parameter "):
        if message.startswith(said):
            rest = message[len(said) :]
    if message.startswith(f"The selected {key} is invalid;"):  # a choice the page offers
        rest = "must be one of the choices offered."
    elif message == f"The selected {key} is invalid.":  # a record the workspace does not have
        rest = "is not one this workspace has."
    elif rest is None and _FRAGMENT.match(message):  # the domain's "must not be blank"
        rest = message
    if rest is not None:
        said = f"{label or 'it'} {plain(rest).rstrip('.')}."
        return f"{where}: {said}" if where else _capital(said)
    if label and where:
        where = f"{where}, {label[:1].lower()}{label[1:]}"
    elif label and not _names(message, label):
        where = _capital(label)
    return f"{where}: {message}" if where else _capital(message)


def _capital(words: str) -> str:
    return words[:1].upper() + words[1:]


def _names(message: str, label: str) -> bool:
    """The message already names the field ("Type the amount received.")."""
    return label.removeprefix("the ").casefold() in message.casefold()


def in_words(
    errors: Mapping[str, list[str]],
    labels: Mapping[str, str],
    fields: Mapping[str, str] | None = None,
) -> dict[str, list[str]]:
    """Field errors keyed as the domain or the API keys them, as the form's fields (`fields`
    maps a key to its field's name; the key itself by default), each message a sentence naming
    the field by its label (`labels`, by field name; see `sentence`)."""
    shown: dict[str, list[str]] = {}
    for key, messages in errors.items():
        name = (fields or {}).get(key, key)
        label = labels.get(name)
        shown.setdefault(name, []).extend(sentence(key, message, label) for message in messages)
    return shown
