"""The price list a new workspace starts with: a realistic one for a small shop, in minor
units of its currency, for staff to adjust in Settings → Pricing rather than build from
nothing."""

from __future__ import annotations

from models.garments import Method
from models.pricing.document import (
    MarkupRow,
    Matrix,
    MatrixRow,
    Placement,
    PricingDocument,
    SetupRule,
    Setups,
)

_SCREEN_FIRST = {  # garments from → per garment by colours 1-6
    1: [450, 575, 700, 825, 950, 1075],
    12: [350, 450, 550, 650, 750, 850],
    24: [250, 325, 400, 475, 550, 625],
    48: [175, 225, 275, 325, 375, 425],
    72: [150, 190, 230, 270, 310, 350],
    144: [115, 145, 175, 205, 235, 265],
    288: [90, 115, 140, 165, 190, 215],
    500: [75, 95, 115, 135, 155, 175],
}
_EMBROIDERY = {  # garments from → per garment up to 5,000 / 10,000 / 15,000 stitches
    1: [600, 800, 1000],
    12: [450, 600, 750],
    24: [400, 525, 650],
    48: [350, 450, 550],
    72: [325, 425, 525],
    144: [300, 390, 480],
}
_DTG = {  # garments from → per garment up to 100 / 600 / 1,200 cm²
    1: [600, 900, 1200],
    12: [500, 750, 1000],
    24: [450, 650, 900],
    48: [400, 600, 800],
    144: [350, 500, 700],
}


def _rows(table: dict[int, list[int]], percent: int = 100) -> list[MatrixRow]:
    return [
        MatrixRow(min_quantity=quantity, cells=[cents * percent // 100 for cents in cells])
        for quantity, cells in table.items()
    ]


def price_list() -> PricingDocument:
    return PricingDocument(
        matrices=[
            Matrix(method=Method.SCREEN, columns=[1, 2, 3, 4, 5, 6], rows=_rows(_SCREEN_FIRST)),
            Matrix(
                method=Method.SCREEN,
                placement=Placement.ADDITIONAL,
                columns=[1, 2, 3, 4, 5, 6],
                rows=_rows(_SCREEN_FIRST, 80),
            ),
            Matrix(
                method=Method.EMBROIDERY,
                columns=[5000, 10000, 15000],
                rows=_rows(_EMBROIDERY),
                per_1000_over_cents=40,
            ),
            Matrix(method=Method.DTG, columns=[100, 600, 1200], rows=_rows(_DTG)),
        ],
        setups=Setups(
            screen=SetupRule(per_colour_cents=2000, waive_from_quantity=288),
            embroidery=SetupRule(per_design_cents=3500),
        ),
        garment_markups=[
            MarkupRow(min_quantity=1, percent=100),
            MarkupRow(min_quantity=24, percent=80),
            MarkupRow(min_quantity=72, percent=60),
            MarkupRow(min_quantity=144, percent=50),
            MarkupRow(min_quantity=500, percent=40),
        ],
        size_upcharges_cents={"2XL": 200, "3XL": 300, "4XL": 400, "5XL": 500},
    )
