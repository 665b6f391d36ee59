"""`pressline sku create`, `pressline sku update CODE` (its cost) and `pressline sku import
FILE.csv` (all rows or none)."""

from __future__ import annotations

from typing import Any

import click

from cli.output import CommandError, Result, command
from models import catalogue
from models.accounts import KEEP, Keep
from models.tables import Sku

COST_HELP = "What the shop pays for one, in minor units (251 for 2.51); unknown by default."


@click.group()
def sku() -> None:
    """Stock-keeping units (blank garments)."""


def _sku_data(row: Sku) -> dict[str, Any]:
    return {
        "id": row.id,
        "workspace_id": row.workspace,
        "code": row.code,
        "style": row.style,
        "brand": row.brand,
        "colour": row.colour,
        "colour_hex": row.colour_hex,
        "size": row.size,
        "on_hand": row.on_hand,
        "reorder_point": row.reorder_point,
        "cost_cents": row.cost_cents,
    }


def _cost(row: Sku) -> str:
    return "unknown" if row.cost_cents is None else f"{row.cost_cents} (minor units)"


class CostOrNone(click.ParamType):
    """`--cost-cents` of `sku update`: a whole number, or `none` (or '') for an unknown cost."""

    name = "N|none"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> int | Keep | None:
        if value is None or isinstance(value, int | Keep):
            return value
        if value.strip().lower() in ("none", ""):
            return None
        try:
            return int(value)
        except ValueError:
            self.fail(f"expected a whole number or 'none', got {value!r}", param, ctx)


@command(sku, "create")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
@click.option("--code", required=True, help="SKU code, unique in the workspace.")
@click.option("--style", required=True, help="Garment style, e.g. 'Classic Tee'.")
@click.option("--brand", required=True, help="Brand, e.g. Gildan.")
@click.option("--colour", required=True, help="Colour name.")
@click.option("--colour-hex", required=True, metavar="'#RRGGBB'", help="Colour as #RRGGBB.")
@click.option("--size", required=True, help="Size label, e.g. M.")
@click.option("--on-hand", type=int, required=True, metavar="N", help="Units in stock.")
@click.option(
    "--reorder-point",
    type=int,
    default=0,
    metavar="N",
    show_default=True,
    help="Shown as low stock at or below this.",
)
@click.option("--cost-cents", type=int, metavar="N", help=COST_HELP)
async def create(
    workspace: int,
    code: str,
    style: str,
    brand: str,
    colour: str,
    colour_hex: str,
    size: str,
    on_hand: int,
    reorder_point: int,
    cost_cents: int | None,
) -> Result:
    """Add a SKU (prints its id)."""
    row = await catalogue.create_sku(
        workspace_id=workspace,
        code=code,
        style=style,
        brand=brand,
        colour=colour,
        colour_hex=colour_hex,
        size=size,
        on_hand=on_hand,
        reorder_point=reorder_point,
        cost_cents=cost_cents,
    )
    return Result(
        f"created SKU {row.id} {row.code} ({row.style}, {row.colour}, {row.size}; "
        f"{row.on_hand} on hand; cost {_cost(row)}) in workspace {row.workspace}",
        _sku_data(row),
    )


@command(sku, "update")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
@click.argument("code")
@click.option(
    "--cost-cents",
    type=CostOrNone(),
    default=KEEP,
    show_default=False,
    help="What the shop pays for one, in minor units (251 for 2.51); 'none': unknown.",
)
async def update(workspace: int, code: str, cost_cents: int | Keep | None) -> Result:
    """Change a SKU; what is not given stays as it is.
    CODE: the SKU's code in the workspace, e.g. G5000-BLK-M."""
    row = await catalogue.update_sku(workspace, code, cost_cents=cost_cents)
    return Result(
        f"updated SKU {row.id} {row.code} in workspace {row.workspace}: cost {_cost(row)}",
        _sku_data(row),
    )


@command(sku, "import")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
@click.argument("file", metavar="FILE.csv")
async def import_file(workspace: int, file: str) -> Result:
    """Create SKUs from a CSV file, all or none; bad rows are reported by line number.
    FILE.csv: UTF-8 CSV whose header row names the columns code, style, brand, colour,
    colour_hex, size, on_hand and optionally reorder_point and cost (what the shop pays for
    one, in major units as 2.51; empty: unknown), with dashes or underscores."""
    try:
        # utf-8-sig: spreadsheet exports often start with a byte-order mark.
        with open(file, encoding="utf-8-sig", newline="") as source:  # noqa: ASYNC230
            lines = source.readlines()
    except OSError as exc:
        raise CommandError(f"cannot read {file}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise CommandError(f"{file} is not UTF-8 text") from None
    ids = await catalogue.import_skus(workspace, lines)
    return Result(
        f"imported {len(ids)} SKU(s) into workspace {workspace}",
        {"workspace_id": workspace, "created": len(ids), "ids": ids},
    )
