"""The price list's form (Settings → Pricing): the document as grids of text fields, the
buttons that add and remove one row, column or matrix without losing anything typed (the page
comes back with the form as it was, plus or minus that one: no script needed), the document
the typed grids become, and its refusals beside the fields they are about.

Field names (every number only orders: the page numbers a new row or column after the
highest, up to six digits):

- `m-{n}-method`, `m-{n}-placement` (hidden: a matrix's method and placement never change),
  `m-{n}-per_1000_over` (embroidery), `m-{n}-col-{c}` (a column's colours, stitches or cm²),
  `m-{n}-row-{r}-min` (a row's first quantity) and `m-{n}-row-{r}-cell-{c}` (its price for
  column `c`);
- `setup-{method}-amount` (per colour for screen, per design for the others) and
  `setup-{method}-waive`;
- `markup-{r}-min`, `markup-{r}-percent`; `size-{r}-label`, `size-{r}-amount`;
- `version`: the ETag of the price list the form started from (a save from an older one is
  refused), and `new_matrix` ("screen:first"), what "Add matrix" adds.

Amounts are typed in major units and read by the admin's one reading of money
(models/money.py); a row or column left wholly empty is left out when saving.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

import msgspec

from api import etags
from api.admin.forms import sentence, text, whole_number
from api.admin.item_forms import major
from api.validation import decode_body
from models import money as amounts
from models.errors import InvalidFields
from models.garments import MAX_SIZES, Method, method_words
from models.pricing import document as price_document
from models.pricing.document import (
    COLUMN_UNITS,
    MAX_CENTS,
    MAX_COLUMNS,
    MAX_MATRICES,
    MAX_ROWS,
    PricingDocument,
)
from models.pricing.document import Placement as Placements

PLACEMENTS: dict[str, str] = {
    Placements.FIRST: "first location",
    Placements.ADDITIONAL: "additional locations",
}
METHODS: tuple[str, ...] = tuple(Method)
# What a matrix's columns are headed with, by method: screen counts colours, the others are
# ceilings ("up to 5000 stitches").
COLUMN_HEADINGS = {
    method: "Colours" if method == Method.SCREEN else f"Up to ({COLUMN_UNITS[method]})"
    for method in METHODS
}
PRICE_TOO_HIGH = f"must be at most {MAX_CENTS // 100:,}.00"
REQUIRED = "is required"
PRICE_REQUIRED = "is required (type 0 when there is none)"
NO_SIZE = "is required beside its upcharge"
SIZE_TWICE = "is listed twice; keep one row per size"
UNREAD = (
    "Some fields could not be read ({names}): they are numbered past what this page sends. "
    "Reload the page and type them again."
)
STALE = (
    "The price list was not saved: someone saved it after you opened this page, and saving "
    "yours would overwrite their changes. What you typed is below. Open Settings → Pricing "
    "again to start from the price list as it is now."
)
SAVED = "The price list was saved."

_N = "(0|[1-9][0-9]{0,5})"
_METHOD = "|".join(METHODS)
_MATRIX = re.compile(rf"m-{_N}-(method|placement|per_1000_over)")
_COLUMN = re.compile(rf"m-{_N}-col-{_N}")
_ROW = re.compile(rf"m-{_N}-row-{_N}-min")
_CELL = re.compile(rf"m-{_N}-row-{_N}-cell-{_N}")
_SETUP = re.compile(rf"setup-({_METHOD})-(amount|waive)")
_MARKUP = re.compile(rf"markup-{_N}-(min|percent)")
_SIZE = re.compile(rf"size-{_N}-(label|amount)")
_OURS = re.compile(r"(?:m|setup|markup|size)-.*", re.DOTALL)

# The buttons besides saving (`action`): each comes back with the form, changed by one.
ADD_MARKUP, ADD_SIZE, ADD_MATRIX = "add_markup", "add_size", "add_matrix"
_ACTION = re.compile(
    rf"(add_row|add_column|remove_matrix)-{_N}|(remove_row|remove_column)-{_N}-{_N}"
    rf"|(remove_markup|remove_size)-{_N}"
)


def matrix_name(method: str, placement: str) -> str:
    """ "Screen print, first location"."""
    return f"{method_words(method)}, {PLACEMENTS.get(placement, placement)}"


def column_words(method: str, value: str, position: int) -> str:
    """How a column is named in its cells' labels and refusals: "3 colours", "up to 5000
    stitches"; "column 2" until a whole number heads it."""
    if whole_number(value) is None:
        return f"column {position}"
    if method == Method.SCREEN:
        return "1 colour" if value == "1" else f"{value} colours"
    return f"up to {value} {COLUMN_UNITS[method]}"


