"""The order forms of the admin read as the API reads its bodies: the fields typed become the
JSON body of `POST /orders`, `PATCH /orders/{id}` or `/advance` and go through the same decode
(api/validation.py), so every refusal has the API's words (a garment's in people's words,
api/admin/item_forms.py); a field's error is shown beside the field that was typed.
Also the small formatting the order pages share."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import msgspec

from api.admin import item_forms, ship_to_forms
from api.admin.forms import sentence, text, whole_number
from api.admin.item_errors import shown_item_errors
from api.validation import decode_body
from models import clock
from models import money as amounts
from models.errors import InvalidFields, normalise_newlines
from models.filters import MAX_ID
from models.garments import NewItem
from models.orders.editing import KEEP, Keep, OrderEdit
from models.orders.garment_options import OrderContent
from models.orders.item_reads import ItemView, as_new_item
from models.orders.lines import NewLine, local_midnight
from models.schemas.orders import (
    MAX_UNIT_PRICE_CENTS,
    AdvanceRequest,
    OrderCreate,
    OrderUpdate,
)
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
PRICE_TOO_HIGH = f"must be at most {MAX_UNIT_PRICE_CENTS // 100:,}.00"
STAGE_NAMES = {
    "artwork": "Artwork",
    "print_queue": "Print queue",
    "in_production": "In production",
    "qc_pack": "QC & pack",
    "dispatched": "Dispatched",
    "cancelled": "Cancelled",
}
# The form field an API error key belongs to (`lines.N.…` keys are mapped by `_field`), and
# each field as a sentence names it (the labels of templates/_order_form.html).
FORM_FIELDS = {"customer_id": "customer"}
ORDER_LABELS = {
    "customer": "the customer",
    "due_by": "the due date",
    "external_ref": "your reference",
    "notes": "the notes",
    "lines": "the lines",
    "prices_include_tax": "Prices include tax",
}
LINE_LABELS = {
    "description": "the description",
    "sku": "the SKU",
    "quantity": "the quantity",
    "unit_price": "the unit price",
}
NO_CONTENT = "Add a garment or a line: an order needs at least one."
# "Prices include tax" is a checkbox after a hidden field of the same name: "1" ticked, "0" not
# (the last value sent wins), nothing when the form did not have it (the workspace's default).
PRICES_INCLUDE_TAX = "prices_include_tax"
TAX_FLAGS = {"1": True, "0": False}
# A due date before today is saved on a second click: the form comes back with a warning and
# this field holding the date confirmed (another date typed asks again).
CONFIRM_DUE_BY = "confirm_due_by"
PAST_DUE = "The due date {day} is in the past. Save anyway?"
T = TypeVar("T")


# --- creating an order ---------------------------------------------------------------------------


def typed_order(fields: dict[str, Any]) -> dict[str, Any]:
    """What was typed, to show again: the fields, each garment and each line that has anything
    in it (in the order of their numbers), one empty line when none has."""
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
    items, unread_items = item_forms.typed_items(fields)
    return {
        "customer": text(fields, "customer").strip(),
        "due_by": text(fields, "due_by").strip(),
        "external_ref": text(fields, "external_ref").strip(),
        "notes": text(fields, "notes").strip(),
        "revision": text(fields, "revision").strip(),
        "confirm_due_by": text(fields, CONFIRM_DUE_BY).strip(),
        PRICES_INCLUDE_TAX: text(fields, PRICES_INCLUDE_TAX).strip(),
        "lines": lines or [empty_line(0)],
        "items": items,
        "unread": [name for name in unread if text(fields, name).strip()],
        "unread_items": unread_items,
        **ship_to_forms.typed(fields),
    }


def filled(typed: dict[str, Any]) -> dict[str, Any]:
    """The typed order as a save takes it: empty garment and imprint rows left out."""
    return {**typed, "items": item_forms.filled_rows(typed["items"])}


def empty_line(number: int) -> dict[str, Any]:
    return {"number": number, **dict.fromkeys(LINE_PARTS, "")}


def typed_edit(content: OrderContent, timezone: str) -> dict[str, Any]:
    """An order as its edit form starts: its fields, garments and plain lines as typed."""
    order = content.order
    return {
        "customer": str(order.customer_id),
        "due_by": Shown(timezone).day(order.due_by) if order.due_by is not None else "",
        "external_ref": order.external_ref or "",
        "notes": order.notes,
        "revision": str(order.revision),
        "confirm_due_by": "",
        PRICES_INCLUDE_TAX: "1" if order.prices_include_tax else "0",
        "lines": [
            {
                "number": number,
                "description": line.description,
                "sku": line.sku or "",
                "quantity": str(line.quantity),
                "unit_price": item_forms.major(line.unit_price_cents),
            }
            for number, line in enumerate(content.lines)
        ]
        or [empty_line(0)],
        "items": item_forms.items_typed_from(content.items),
        "unread": [],
        "unread_items": [],
        **ship_to_forms.typed_from_order(order.ship_to),
    }


def after_action(action: str, typed: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The form after one of its row buttons (`action`): what was typed plus or minus one
    garment, imprint or line, or the garments' sizes shown again; and the field to put the
    cursor in (the new row's first, the sizes shown)."""
    lines = [line for line in typed["lines"] if _filled(line)] or [empty_line(0)]
    items = typed["items"] or [item_forms.empty_item(0)]
    focus: str | None = None
    if action == item_forms.ADD_LINE:
        number = max(line["number"] for line in lines) + 1
        lines = [*lines, empty_line(number)]
        focus = f"lines-{number}-description"
    elif found := item_forms.REFRESH_ACTION.fullmatch(action):
        focus = f"items-{found[2]}-q0" if found[1] == "refresh" and found[2] else None
    else:
        changed = item_forms.apply_action(action, items)
        if changed is not None:
            focus = item_forms.focus_after(action, items, changed)
            items = changed
    return {**typed, "lines": lines, "items": items}, focus


