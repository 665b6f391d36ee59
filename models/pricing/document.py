"""The workspace's price list as one document: matrices per method and placement, setups,
garment markups and the shop's size upcharges.

The same Structs are the API's body (`GET`/`PUT /v1/pricing`), what the admin's grids and
`pressline pricing export|import` read and write, and what is stored (JSON in
`workspaces.pricing`), so a document saved anywhere reads the same everywhere. The rules
between fields (ascending rows and columns, one cell per column) are `rule_errors`, reported
with every field's own problems in one 422 (api/validation.py).
"""

from __future__ import annotations

import itertools
from enum import StrEnum
from typing import Annotated, ClassVar

import msgspec

from models.errors import InvalidFields
from models.field_rules import NOT_BLANK
from models.garments import MAX_SIZE_LABEL, MAX_SIZES, Method
from models.structs import Input

MAX_CENTS = 100_000_000  # a price given anywhere (models/schemas/items.py)
MAX_QUANTITY = 1_000_000
MAX_COLUMNS = 20
MAX_ROWS = 50
MAX_MATRICES = 2 * len(Method)  # one per method and placement
MAX_MARKUP_PERCENT = 1_000
MAX_COLUMN_VALUE = 1_000_000  # colours, stitches or cm²

Cents = Annotated[int, msgspec.Meta(ge=0, le=MAX_CENTS)]
Quantity = Annotated[
    int, msgspec.Meta(ge=1, le=MAX_QUANTITY, description="Garments from which the row applies")
]


class Placement(StrEnum):
    """Where an imprint is among its item's: the first location, or any after it."""

    FIRST = "first"
    ADDITIONAL = "additional"


# What a matrix's columns count, by method (the admin's column headings and the messages).
COLUMN_UNITS: dict[str, str] = {
    Method.SCREEN: "colours",
    Method.EMBROIDERY: "stitches",
    Method.DTG: "cm²",
    Method.TRANSFER: "cm²",
    Method.VINYL: "cm²",
}


class MatrixRow(Input):
    noun: ClassVar[str | None] = "a matrix row"

    min_quantity: Quantity
    cells: Annotated[
        list[Cents],
        msgspec.Meta(
            min_length=1,
            max_length=MAX_COLUMNS,
            description="Price per garment in minor units, one per column",
        ),
    ]


class Matrix(Input):
    method: Method
    columns: Annotated[
        list[Annotated[int, msgspec.Meta(ge=1, le=MAX_COLUMN_VALUE)]],
        msgspec.Meta(
            min_length=1,
            max_length=MAX_COLUMNS,
            description="Ascending: screen, colour counts; embroidery, stitch ceilings; "
            "dtg, transfer and vinyl, print-area ceilings in cm²",
        ),
    ]
    rows: Annotated[
        list[MatrixRow],
        msgspec.Meta(
            min_length=1,
            max_length=MAX_ROWS,
            description="Price breaks, `min_quantity` ascending from 1",
        ),
    ]
    placement: Placement = Placement.FIRST
    per_1000_over_cents: Annotated[
        Cents | None,
        msgspec.Meta(
            description="Embroidery only: per garment, for each started 1,000 stitches beyond "
            "the last column"
        ),
    ] = None

    def rule_errors(self, path: str) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        if any(b <= a for a, b in itertools.pairwise(self.columns)):
            errors[f"{path}.columns"] = [f"The {path}.columns field must be in ascending order."]
        minimums = [row.min_quantity for row in self.rows]
        if minimums[0] != 1:
            key = f"{path}.rows.0.min_quantity"
            errors[key] = [f"The {key} field must be 1: the first row prices from one garment."]
        for index, (a, b) in enumerate(itertools.pairwise(minimums)):
            if b <= a:
                key = f"{path}.rows.{index + 1}.min_quantity"
                errors[key] = [f"The {key} field must be more than the row before ({a})."]
        for index, row in enumerate(self.rows):
            if len(row.cells) != len(self.columns):
                key = f"{path}.rows.{index}.cells"
                errors[key] = [
                    f"The {key} field must have {len(self.columns)} prices, one per column."
                ]
        if self.per_1000_over_cents is not None and self.method != Method.EMBROIDERY:
            key = f"{path}.per_1000_over_cents"
            errors[key] = [f"The {key} field is for embroidery matrices only."]
        return errors


class SetupRule(Input):
    noun: ClassVar[str | None] = "a setup"

    per_colour_cents: Annotated[
        Cents | None, msgspec.Meta(description="Screen: one screen per colour per location")
    ] = None
    per_design_cents: Annotated[
        Cents | None,
        msgspec.Meta(description="Other methods: one per design (or per imprint without one)"),
    ] = None
    waive_from_quantity: Annotated[
        Quantity | None,
        msgspec.Meta(description="No setup once the design's garments reach this many"),
    ] = None


