"""The operators' command line, `pressline` (DECISIONS 9).

Each command group is a module with `register(subparsers)`; a command is an async function
taking the parsed arguments and returning what `output.emit` prints.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from models import db
from models.cli import output

GROUPS = ("models.cli.setup",)


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = argparse.ArgumentParser(prog="pressline", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name in GROUPS:
        importlib.import_module(module_name).register(sub)
    return parser


async def _run(args: argparse.Namespace) -> int:
    await db.start()
    try:
        return output.emit(args, await args.handler(args))
    except output.CommandError as exc:
        return output.fail(args, str(exc))
    finally:
        await db.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # `--json` is accepted before or after the command.
    args.json = args.json or getattr(args, "json_after", False)
    return asyncio.run(_run(args))


if __name__ == "__main__":
    sys.exit(main())