def version(document: PricingDocument) -> str:
    """The price list's ETag (as `GET /api/v1/pricing` gives it): the form's version."""
    return etags.of(price_document.encode(document))


# --- the form's values -------------------------------------------------------------------


def empty_matrix(number: int, method: str, placement: str) -> dict[str, Any]:
    """A new matrix: one column to head, one row from 1 garment."""
    return {
        "number": number, "method": method, "placement": placement, "per_1000_over": "",
        "columns": [{"number": 0, "value": ""}],
        "rows": [{"number": 0, "min": "1", "cells": {0: ""}}],
    }  # fmt: skip


def typed_from(document: PricingDocument, *, version_tag: str) -> dict[str, Any]:
    """The stored price list as the form shows it (amounts in major units)."""
    setups: dict[str, dict[str, str]] = {}
    for method in METHODS:
        rule = document.setups.rule(method)
        cents = None if rule is None else (rule.per_colour_cents if method == Method.SCREEN
                                           else rule.per_design_cents)  # fmt: skip
        waive = None if rule is None else rule.waive_from_quantity
        setups[method] = {
            "amount": "" if cents is None else major(cents),
            "waive": "" if waive is None else str(waive),
        }
    return {
        "version": version_tag,
        "matrices": [
            {
                "number": n,
                "method": str(matrix.method),
                "placement": str(matrix.placement),
                "per_1000_over": (
                    "" if matrix.per_1000_over_cents is None else major(matrix.per_1000_over_cents)
                ),
                "columns": [{"number": c, "value": str(v)} for c, v in enumerate(matrix.columns)],
                "rows": [
                    {
                        "number": r,
                        "min": str(row.min_quantity),
                        "cells": {c: major(cents) for c, cents in enumerate(row.cells)},
                    }
                    for r, row in enumerate(matrix.rows)
                ],
            }
            for n, matrix in enumerate(document.matrices)
        ],
        "setups": setups,
        "markups": [
            {"number": r, "min": str(row.min_quantity), "percent": str(row.percent)}
            for r, row in enumerate(document.garment_markups)
        ],
        "sizes": [
            {"number": r, "label": label, "amount": major(cents)}
            for r, (label, cents) in enumerate(document.size_upcharges_cents.items())
        ],
        "new_matrix": "",
        "unread": [],
    }


