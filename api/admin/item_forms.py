"""Garments on the admin's order forms: their fields as typed, the buttons that
add and remove rows without losing anything typed (the page comes back with the form as it was,
plus or minus one row: no script needed), the size columns each garment shows, and the API
body they become (its error keys as the form's fields and sentences: api/admin/item_errors.py).

Field names: `items-{i}-style|colour|description|unit_price|other_size|other_quantity`,
`items-{i}-size-{SIZE}`, `items-{i}-upcharge-{SIZE}` and
`items-{i}-imprints-{j}-location|method|colours|colour_names|stitches|width_mm|height_mm|
unit_price|setup|design|notes`. Numbers only order the rows (the page numbers new ones after the
highest), up to six digits; a garment field the page could not have numbered is refused. A
price left empty is the price list's (models/pricing); a typed one (0 too) is kept as typed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from api.admin.forms import text, whole_number
from models import garments
from models import money as amounts
from models.orders import items as rules
from models.orders.garment_options import SizeOption
from models.orders.item_reads import ItemView
from models.schemas.items import MAX_CENTS_GIVEN

ITEM_PARTS = ("style", "colour", "description", "unit_price", "other_size", "other_quantity")
IMPRINT_PARTS = (
    "location", "method", "colours", "colour_names", "stitches", "width_mm", "height_mm",
    "unit_price", "setup", "design", "notes",
)  # fmt: skip
_NUMBER = "(0|[1-9][0-9]{0,5})"
ITEM_FIELD = re.compile(rf"items-{_NUMBER}-({'|'.join(ITEM_PARTS)})")
SIZE_FIELD = re.compile(rf"items-{_NUMBER}-(size|upcharge)-(.+)", re.DOTALL)
IMPRINT_FIELD = re.compile(rf"items-{_NUMBER}-imprints-{_NUMBER}-({'|'.join(IMPRINT_PARTS)})")
ANY_ITEM_FIELD = re.compile(r"items-.*", re.DOTALL)
UNREAD_ITEMS = (
    "A garment could not be read: its fields are numbered past what this page sends "
    "({names}). Reload the page and add the garment again."
)
PRICE_TOO_HIGH = f"must be at most {MAX_CENTS_GIVEN // 100:,}.00"
OTHER_SIZE_UNNAMED = "Name the other size (e.g. OSFA) beside its quantity."
OTHER_SIZE_TAKEN = "{size} has a box of its own: type its quantity there."

# What the buttons of the forms ask for, besides saving (`action`): each re-renders the form.
ADD_ITEM, ADD_LINE = "add_item", "add_line"
# The sizes shown again: `refresh-N` (a button: the cursor goes to the first size) or
# `sizes-N` (the style or colour changed, with script: the cursor stays where it is).
REFRESH_ACTION = re.compile(rf"(refresh|sizes)(?:-{_NUMBER})?")
_ROW_ACTION = re.compile(
    rf"(?:(add_imprint|remove_item)-{_NUMBER}|remove_imprint-{_NUMBER}-{_NUMBER})"
)

# --- what was typed --------------------------------------------------------------------------


def typed_items(fields: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """Each garment the form sent (in the order of their numbers), its imprints likewise, empty
    rows too (a row just added stays while other buttons are pressed; saving leaves empty rows
    out: `filled_rows`); and the garment fields that no page numbers (to be refused, never
    dropped)."""
    garments: dict[int, dict[str, Any]] = {}

    def garment(number: int) -> dict[str, Any]:
        if number not in garments:
            garments[number] = {
                "number": number, **dict.fromkeys(ITEM_PARTS, ""), "sizes": {}, "upcharges": {},
                "imprints": {},
            }  # fmt: skip
        return garments[number]

    unread = []
    for name in fields:
        value = text(fields, name).strip()
        if found := ITEM_FIELD.fullmatch(name):
            garment(int(found[1]))[found[2]] = value
        elif found := IMPRINT_FIELD.fullmatch(name):
            imprints = garment(int(found[1]))["imprints"]
            imprint = imprints.setdefault(
                int(found[2]), {"number": int(found[2]), **dict.fromkeys(IMPRINT_PARTS, "")}
            )
            imprint[found[3]] = value
        elif found := SIZE_FIELD.fullmatch(name):
            label = found[3].strip()
            if label and value:
                where = "sizes" if found[2] == "size" else "upcharges"
                garment(int(found[1]))[where][label] = value
        elif ANY_ITEM_FIELD.fullmatch(name) and value:
            unread.append(name)
    typed = []
    for number in sorted(garments):
        item = garments[number]
        _fold_other_size(item)
        item["imprints"] = [imprint for _, imprint in sorted(item["imprints"].items())]
        typed.append(item)
    return typed, sorted(unread)


def filled_rows(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The garments with anything typed in them, each with its imprints that have: what a
    save sends (and shows again when refused, so each "Garment N" is the Nth shown)."""
    kept = []
    for item in items:
        imprints = [i for i in item["imprints"] if any(i[part] for part in IMPRINT_PARTS)]
        item = {**item, "imprints": imprints}
        if filled(item):
            kept.append(item)
    return kept


