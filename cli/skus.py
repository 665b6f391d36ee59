"""`pressline sku create` and `pressline sku import FILE.csv` (all rows or none)."""

from __future__ import annotations

from typing import Any

import click

from cli.output import CommandError, Result, command
from models import catalogue
from models.tables import Sku


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
    }


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
    )
    return Result(
        f"created SKU {row.id} {row.code} ({row.style}, {row.colour}, {row.size}; "
        f"{row.on_hand} on hand) in workspace {row.workspace}",
        _sku_data(row),
    )


@command(sku, "import")
@click.option("--workspace", type=int, required=True, help="Workspace id.")
@click.argument("file", metavar="FILE.csv")
async def import_file(workspace: int, file: str) -> Result:
    """Create SKUs from a CSV file, all or none; bad rows are reported by line number.
    FILE.csv: UTF-8 CSV whose header row names the columns code, style, brand, colour,
    colour_hex, size, on_hand and optionally reorder_point (dashes or underscores)."""
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
