"""The order forms of the admin read as the API reads its bodies: the fields typed become the
JSON body of `POST /orders` or `/advance` and go through the same decode (api/validation.py),
so every refusal has the API's words; a field's error is shown beside the field that was typed.
Also the small formatting the order pages share."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any
from zoneinfo import ZoneInfo

import msgspec

from api.admin.forms import text, whole_number
from api.validation import decode_body
from models import clock
from models import money as amounts
from models.errors import InvalidFields
from models.orders.lines import local_midnight
from models.schemas.orders import MAX_UNIT_PRICE_CENTS, AdvanceRequest, OrderCreate
from models.stages import OPEN, SEQUENCE
from models.statements import when

LINE_PARTS = ("description", "sku", "quantity", "unit_price")
# A line's fields are `lines-<number>-<part>`; numbers only order the lines (the page numbers
# new ones after the highest), up to six digits. A field named for a line's part whose number
# is not one of these is refused, never left out silently.
LINE_FIELD = re.compile(r"lines-(0|[1-9][0-9]{0,5})-(description|sku|quantity|unit_price)")
ANY_LINE_FIELD = re.compile(r"lines-.*-(description|sku|quantity|unit_price)", re.DOTALL)
UNREAD_LINES = (
    "A line could not be read: its fields are numbered past what this page sends "
    "({names}). Reload the page and add the line again."
)
PRICE_MESSAGE = amounts.REFUSED
PRICE_TOO_HIGH = f"The unit price must be at most {MAX_UNIT_PRICE_CENTS // 100:,}.00."
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
        {int(found[1]) for name in fields if (found := LINE_FIELD.fullmatch(name))}
    )  # fmt: skip
    unread = sorted(
        name for name in fields if ANY_LINE_FIELD.fullmatch(name) and not LINE_FIELD.fullmatch(name)
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
        "unread": [name for name in unread if text(fields, name).strip()],
    }


def _filled(line: dict[str, Any]) -> bool:
    return any(line[part] for part in LINE_PARTS)


def _number_or_text(value: str) -> int | str:
    """A whole number as the API's JSON would carry it (so `-2` is "at least 1", not "not an
    integer"), anything else as the text typed."""
    number = whole_number(value)
    return value if number is None else number


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
    if typed.get("unread"):
        own["lines"] = [UNREAD_LINES.format(names=", ".join(typed["unread"][:3]))]
    for index, line in enumerate(line for line in typed["lines"] if _filled(line)):
        item: dict[str, Any] = {"description": line["description"]}
        if line["sku"]:
            item["sku"] = line["sku"]
        if line["quantity"]:
            item["quantity"] = _number_or_text(line["quantity"])
        if line["unit_price"]:
            cents = amounts.cents(line["unit_price"])
            if cents is None or cents > MAX_UNIT_PRICE_CENTS:
                own[f"lines.{index}.unit_price"] = [
                    PRICE_MESSAGE if cents is None else PRICE_TOO_HIGH
                ]
                cents = 0  # refused here: the API's bound would say it again in minor units
            item["unit_price_cents"] = cents
        body["lines"].append(item)
    try:
        request = decode_body(msgspec.json.encode(body), OrderCreate)
    except InvalidFields as invalid:
        for key, messages in invalid.errors.items():
            own.setdefault(key, []).extend(messages)
        raise InvalidFields(own) from None
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
    return local_midnight(clock.now().astimezone(ZoneInfo(timezone)).date(), timezone)


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