def typed_pricing(fields: dict[str, Any]) -> dict[str, Any]:
    """What the form sent, in the order of its numbers, empty rows and columns too (one just
    added stays while other buttons are pressed; `filled` leaves them out when saving). A
    matrix whose method or placement is not one the page offers is not read; its fields, and
    any the page could not have numbered, are listed in `unread` (the save is refused)."""
    matrices: dict[int, dict[str, Any]] = {}

    def matrix(number: int) -> dict[str, Any]:
        return matrices.setdefault(
            number,
            {"number": number, "method": "", "placement": "", "per_1000_over": "",
             "columns": {}, "rows": {}},
        )  # fmt: skip

    def row(m: dict[str, Any], number: int) -> dict[str, Any]:
        found: dict[str, Any] = m["rows"].setdefault(
            number, {"number": number, "min": "", "cells": {}}
        )
        return found

    setups: dict[str, dict[str, str]] = {method: {"amount": "", "waive": ""} for method in METHODS}
    markups: dict[int, dict[str, str | int]] = {}
    sizes: dict[int, dict[str, str | int]] = {}
    unread = []
    for name in fields:
        value = text(fields, name).strip()
        if found := _MATRIX.fullmatch(name):
            matrix(int(found[1]))[found[2]] = value
        elif found := _COLUMN.fullmatch(name):
            matrix(int(found[1]))["columns"][int(found[2])] = value
        elif found := _ROW.fullmatch(name):
            row(matrix(int(found[1])), int(found[2]))["min"] = value
        elif found := _CELL.fullmatch(name):
            m = matrix(int(found[1]))
            row(m, int(found[2]))["cells"][int(found[3])] = value
            m["columns"].setdefault(int(found[3]), "")
        elif found := _SETUP.fullmatch(name):
            setups[found[1]][found[2]] = value
        elif found := _MARKUP.fullmatch(name):
            markups.setdefault(int(found[1]), {"number": int(found[1]), "min": "", "percent": ""})
            markups[int(found[1])][found[2]] = value
        elif found := _SIZE.fullmatch(name):
            sizes.setdefault(int(found[1]), {"number": int(found[1]), "label": "", "amount": ""})
            sizes[int(found[1])][found[2]] = value
        elif _OURS.fullmatch(name) and value:
            unread.append(name)
    shown = []
    for number in sorted(matrices):
        m = matrices[number]
        if m["method"] not in METHODS or m["placement"] not in PLACEMENTS:
            unread.extend(f"m-{number}-{part}" for part in ("method", "placement"))
            continue
        m["columns"] = [{"number": c, "value": v} for c, v in sorted(m["columns"].items())]
        m["rows"] = [r for _, r in sorted(m["rows"].items())]
        shown.append(m)
    return {
        "version": text(fields, "version").strip(),
        "matrices": shown,
        "setups": setups,
        "markups": [markups[n] for n in sorted(markups)],
        "sizes": [sizes[n] for n in sorted(sizes)],
        "new_matrix": text(fields, "new_matrix").strip(),
        "unread": sorted(unread),
    }