def _filled(line: dict[str, Any]) -> bool:
    return any(line[part] for part in LINE_PARTS)


def _number_or_text(value: str) -> int | str:
    """A whole number as the API's JSON would carry it (so `-2` is "at least 1", not "not an
    integer"), anything else as the text typed."""
    number = whole_number(value)
    return value if number is None else number


def _content(typed: dict[str, Any], body: dict[str, Any], currency: str) -> dict[str, list[str]]:
    """The typed garments and lines into `body` as the API takes them; returns the errors
    found reading them (amounts in `currency`, fields no page numbers), keyed as the API's."""
    body["lines"] = []
    own: dict[str, list[str]] = {}
    flag = typed.get(PRICES_INCLUDE_TAX, "")
    if flag:  # anything but "1" or "0" is the API's to refuse, in its words
        body[PRICES_INCLUDE_TAX] = TAX_FLAGS.get(flag, flag)
    if typed.get("unread"):
        own["lines"] = [UNREAD_LINES.format(names=", ".join(typed["unread"][:3]))]
    if typed.get("unread_items"):
        names = ", ".join(typed["unread_items"][:3])
        own["items"] = [item_forms.UNREAD_ITEMS.format(names=names)]
    for index, line in enumerate(line for line in typed["lines"] if _filled(line)):
        item: dict[str, Any] = {"description": line["description"]}
        if line["sku"]:
            item["sku"] = line["sku"]
        if line["quantity"]:
            item["quantity"] = _number_or_text(line["quantity"])
        if line["unit_price"]:
            cents = amounts.cents(line["unit_price"], currency)
            if cents is None or cents > MAX_UNIT_PRICE_CENTS:
                own[f"lines.{index}.unit_price"] = [
                    amounts.refusal(line["unit_price"], currency)
                    if cents is None
                    else PRICE_TOO_HIGH
                ]
                cents = 0  # refused here: the API's bound would say it again in minor units
            item["unit_price_cents"] = cents
        body["lines"].append(item)
    if typed["items"]:
        body["items"], item_errors = item_forms.item_bodies(typed["items"], currency)
        own.update(item_errors)
    return own


