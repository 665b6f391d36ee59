"""An order's ship-to on the admin's order forms (templates/_ship_to_fields.html): one of the
customer's addresses, one typed, or — editing — the order's own copy kept or removed. What
is chosen becomes the API's body (`ship_to_address_id`, or `ship_to` with the typed fields,
or `ship_to: null`), so models/orders/ship_to.py's rules and words refuse it, shown beside
the form's fields.

The choice is the radio `ship_to`: an address's id, `typed` (the fields `ship_to-line1` …,
api/admin/address_forms.py), `keep` (editing: as the order has it) or `none` (editing: no
ship-to). On the new-order form nothing chosen is the API's own default: the customer's
default address, when it has one; the form starts with that address chosen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api.admin import address_forms
from api.admin.forms import sentence, text, whole_number
from models.customers.pages import customer_addresses
from models.customers.queries import AddressRow
from models.filters import MAX_ID
from models.orders import ship_to as rules
from models.orders.editing import Keep

CHOICE = "ship_to"
PREFIX = "ship_to-"
TYPED = "typed"
KEEP = "keep"
NONE = "none"
ACTION = "ship_to"  # the form's button (and script) asking for the chosen customer's addresses
CHOICE_LABEL = "the ship-to address"
NOT_THEIRS = "Choose one of this customer's addresses, or type one."


def typed(fields: dict[str, Any]) -> dict[str, Any]:
    """The ship-to as typed: the choice and the typed address (its fields without the label)."""
    address = address_forms.typed_address(fields, PREFIX)
    return {
        CHOICE: text(fields, CHOICE).strip(),
        "ship_to_address": {name: address[name] for name in rules.FIELDS},
    }


def typed_from_order(stored: str | dict[str, str] | None) -> dict[str, Any]:
    """An order's ship-to as its edit form starts: kept, the typed fields filled with it."""
    current = rules.decode(stored) or {}
    return {CHOICE: KEEP, "ship_to_address": {name: current.get(name, "") for name in rules.FIELDS}}


def add_to_body(typed_order: dict[str, Any], body: dict[str, Any], *, editing: bool) -> None:
    """The chosen ship-to into the API body: an address's id, the typed address (every field:
    on an edit, the whole address replaces the order's), or, editing, null to remove it."""
    choice = typed_order.get(CHOICE, "")
    if choice == TYPED:
        body["ship_to"] = dict(typed_order["ship_to_address"])
    elif choice == NONE and editing:
        body["ship_to"] = None
    elif choice not in ("", KEEP, NONE):
        number = whole_number(choice)
        body["ship_to_address_id"] = number if number is not None else choice


def without_choice(typed_order: dict[str, Any]) -> dict[str, Any]:
    """The form without its ship-to (the running total: an address does not change a price)."""
    return {**typed_order, CHOICE: KEEP}


def same(patch: Any, stored: str | dict[str, str] | None) -> bool:
    """Nothing to change: the ship-to not given (KEEP), a typed address (the edit's
    AddressPatch naming every field) equal to the order's copy, or none asked where there is
    none."""
    if isinstance(patch, Keep):
        return True
    current = rules.decode(stored)
    if patch is None:
        return current is None
    values = getattr(patch, "values", None)
    if values is None or current is None:
        return False
    return all(
        (values.get(name) or "").strip() == (current.get(name) or "").strip()
        for name in rules.FIELDS
    )


def shown_errors(errors: dict[str, list[str]]) -> dict[str, list[str]]:
    """The API's ship-to keys as the form's fields: `ship_to.city` as `ship_to-city` ("The
    town or city must not be blank."), `ship_to_address_id` as the choice."""
    shown: dict[str, list[str]] = {}
    for key, messages in errors.items():
        if key.startswith(f"{CHOICE}."):
            name = key.removeprefix(f"{CHOICE}.")
            label = address_forms.LABELS.get(name, name)
            field = f"{PREFIX}{name}"
            words = [sentence(key, message, label) for message in messages]
        elif key == "ship_to_address_id":
            field, words = CHOICE, [NOT_THEIRS]
        elif key == CHOICE:
            field = CHOICE
            words = [sentence(key, message, CHOICE_LABEL) for message in messages]
        else:
            continue
        shown.setdefault(field, []).extend(words)
    return shown


def is_ship_to_key(key: str) -> bool:
    return key in (CHOICE, "ship_to_address_id") or key.startswith(f"{CHOICE}.")


@dataclass(frozen=True)
class Choices:
    """What the form's ship-to shows: the customer's addresses, which one is chosen, and (on
    the edit form) the order's own copy."""

    customer_chosen: bool
    addresses: list[AddressRow]
    chosen: str
    editing: bool
    current: dict[str, str] | None  # the order's copy (edit form)
    address: dict[str, str]  # the typed fields


async def choices(
    workspace_id: int,
    typed_order: dict[str, Any],
    *,
    editing: bool = False,
    current: str | dict[str, str] | None = None,
) -> Choices:
    """The chosen customer's addresses (none while no customer is chosen) and the choice to
    show: as typed when it is still one the form offers, else the default address (new form)
    or the order's own copy, `current` (edit form)."""
    customer = whole_number(typed_order.get("customer", ""))
    known = customer is not None and 0 < customer <= MAX_ID
    rows = await customer_addresses(workspace_id, customer) if known and customer else []
    offered = {str(row.id) for row in rows} | {TYPED} | ({KEEP, NONE} if editing else set())
    chosen = typed_order.get(CHOICE, "")
    if chosen not in offered:
        default = next((str(row.id) for row in rows if row.is_default), "")
        chosen = KEEP if editing else default
    return Choices(
        customer_chosen=known,
        addresses=rows,
        chosen=chosen,
        editing=editing,
        current=rules.decode(current),
        address=typed_order.get("ship_to_address") or dict.fromkeys(rules.FIELDS, ""),
    )