def missing_matrices(typed: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The (method, placement) pairs without a matrix yet: what "Add matrix" offers."""
    present = {(m["method"], m["placement"]) for m in typed["matrices"]}
    return [
        (method, placement)
        for method in METHODS
        for placement in PLACEMENTS
        if (method, placement) not in present
    ]


# --- the buttons -------------------------------------------------------------------------


def _next(numbered: list[Any]) -> int:
    return max((item["number"] for item in numbered), default=-1) + 1


def after_action(action: str, typed: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The form once one of its buttons (`action`) has acted, and the field to put the
    cursor in (the new row's or column's first, or the button that adds another). An
    unknown action, or one about a row that is gone, changes nothing."""
    typed = {**typed, "matrices": [dict(m) for m in typed["matrices"]]}
    if action == ADD_MARKUP:
        if len(typed["markups"]) >= MAX_ROWS:
            return typed, "add-markup"
        number = _next(typed["markups"])
        typed["markups"] = [*typed["markups"], {"number": number, "min": "", "percent": ""}]
        return typed, f"markup-{number}-min"
    if action == ADD_SIZE:
        if len(typed["sizes"]) >= MAX_SIZES:
            return typed, "add-size"
        number = _next(typed["sizes"])
        typed["sizes"] = [*typed["sizes"], {"number": number, "label": "", "amount": ""}]
        return typed, f"size-{number}-label"
    if action == ADD_MATRIX:
        method, _, placement = typed["new_matrix"].partition(":")
        if (method, placement) not in missing_matrices(typed):
            return typed, "new_matrix"
        number = _next(typed["matrices"])
        typed["matrices"].append(empty_matrix(number, method, placement))
        typed["new_matrix"] = ""
        return typed, f"m-{number}-col-0"
    found = _ACTION.fullmatch(action)
    if found is None:
        return typed, None
    kind = found[1] or found[3] or found[6]
    if kind == "remove_markup":
        number = int(found[7])
        typed["markups"] = [row for row in typed["markups"] if row["number"] != number]
        return typed, "add-markup"
    if kind == "remove_size":
        number = int(found[7])
        typed["sizes"] = [row for row in typed["sizes"] if row["number"] != number]
        return typed, "add-size"
    number = int(found[2] or found[4])
    matrix = next((m for m in typed["matrices"] if m["number"] == number), None)
    if matrix is None:
        return typed, None
    if kind == "remove_matrix":
        typed["matrices"] = [m for m in typed["matrices"] if m["number"] != number]
        return typed, "new_matrix"
    if kind == "add_row":
        if len(matrix["rows"]) >= MAX_ROWS:
            return typed, f"m-{number}-add-row"
        row = _next(matrix["rows"])
        matrix["rows"] = [*matrix["rows"], {"number": row, "min": "", "cells": {}}]
        return typed, f"m-{number}-row-{row}-min"
    if kind == "add_column":
        if len(matrix["columns"]) >= MAX_COLUMNS:
            return typed, f"m-{number}-add-column"
        column = _next(matrix["columns"])
        matrix["columns"] = [*matrix["columns"], {"number": column, "value": ""}]
        return typed, f"m-{number}-col-{column}"
    gone = int(found[5])
    if kind == "remove_row":
        matrix["rows"] = [row for row in matrix["rows"] if row["number"] != gone]
        return typed, f"m-{number}-add-row"
    matrix["columns"] = [column for column in matrix["columns"] if column["number"] != gone]
    matrix["rows"] = [
        {**row, "cells": {c: v for c, v in row["cells"].items() if c != gone}}
        for row in matrix["rows"]
    ]
    return typed, f"m-{number}-add-column"


# --- saving --------------------------------------------------------------------------------


def filled(typed: dict[str, Any]) -> dict[str, Any]:
    """The form without its wholly empty rows and columns: what a save sends, and shows again
    when refused (so "row 2" is the second row shown)."""
    matrices = []
    for matrix in typed["matrices"]:
        columns = [
            column
            for column in matrix["columns"]
            if column["value"] or any(row["cells"].get(column["number"]) for row in matrix["rows"])
        ]
        kept = {column["number"] for column in columns}
        rows = [
            {**row, "cells": {c: v for c, v in row["cells"].items() if c in kept}}
            for row in matrix["rows"]
            if row["min"] or any(row["cells"].get(c) for c in kept)
        ]
        matrices.append({**matrix, "columns": columns, "rows": rows})
    return {
        **typed,
        "matrices": matrices,
        "markups": [row for row in typed["markups"] if row["min"] or row["percent"]],
        "sizes": [row for row in typed["sizes"] if row["label"] or row["amount"]],
    }


class Target(NamedTuple):
    """Where a refusal about one key of the document is shown: the field (or the part of the
    page) and how its sentence names it."""

    field: str
    where: str
    label: str


def _whole(typed: str) -> int | str:
    """A whole number as the API's JSON would carry it, anything else as typed (so the
    validator says "must be a whole number")."""
    number = whole_number(typed)
    return typed if number is None else number


class _Body:
    """The typed (filled) form as the API's body, with the refusals found reading it (amounts,
    blanks, sizes named twice) and where each key of it is shown."""

    def __init__(self, currency: str) -> None:
        self.currency = currency  # what amounts are typed in
        self.own: dict[str, list[str]] = {}
        self.targets: dict[str, Target] = {}

    def at(self, key: str, field: str, where: str, label: str) -> None:
        self.targets[key] = Target(field, where, label)

    def money(self, typed: str, key: str, *, required: bool = False) -> int | str | None:
        """Minor units, or the text typed (refused here, in people's words) when it is not
        an amount; None when it is blank and may be."""
        if not typed:
            if required:
                self.own[key] = [PRICE_REQUIRED]
                return ""
            return None
        cents = amounts.cents(typed, self.currency)
        if cents is None:
            self.own[key] = [amounts.refusal(typed, self.currency)]
            return typed
        if cents > MAX_CENTS:
            self.own[key] = [PRICE_TOO_HIGH]
        return cents

    def build(self, typed: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"matrices": [], "setups": {}, "garment_markups": []}
        self.at("matrices", "matrices", "", "the matrices")
        for index, matrix in enumerate(typed["matrices"]):
            body["matrices"].append(self._matrix(index, matrix))
        self.at("setups", "setups", "", "the setups")
        for method in METHODS:
            rule = self._setup(method, typed["setups"][method])
            if rule is not None:
                body["setups"][method] = rule
        self.at("garment_markups", "markups", "", "the garment markups")
        for index, row in enumerate(typed["markups"]):
            key, field = f"garment_markups.{index}", f"markup-{row['number']}"
            where = f"Garment markup, row {index + 1}"
            self.at(key, f"{field}-min", where, "the row")
            self.at(f"{key}.min_quantity", f"{field}-min", where, "the starting quantity")
            self.at(f"{key}.percent", f"{field}-percent", where, "the markup")
            markup: dict[str, Any] = {}
            if row["min"]:
                markup["min_quantity"] = _whole(row["min"])
            if row["percent"]:
                markup["percent"] = _whole(row["percent"].removesuffix("%").strip())
            body["garment_markups"].append(markup)
        body["size_upcharges_cents"] = self._sizes(typed["sizes"])
        return body

    def _matrix(self, index: int, matrix: dict[str, Any]) -> dict[str, Any]:
        key, field = f"matrices.{index}", f"m-{matrix['number']}"
        name = matrix_name(matrix["method"], matrix["placement"])
        unit = COLUMN_UNITS[matrix["method"]]
        for part, label in (("", "the matrix"), (".method", "the method"),
                            (".placement", "the location"), (".columns", "the columns"),
                            (".rows", "the rows")):  # fmt: skip
            self.at(key + part, field, name, label)
        body: dict[str, Any] = {
            "method": matrix["method"],
            "placement": matrix["placement"],
            "columns": [],
            "rows": [],
        }
        headings = []
        for c, column in enumerate(matrix["columns"]):
            column_key = f"{key}.columns.{c}"
            self.at(column_key, f"{field}-col-{column['number']}", name, f"column {c + 1}")
            headings.append(column_words(matrix["method"], column["value"], c + 1))
            if column["value"]:
                body["columns"].append(_whole(column["value"]))
            else:
                self.own[column_key] = [f"{REQUIRED} (the {unit} its prices are for)"]
                body["columns"].append("")
        for r, row in enumerate(matrix["rows"]):
            row_key, row_field = f"{key}.rows.{r}", f"{field}-row-{row['number']}"
            where = f"{name}, row {r + 1}"
            self.at(row_key, f"{row_field}-min", where, "the row")
            self.at(f"{row_key}.cells", f"{row_field}-min", where, "the prices")
            self.at(f"{row_key}.min_quantity", f"{row_field}-min", where, "the starting quantity")
            values: dict[str, Any] = {"cells": []}
            if row["min"]:
                values["min_quantity"] = _whole(row["min"])
            for c, column in enumerate(matrix["columns"]):
                cell_key = f"{row_key}.cells.{c}"
                self.at(cell_key, f"{row_field}-cell-{column['number']}", where,
                        f"the price for {headings[c]}")  # fmt: skip
                typed = row["cells"].get(column["number"], "")
                values["cells"].append(self.money(typed, cell_key, required=True))
            body["rows"].append(values)
        if matrix["method"] == Method.EMBROIDERY:
            over_key = f"{key}.per_1000_over_cents"
            self.at(over_key, f"{field}-per_1000_over", name, "the price per 1,000 stitches over")
            over = self.money(matrix["per_1000_over"], over_key)
            if over is not None:
                body["per_1000_over_cents"] = over
        return body

    def _setup(self, method: str, typed: dict[str, str]) -> dict[str, Any] | None:
        if not typed["amount"] and not typed["waive"]:
            return None
        part = "per_colour_cents" if method == Method.SCREEN else "per_design_cents"
        key, field = f"setups.{method}", f"setup-{method}"
        where = f"Setup, {method_words(method)}"
        self.at(key, f"{field}-amount", where, "the setup")
        self.at(f"{key}.{part}", f"{field}-amount", where, "the setup charge")
        self.at(f"{key}.waive_from_quantity", f"{field}-waive", where, "the quantity")
        rule: dict[str, Any] = {}
        cents = self.money(typed["amount"], f"{key}.{part}")
        if cents is not None:
            rule[part] = cents
        if typed["waive"]:
            rule["waive_from_quantity"] = _whole(typed["waive"])
        return rule

    def _sizes(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        upcharges: dict[str, Any] = {}
        self.at("size_upcharges_cents", "sizes", "", "the size upcharges")
        seen: set[str] = set()
        for index, row in enumerate(rows):
            field, where = f"size-{row['number']}", f"Size upcharge, row {index + 1}"
            label, own_key = row["label"], f"size_upcharges_cents#{index}"
            self.at(f"{own_key}.label", f"{field}-label", where, "the size")
            if not label:
                self.own[f"{own_key}.label"] = [NO_SIZE]
                continue
            if label.casefold() in seen:
                self.own[f"{own_key}.label"] = [SIZE_TWICE]
                continue
            seen.add(label.casefold())
            key = f"size_upcharges_cents.{label}"
            self.at(key, f"{field}-amount", where, "the upcharge")
            self.at(f"{key}#name", f"{field}-label", where, "the size")
            cents = self.money(row["amount"], key, required=True)
            upcharges[label] = cents
        return upcharges


def document_from(
    typed: dict[str, Any], currency: str
) -> tuple[PricingDocument, dict[str, Target]]:
    """The filled form as the price list (amounts typed in the workspace's `currency`), or
    InvalidFields with every refusal found (keyed as the API keys them:
    `matrices.0.rows.1.cells.2`), and where each key is shown."""
    built = _Body(currency)
    body = built.build(typed)
    if typed["unread"]:
        built.own["pricing"] = [UNREAD.format(names=", ".join(typed["unread"][:3]))]
    try:
        document = decode_body(msgspec.json.encode(body), PricingDocument)
    except InvalidFields as invalid:
        errors = dict(invalid.errors)
    else:
        errors = {}
    errors.update(built.own)  # its own words first: "Type an amount …" rather than "an integer"
    if errors:
        raise Refused(errors, built.targets)
    return document, built.targets


class Refused(InvalidFields):
    """The form's refusals with where each is shown."""

    def __init__(self, errors: dict[str, list[str]], targets: dict[str, Target]) -> None:
        super().__init__(errors)
        self.targets = targets


def shown_errors(
    errors: Mapping[str, list[str]], targets: Mapping[str, Target]
) -> dict[str, list[str]]:
    """The refusals keyed by the form's fields (a key without a field of its own goes to the
    nearest part of the page that has one: a row, the matrix, else the page), each a sentence
    naming the field as the page shows it ("Screen print, first location, row 2: the price
    for 3 colours is required …")."""
    shown: dict[str, list[str]] = {}
    for key, messages in errors.items():
        target = _target(key, messages, targets)
        name, label = key.split("#", 1)[0], target.label  # `#`: the form's own keys
        for message in messages:
            if message.startswith("The name "):  # a size's label, as the validator words it
                message, label = message.removeprefix("The name "), "the size"
            said = sentence(name, message, label, target.where)
            shown.setdefault(target.field, []).append(said)
    return shown


def _target(key: str, messages: list[str], targets: Mapping[str, Target]) -> Target:
    if key.startswith("size_upcharges_cents.") and any(m.startswith("The name ") for m in messages):
        named = targets.get(f"{key}#name")
        if named is not None:
            return named
    parts = key.split(".")
    for end in range(len(parts), 0, -1):
        found = targets.get(".".join(parts[:end]))
        if found is not None:
            return found
    return Target("pricing", "", "")


# --- the page --------------------------------------------------------------------------------


def for_display(typed: dict[str, Any]) -> list[dict[str, Any]]:
    """The matrices as the page shows them: each with its name, its columns' heading and
    unit, and the words that label its cells ("3 colours" once a column is headed)."""
    shown = []
    for position, matrix in enumerate(typed["matrices"], start=1):
        unit = COLUMN_UNITS[matrix["method"]]
        columns = []
        for c, column in enumerate(matrix["columns"], start=1):
            named = column_words(matrix["method"], column["value"], c)
            columns.append({**column, "position": c, "named": named})
        shown.append(
            {
                **matrix,
                "position": position,
                "name": matrix_name(matrix["method"], matrix["placement"]),
                "heading": COLUMN_HEADINGS[matrix["method"]],
                "unit": unit,
                "columns": columns,
                "embroidery": matrix["method"] == Method.EMBROIDERY,
            }
        )
    return shown


def matrix_choices(typed: Mapping[str, Any]) -> list[tuple[str, str]]:
    """ "Add matrix"'s options: value ("screen:first") and words."""
    if len(typed["matrices"]) >= MAX_MATRICES:
        return []
    return [(f"{m}:{p}", matrix_name(m, p)) for m, p in missing_matrices(typed)]


def error_count(shown: Mapping[str, list[str]]) -> int:
    return sum(len(messages) for messages in shown.values())


def first_error(shown: Mapping[str, list[str]]) -> str:
    return next(itertools.chain.from_iterable(shown.values()), "")