class Setups(Input):
    """Setup charges by method; a method without one (null) is charged no setup."""

    noun: ClassVar[str | None] = "setups"

    screen: SetupRule | None = None
    embroidery: SetupRule | None = None
    dtg: SetupRule | None = None
    transfer: SetupRule | None = None
    vinyl: SetupRule | None = None

    def rule(self, method: str) -> SetupRule | None:
        rule: SetupRule | None = getattr(self, method)
        return rule

    def rule_errors(self, path: str) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        for method in Method:
            rule = self.rule(method)
            if rule is None:
                continue
            wanted, other = (
                ("per_colour_cents", "per_design_cents")
                if method == Method.SCREEN
                else ("per_design_cents", "per_colour_cents")
            )
            if getattr(rule, other) is not None:
                key = f"{path}.{method}.{other}"
                errors[key] = [f"The {key} field does not apply to {method}; use {wanted}."]
            elif getattr(rule, wanted) is None:
                key = f"{path}.{method}.{wanted}"
                errors[key] = [f"The {key} field is required."]
        return errors


class MarkupRow(Input):
    noun: ClassVar[str | None] = "a markup row"

    min_quantity: Quantity
    percent: Annotated[
        int,
        msgspec.Meta(
            ge=0, le=MAX_MARKUP_PERCENT, description="Garment price = cost x (1 + percent/100)"
        ),
    ]


SizeLabel = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_SIZE_LABEL, pattern=NOT_BLANK)]


class PricingDocument(Input):
    """The price list. `PUT` replaces it whole."""

    noun: ClassVar[str | None] = "a price list"

    matrices: Annotated[list[Matrix], msgspec.Meta(max_length=MAX_MATRICES)] = msgspec.field(
        default_factory=list
    )
    setups: Setups = msgspec.field(default_factory=Setups)
    garment_markups: Annotated[
        list[MarkupRow],
        msgspec.Meta(
            max_length=MAX_ROWS,
            description="By the item's quantity, `min_quantity` ascending from 1",
        ),
    ] = msgspec.field(default_factory=list)
    size_upcharges_cents: Annotated[
        dict[SizeLabel, Cents],
        msgspec.Meta(
            max_length=MAX_SIZES,
            description='Size → extra per garment, e.g. {"2XL": 200}; an item\'s own table wins',
        ),
    ] = msgspec.field(default_factory=dict)

    def rule_errors(self, path: str) -> dict[str, list[str]]:
        prefix = f"{path}." if path else ""
        errors: dict[str, list[str]] = {}
        seen: set[tuple[str, str]] = set()
        for index, matrix in enumerate(self.matrices):
            if (matrix.method, matrix.placement) in seen:
                key = f"{prefix}matrices.{index}.placement"
                errors[key] = [
                    f"The {key} field repeats a {matrix.method} matrix for the "
                    f"{matrix.placement} location; one matrix per method and placement."
                ]
            seen.add((matrix.method, matrix.placement))
        minimums = [row.min_quantity for row in self.garment_markups]
        if minimums and minimums[0] != 1:
            key = f"{prefix}garment_markups.0.min_quantity"
            errors[key] = [f"The {key} field must be 1: the first row marks up from one garment."]
        for index, (a, b) in enumerate(itertools.pairwise(minimums)):
            if b <= a:
                key = f"{prefix}garment_markups.{index + 1}.min_quantity"
                errors[key] = [f"The {key} field must be more than the row before ({a})."]
        return errors

    def matrix(self, method: str, placement: Placement) -> Matrix | None:
        """The matrix pricing `method` at `placement`: an additional location without one of
        its own is priced by the first location's."""
        found: dict[tuple[str, str], Matrix] = {(m.method, m.placement): m for m in self.matrices}
        if placement == Placement.ADDITIONAL and (method, placement) not in found:
            placement = Placement.FIRST
        return found.get((method, placement))

    def check(self) -> None:
        """Every rule between fields (for a document not read through the API's validator:
        the command line's import, the admin's grids)."""
        errors: dict[str, list[str]] = {}
        for index, matrix in enumerate(self.matrices):
            errors.update(matrix.rule_errors(f"matrices.{index}"))
        errors.update(self.setups.rule_errors("setups"))
        errors.update(self.rule_errors(""))
        if errors:
            raise InvalidFields(errors)


EMPTY = PricingDocument()
_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(PricingDocument)


def encode(document: PricingDocument) -> bytes:
    return _ENCODER.encode(document)


def decode(stored: str | bytes) -> PricingDocument:
    return _DECODER.decode(stored)
