"""The order forms of the admin read as the API reads its bodies: the fields typed become the
JSON body of `POST /orders` or `/advance` and go through the same decode (api/validation.py),
so every refusal has the API's words; a field's error is shown beside the field that was typed.
Also the small formatting the order pages share."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from typing import Any
from zoneinfo import ZoneInfo

import msgspec

from api.admin.forms import text
from api.validation import decode_body
from models import clock, orders
from models.errors import InvalidFields
from models.queries.order_pages import OPEN
from models.schemas.orders import AdvanceRequest, OrderCreate
from models.stages import SEQUENCE
from models.statements import when

LINE_FIELD = re.compile(r"^lines-(\d{1,3})-(description|sku|quantity|unit_price)$")
LINE_PARTS = ("description", "sku", "quantity", "unit_price")
PRICE = re.compile(r"^\d{1,9}(\.\d{1,2})?$")
PRICE_MESSAGE = "Enter the unit price as an amount with at most two decimals, e.g. 4.50."
STAGE_NAMES = {
    "artwork": "Artwork",
    "print_queue": "Print queue",
    "in_production": "In production",
    "qc_pack": "QC & pack",
    "dispatched": "Dispatched",
    "cancelled": "Cancelled",
}
# The form field an API error key belongs to (`lines.N.…` keys are mapped by `_field`).
FORM_FIELDS = {"customer_id": "customer"}


# --- creating an order ---------------------------------------------------------------------------


def typed_order(fields: dict[str, Any]) -> dict[str, Any]:
    """What was typed, to show again: the fields and each line that has anything in it (in
    the order of their numbers), one empty line when none has."""
    numbers = sorted(
        {int(found[1]) for name in fields if (found := LINE_FIELD.match(name))}
    )  # fmt: skip
    lines = []
    for number in numbers:
        line = {part: text(fields, f"lines-{number}-{part}").strip() for part in LINE_PARTS}
        if any(line.values()):
            lines.append({"number": number, **line})
    return {
        "customer": text(fields, "customer").strip(),
        "due_by": text(fields, "due_by").strip(),
        "external_ref": text(fields, "external_ref").strip(),
        "lines": lines or [{"number": 0, **dict.fromkeys(LINE_PARTS, "")}],
    }


def _filled(line: dict[str, Any]) -> bool:
    return any(line[part] for part in LINE_PARTS)


def _number_or_text(value: str) -> int | str:
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 12 else value


def _cents(value: str) -> int | None:
    """`4.50` (or `4.5`, `4`, `1,204.50`) in minor units; None when it is not such an amount."""
    value = value.replace(",", "")
    if not PRICE.match(value):
        return None
    try:
        return int(Decimal(value) * 100)
    except InvalidOperation:
        return None


def order_request(typed: dict[str, Any]) -> OrderCreate:
    """The typed order as `POST /orders` would read it, or InvalidFields with the API's keys
    and words (`form_errors` shows them beside the form's fields)."""
    body: dict[str, Any] = {"lines": []}
    if typed["customer"]:
        body["customer_id"] = _number_or_text(typed["customer"])
    for name in ("due_by", "external_ref"):
        if typed[name]:
            body[name] = typed[name]
    own: dict[str, list[str]] = {}
    for index, line in enumerate(line for line in typed["lines"] if _filled(line)):
        item: dict[str, Any] = {"description": line["description"]}
        if line["sku"]:
            item["sku"] = line["sku"]
        if line["quantity"]:
            item["quantity"] = _number_or_text(line["quantity"])
        if line["unit_price"]:
            cents = _cents(line["unit_price"])
            if cents is None:
                own[f"lines.{index}.unit_price"] = [PRICE_MESSAGE]
            item["unit_price_cents"] = cents or 0
        body["lines"].append(item)
    try:
        request = decode_body(msgspec.json.encode(body), OrderCreate)
    except InvalidFields as invalid:
        raise InvalidFields({**own, **invalid.errors}) from None
    if own:
        raise InvalidFields(own)
    return request


def form_errors(errors: dict[str, list[str]], typed: dict[str, Any]) -> dict[str, list[str]]:
    """API error keys (`lines.0.unit_price_cents`) as the typed form's fields
    (`lines-3-unit_price`); the messages are the API's own."""
    numbers = [line["number"] for line in typed["lines"] if _filled(line)]
    shown: dict[str, list[str]] = {}
    for key, messages in errors.items():
        shown.setdefault(_field(key, numbers), []).extend(messages)
    return shown


def _field(key: str, numbers: list[int]) -> str:
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == "lines" and parts[1].isdigit():
        index = int(parts[1])
        number = numbers[index] if index < len(numbers) else index
        return f"lines-{number}-{parts[2].removesuffix('_cents')}"
    return FORM_FIELDS.get(key, key)


# --- moving an order -----------------------------------------------------------------------------


def typed_move(fields: dict[str, Any]) -> dict[str, str]:
    return {name: text(fields, name).strip() for name in ("to_stage", "carrier", "tracking_number")}


def move_request(typed: dict[str, str]) -> AdvanceRequest:
    """The move as `POST /orders/{id}/advance` would read it (empty fields are left out)."""
    body = {name: value for name, value in typed.items() if value}
    return decode_body(msgspec.json.encode(body), AdvanceRequest)


# --- showing orders ------------------------------------------------------------------------------


def today(timezone: str) -> dt.datetime:
    """00:00 of today in the workspace's zone, as due dates are stored."""
    return orders.local_midnight(clock.now().astimezone(ZoneInfo(timezone)).date(), timezone)


def money(cents: int | None, currency: str) -> str:
    """`123456` GBP → `1,234.56 GBP`: amounts in major units, as people type them (integer
    arithmetic, so exact at any size); — for none. Every admin page shows money through this."""
    if cents is None:
        return "—"
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100:,}.{abs(cents) % 100:02d} {currency}"


class Shown:
    """Formatting for the order templates, in the workspace's zone (passed as `shown`)."""

    def __init__(self, timezone: str) -> None:
        self.timezone = timezone
        self.today = today(timezone)

    def day(self, value: Any) -> str:
        if value is None:
            return "—"
        return f"{when(value).astimezone(ZoneInfo(self.timezone)):%Y-%m-%d}"

    def overdue(self, stage: str, due_by: Any) -> bool:
        return due_by is not None and stage in OPEN and when(due_by) < self.today

    money = staticmethod(money)

    @staticmethod
    def stage(code: str | None) -> str:
        return "—" if code is None else STAGE_NAMES.get(code, code)

    @staticmethod
    def next_stage(code: str) -> str | None:
        """The stage after `code` in production, None for a finished order."""
        return SEQUENCE[SEQUENCE.index(code) + 1] if code in OPEN else None

    @staticmethod
    def actor(move: Any) -> str:
        """Who made a change (a stage move, a stock movement: models/actors.py): the staff
        member, "API token <name>", or "operator"."""
        if move.actor_kind == "user":
            return move.user_name or "a former member"
        if move.actor_kind == "token":
            return f"API token {move.token_name}" if move.token_name else "an API token"
        return "operator"