def _decoded(body: dict[str, Any], own: dict[str, list[str]], schema: type[T]) -> T:
    try:
        request = decode_body(msgspec.json.encode(body), schema)
    except InvalidFields as invalid:
        for key, messages in invalid.errors.items():
            own.setdefault(key, []).extend(messages)
        raise InvalidFields(own) from None
    if own:
        raise InvalidFields(own)
    return request


def order_request(typed: dict[str, Any], currency: str) -> OrderCreate:
    """The typed order as `POST /orders` would read it (amounts typed in the workspace's
    `currency`), or InvalidFields with the API's keys and words (`form_errors` shows them
    beside the form's fields)."""
    body: dict[str, Any] = {}
    if typed["customer"]:
        body["customer_id"] = _number_or_text(typed["customer"])
    for name in ("due_by", "external_ref", "notes"):
        if typed[name]:
            body[name] = typed[name]
    own = _content(typed, body, currency)
    ship_to_forms.add_to_body(typed, body, editing=False)
    if not typed["items"]:
        body.pop("items", None)
    return _decoded(body, own, OrderCreate)


def update_request(typed: dict[str, Any], currency: str) -> OrderUpdate:
    """The typed edit as `PATCH /orders/{id}` would read it: every field given (a blank due
    date or reference clears it), the garments and lines replacing the order's; amounts in
    the workspace's `currency`."""
    body: dict[str, Any] = {
        "due_by": typed["due_by"] or None,
        "external_ref": typed["external_ref"] or None,
        "notes": typed["notes"],
    }
    own = _content(typed, body, currency)
    ship_to_forms.add_to_body(typed, body, editing=True)
    body.setdefault("items", [])
    return _decoded(body, own, OrderUpdate)


def expected_revision(typed: dict[str, Any]) -> int | None:
    """The revision the edit form was opened at (None when the field was lost or altered:
    the edit then checks nothing, as a PATCH without If-Match)."""
    number = whole_number(typed["revision"])
    return number if number is not None and 0 < number <= MAX_ID else None


def only_changes(edit: OrderEdit, content: OrderContent, timezone: str) -> OrderEdit:
    """The edit without the parts the form sent back as they were: an order past the stages
    where its content may change still takes a new due date or notes, and saving an
    unchanged form changes nothing (no new revision)."""
    order = content.order
    due_before = order.due_by and when(order.due_by).astimezone(ZoneInfo(timezone)).date()
    kept_lines = [
        NewLine(line.description, line.quantity, line.unit_price_cents, line.sku)
        for line in content.lines
    ]
    return replace(
        edit,
        due_by=KEEP if edit.due_by == (due_before or None) else edit.due_by,
        notes=KEEP if _same_notes(edit.notes, order.notes) else edit.notes,
        external_ref=KEEP if edit.external_ref == order.external_ref else edit.external_ref,
        prices_include_tax=KEEP
        if edit.prices_include_tax == bool(order.prices_include_tax)
        else edit.prices_include_tax,
        lines=None if edit.lines is None or list(edit.lines) == kept_lines else edit.lines,
        items=None if edit.items is None or _same_items(edit.items, content.items) else edit.items,
        ship_to=KEEP if ship_to_forms.same(edit.ship_to, order.ship_to) else edit.ship_to,
    )


def _same_notes(typed: str | Keep, stored: str) -> bool:
    """Notes come back from a browser with CR LF line breaks and without the outer spaces."""
    return isinstance(typed, str) and normalise_newlines(typed).strip() == stored.strip()


def _same_items(new: Sequence[NewItem], views: Sequence[ItemView]) -> bool:
    def garment(item: NewItem) -> tuple[Any, ...]:
        ordered = {label.casefold(): qty for label, qty in item.sizes if qty}
        extra = {label.casefold(): cents for label, cents in item.size_upcharges_cents if cents}
        return (item.style, item.colour, item.description, item.unit_price_cents,
                ordered, extra, item.imprints)  # fmt: skip

    return len(new) == len(views) and all(
        garment(item) == garment(as_new_item(view)) for item, view in zip(new, views, strict=True)
    )


