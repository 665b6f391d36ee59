"""`pressline sku create` and `pressline sku import FILE.csv` (all rows or none)."""

from __future__ import annotations

import argparse
from typing import Any

from models import catalogue
from models.cli.output import CommandError, Result, add_json_flag
from models.tables import Sku


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


async def create(args: argparse.Namespace) -> Result:
    row = await catalogue.create_sku(
        workspace_id=args.workspace,
        code=args.code,
        style=args.style,
        brand=args.brand,
        colour=args.colour,
        colour_hex=args.colour_hex,
        size=args.size,
        on_hand=args.on_hand,
        reorder_point=args.reorder_point,
    )
    return Result(
        f"created SKU {row.id} {row.code} ({row.style}, {row.colour}, {row.size}; "
        f"{row.on_hand} on hand) in workspace {row.workspace}",
        _sku_data(row),
    )


async def import_file(args: argparse.Namespace) -> Result:
    try:
        # utf-8-sig: spreadsheet exports often start with a byte-order mark.
        with open(args.file, encoding="utf-8-sig", newline="") as source:  # noqa: ASYNC230
            lines = source.readlines()
    except OSError as exc:
        raise CommandError(f"cannot read {args.file}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise CommandError(f"{args.file} is not UTF-8 text") from None
    ids = await catalogue.import_skus(args.workspace, lines)
    return Result(
        f"imported {len(ids)} SKU(s) into workspace {args.workspace}",
        {"workspace_id": args.workspace, "created": len(ids), "ids": ids},
    )


def register(sub: Any) -> None:
    group = sub.add_parser("sku", help="stock-keeping units (blank garments)")
    commands = group.add_subparsers(dest="action", required=True, metavar="ACTION")

    parser = commands.add_parser("create", help="add a SKU (prints its id)")
    parser.add_argument("--workspace", type=int, required=True, help="workspace id")
    parser.add_argument("--code", required=True)
    parser.add_argument("--style", required=True)
    parser.add_argument("--brand", required=True)
    parser.add_argument("--colour", required=True)
    parser.add_argument("--colour-hex", required=True, metavar="'#RRGGBB'")
    parser.add_argument("--size", required=True)
    parser.add_argument("--on-hand", type=int, required=True, metavar="N")
    parser.add_argument("--reorder-point", type=int, default=0, metavar="N")
    add_json_flag(parser)
    parser.set_defaults(handler=create)

    parser = commands.add_parser(
        "import",
        help="create SKUs from a CSV file, all or none",
        description="The header row names the columns: "
        + ", ".join(catalogue.SKU_COLUMNS)
        + " and optionally reorder_point (dashes or underscores).",
    )
    parser.add_argument("--workspace", type=int, required=True, help="workspace id")
    parser.add_argument("file", metavar="FILE.csv")
    add_json_flag(parser)
    parser.set_defaults(handler=import_file)