def _fold_other_size(item: dict[str, Any]) -> None:
    """A size typed in the "other size" box becomes a column of its own (or goes into its
    column when there is one and nothing is typed in it yet; else both stay as typed, and a
    save is refused: `item_bodies`)."""
    label = item["other_size"]
    if not label:
        return
    taken = any(size.casefold() == label.casefold() for size in item["sizes"])
    if not taken:
        item["sizes"][label] = item["other_quantity"] or "0"
        item["other_size"] = item["other_quantity"] = ""


def filled(item: dict[str, Any]) -> bool:
    return bool(
        any(item[part] for part in ITEM_PARTS)
        or item["sizes"]
        or item["upcharges"]
        or item["imprints"]
    )


def empty_item(number: int, *, with_imprint: bool = True) -> dict[str, Any]:
    """A new garment row (with one imprint row to fill, as most garments are printed)."""
    return {
        "number": number, **dict.fromkeys(ITEM_PARTS, ""), "sizes": {}, "upcharges": {},
        "imprints": [empty_imprint(0)] if with_imprint else [], "new": True,
    }  # fmt: skip


def empty_imprint(number: int) -> dict[str, Any]:
    return {"number": number, **dict.fromkeys(IMPRINT_PARTS, ""), "new": True}


def apply_action(action: str, items: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The garments once a row button (`add_item`, `add_imprint-N`, `remove_item-N`,
    `remove_imprint-N-M`) has acted; None for an action that is not one of these."""
    if action == ADD_ITEM:
        if len(items) >= garments.MAX_ITEMS:
            return list(items)
        return [*items, empty_item(max((i["number"] for i in items), default=-1) + 1)]
    found = _ROW_ACTION.fullmatch(action)
    if found is None:
        return None
    kind, number = found[1], int(found[2] or found[3])
    if kind == "remove_item":
        return [item for item in items if item["number"] != number]
    changed = []
    for item in items:
        if item["number"] == number:
            imprints = item["imprints"]
            if kind == "add_imprint":
                if len(imprints) < garments.MAX_IMPRINTS:
                    next_number = max((i["number"] for i in imprints), default=-1) + 1
                    imprints = [*imprints, empty_imprint(next_number)]
            else:
                imprints = [i for i in imprints if i["number"] != int(found[4])]
            item = {**item, "imprints": imprints}
        changed.append(item)
    return changed


def focus_after(
    action: str, before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]
) -> str | None:
    """Where the cursor goes once a row button has acted: the new row's first field, else the
    button that adds such a row again."""
    if action == ADD_ITEM:
        added = after[-1]
        return f"items-{added['number']}-style" if len(after) > len(before) else "add-item"
    found = _ROW_ACTION.fullmatch(action)
    if found is None:
        return None
    if found[1] == "add_imprint":
        number = int(found[2])
        old = next((i for i in before if i["number"] == number), None)
        new = next((i for i in after if i["number"] == number), None)
        if old is None or new is None:
            return None
        if len(new["imprints"]) > len(old["imprints"]):
            return f"items-{number}-imprints-{new['imprints'][-1]['number']}-location"
        return f"add-imprint-{number}"
    if found[1] == "remove_item":
        return "add-item"
    return f"add-imprint-{found[3]}"


def for_display(
    items: Sequence[dict[str, Any]],
    runs: Mapping[tuple[str, str], Sequence[SizeOption]],
    errors: Mapping[str, list[str]],
) -> list[dict[str, Any]]:
    """The garments as the form shows them (one empty garment when there are none), each with
    its size columns and the errors about its grid (shown under it, each naming its size)."""
    shown = []
    for item in items or [empty_item(0)]:
        prefix = f"items-{item['number']}-"
        grid = ("size-", "upcharge-", "sizes", "other_size")
        shown.append(
            {
                **item,
                "columns": size_columns(item, runs),
                "grid_errors": [
                    message
                    for field, messages in errors.items()
                    if field.startswith(prefix) and field[len(prefix) :].startswith(grid)
                    for message in messages
                ],
            }
        )
    return shown


def items_typed_from(views: Sequence[ItemView]) -> list[dict[str, Any]]:
    """An order's garments as its edit form shows them (amounts in major units)."""
    typed = []
    for number, view in enumerate(views):
        typed.append(
            {
                "number": number,
                "style": view.style,
                "colour": view.colour,
                "description": view.description,
                "unit_price": _or_blank_money(view.unit_price_cents),
                "other_size": "",
                "other_quantity": "",
                "sizes": {size: str(qty) for size, qty in view.sizes.items() if qty},
                "upcharges": {
                    size: major(cents) for size, cents in view.size_upcharges_cents.items() if cents
                },
                "imprints": [
                    {
                        "number": n,
                        "location": imprint.location,
                        "method": imprint.method,
                        "colours": _or_blank(imprint.colours),
                        "colour_names": ", ".join(imprint.colour_names),
                        "stitches": _or_blank(imprint.stitches),
                        "width_mm": _or_blank(imprint.width_mm),
                        "height_mm": _or_blank(imprint.height_mm),
                        "unit_price": _or_blank_money(imprint.unit_price_cents),
                        "setup": _or_blank_money(imprint.setup_cents),
                        "design": imprint.design or "",
                        "notes": imprint.notes,
                    }
                    for n, imprint in enumerate(view.imprints)
                ],
            }
        )
    return typed


def _major_or_blank(cents: int) -> str:
    return major(cents) if cents else ""


def _or_blank(value: int | None) -> str:
    return "" if value is None else str(value)


def _or_blank_money(cents: int | None) -> str:
    """A typed price in major units; blank: left to the price list (0 typed shows 0.00)."""
    return "" if cents is None else major(cents)


def major(cents: int) -> str:
    """Minor units as the money fields take them back (`1250.00`)."""
    return f"{cents // 100}.{cents % 100:02d}"


# --- the size columns ------------------------------------------------------------------------


def size_columns(
    item: dict[str, Any], runs: Mapping[tuple[str, str], Sequence[SizeOption]]
) -> list[dict[str, Any]]:
    """The garment's size columns: its SKUs' sizes (with what is available) when the workspace
    stocks its style and colour, else the standard run; then any other size typed, so nothing
    typed is hidden."""
    run = runs.get(rules.stock_key(item["style"], item["colour"]))
    columns: list[dict[str, Any]] = (
        [{"label": size.label, "available": size.available, "sku": size.sku} for size in run]
        if run
        else [{"label": label, "available": None, "sku": None} for label in garments.STANDARD_SIZES]
    )
    known = {column["label"].casefold(): column for column in columns}
    for label in [*item["sizes"], *item["upcharges"]]:
        if label.casefold() not in known:
            known[label.casefold()] = {"label": label, "available": None, "sku": None}
            columns.append(known[label.casefold()])
    for index, column in enumerate(columns):
        column["index"] = index
        column["quantity"] = _typed_for(item["sizes"], column["label"])
        column["upcharge"] = _typed_for(item["upcharges"], column["label"])
    return columns


def _typed_for(typed: Mapping[str, str], label: str) -> str:
    if label in typed:
        return typed[label]
    return next((value for key, value in typed.items() if key.casefold() == label.casefold()), "")


# --- the API body ----------------------------------------------------------------------------


def item_bodies(
    items: Sequence[dict[str, Any]], currency: str
) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """The typed garments as `POST /orders`' `items`, and the errors found reading the amounts
    (in the workspace's `currency`) and numbers (keyed as the API keys them, so one mapping
    shows both)."""
    own: dict[str, list[str]] = {}

    def cents(typed: str, key: str) -> int:
        return read_cents(typed, key, own, currency)

    bodies = []
    for k, item in enumerate(items):
        path = f"items.{k}"
        body: dict[str, Any] = {}
        for part in ("style", "colour", "description"):
            if item[part]:
                body[part] = item[part]
        if item["unit_price"]:
            body["unit_price_cents"] = cents(item["unit_price"], f"{path}.unit_price_cents")
        if item["other_size"]:  # left as typed: its size already has a quantity
            own[f"{path}.other_size"] = [OTHER_SIZE_TAKEN.format(size=item["other_size"])]
        elif item["other_quantity"]:
            own[f"{path}.other_size"] = [OTHER_SIZE_UNNAMED]
        sizes: dict[str, Any] = {label: number_or_text(q) for label, q in item["sizes"].items()}
        upcharges: dict[str, Any] = {}
        for label, typed in item["upcharges"].items():
            size = next((s for s in sizes if s.casefold() == label.casefold()), label)
            sizes.setdefault(size, 0)  # an upcharge kept for a size not ordered (yet)
            upcharges[size] = cents(typed, f"{path}.size_upcharges_cents.{size}")
        body["sizes"] = sizes
        if upcharges:
            body["size_upcharges_cents"] = upcharges
        body["imprints"] = [_imprint_body(i, f"{path}.imprints.{m}", cents) for m, i in
                            enumerate(item["imprints"])]  # fmt: skip
        bodies.append(body)
    return bodies, own


def _imprint_body(
    imprint: dict[str, Any], path: str, cents: Callable[[str, str], int]
) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for part in ("location", "method", "notes", "design"):
        if imprint[part]:
            body[part] = imprint[part]
    for part in ("colours", "stitches", "width_mm", "height_mm"):
        if imprint[part]:
            body[part] = number_or_text(imprint[part])
    if imprint["colour_names"]:
        body["colour_names"] = [
            name.strip() for name in imprint["colour_names"].split(",") if name.strip()
        ]
    for part in ("unit_price", "setup"):
        if imprint[part]:
            body[f"{part}_cents"] = cents(imprint[part], f"{path}.{part}_cents")
    return body


def read_cents(typed: str, key: str, own: dict[str, list[str]], currency: str) -> int:
    """An amount typed on an order form in minor units; refused into `own[key]` (0 then)."""
    cents = amounts.cents(typed, currency)
    if cents is None or cents > MAX_CENTS_GIVEN:
        own[key] = [amounts.refusal(typed, currency) if cents is None else PRICE_TOO_HIGH]
        return 0  # refused here: the API's bound would say it again in minor units
    return cents


def number_or_text(value: str) -> int | str:
    """A whole number as the API's JSON would carry it (so `-2` is "at least 0", not "not an
    integer"), anything else as the text typed."""
    number = whole_number(value)
    return value if number is None else number