def form_errors(errors: dict[str, list[str]], typed: dict[str, Any]) -> dict[str, list[str]]:
    """API error keys as the typed form's fields, each message naming the field as the form
    labels it: `lines.0.unit_price_cents` as `lines-3-unit_price`, "Line 1: the unit price is
    required." (api/admin/forms.py), `items.0.imprints.1.colours` as
    `items-0-imprints-1-colours` (api/admin/item_errors.py)."""
    numbers = [line["number"] for line in typed["lines"] if _filled(line)]
    shown = shown_item_errors(errors, typed["items"]) | ship_to_forms.shown_errors(errors)
    for key, messages in errors.items():
        if key == "items" or key.startswith("items.") or ship_to_forms.is_ship_to_key(key):
            continue
        field, where, label = _field(key, numbers)
        words = (NO_CONTENT if key == "lines" and _no_content(message) else
                 sentence(key, message, label, where) for message in messages)  # fmt: skip
        shown.setdefault(field, []).extend(words)
    return shown


def _no_content(message: str) -> bool:
    return message in ("The lines field is required.", "The lines field must have at least 1 line.")


def _field(key: str, numbers: list[int]) -> tuple[str, str, str | None]:
    """The form field an API key is about, where it is ("Line 2") and its label."""
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == "lines" and parts[1].isdigit():
        index = int(parts[1])
        number = numbers[index] if index < len(numbers) else index
        part = parts[2].removesuffix("_cents")
        return f"lines-{number}-{part}", f"Line {index + 1}", LINE_LABELS.get(part, part)
    if len(parts) == 2 and parts[0] == "lines" and parts[1].isdigit():
        return "lines", f"Line {int(parts[1]) + 1}", None
    name = FORM_FIELDS.get(key, key)
    return name, "", ORDER_LABELS.get(name)


def unconfirmed_past_due(
    typed: dict[str, Any], due_by: dt.date | Keep | None, timezone: str
) -> dt.date | None:
    """`due_by` when it is a day before today in the workspace's zone and the form has not
    confirmed that very date yet (a due date in the past needs a second click)."""
    if not isinstance(due_by, dt.date) or due_by >= today(timezone).date():
        return None
    return None if typed.get("confirm_due_by") == due_by.isoformat() else due_by


def past_due_warning(day: dt.date) -> str:
    """The warning, e.g. "The due date 3 Nov 2026 is in the past. Save anyway?"."""
    return PAST_DUE.format(day=f"{day.day} {day:%b %Y}")


# --- moving an order -----------------------------------------------------------------------------


def typed_move(fields: dict[str, Any]) -> dict[str, str]:
    return {name: text(fields, name).strip() for name in ("to_stage", "carrier", "tracking_number")}


MOVE_LABELS = {"to_stage": "Move to", "carrier": "Carrier", "tracking_number": "Tracking number"}


def move_request(typed: dict[str, str]) -> AdvanceRequest:
    """The move as `POST /orders/{id}/advance` would read it (empty fields are left out); its
    refusals name the form's fields ("Carrier goes with a move to Dispatched …")."""
    body = {name: value for name, value in typed.items() if value}
    try:
        return decode_body(msgspec.json.encode(body), AdvanceRequest)
    except InvalidFields as invalid:
        if body.get("to_stage") in SEQUENCE and body["to_stage"] != "dispatched":
            raise InvalidFields({
                name: [f"{MOVE_LABELS[name]} goes with a move to Dispatched: choose Dispatched, "
                       "or clear it."]
                for name in invalid.errors
            }) from None  # fmt: skip
        raise InvalidFields({
            name: [sentence(name, message, MOVE_LABELS.get(name)) for message in messages]
            for name, messages in invalid.errors.items()
        }) from None  # fmt: skip


# --- showing orders ------------------------------------------------------------------------------


def today(timezone: str) -> dt.datetime:
    """00:00 of today in the workspace's zone, as due dates are stored."""
    return local_midnight(clock.now().astimezone(ZoneInfo(timezone)).date(), timezone)


def money(cents: int | None, currency: str) -> str:
    """`123456` GBP → `1,234.56 GBP`: amounts in major units, as people type them; — for none.
    Every admin page shows money through this, and every email (models/money.py)."""
    return amounts.shown(cents, currency)


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
