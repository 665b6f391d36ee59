"""The operators' command line, `pressline` (docs/operations.md).

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
from models.errors import DomainError

GROUPS = (
    "models.cli.setup",
    "models.cli.workspaces",
    "models.cli.users",
    "models.cli.tokens",
    "models.cli.customers",
    "models.cli.skus",
    "models.cli.demo",
    "models.cli.webhooks",
    "models.cli.orders",
)


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = argparse.ArgumentParser(prog="pressline", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name in GROUPS:
        importlib.import_module(module_name).register(sub)
    return parser


def _pool_open() -> bool:
    return getattr(db.engine(), "pool", None) is not None


async def _run(args: argparse.Namespace) -> int:
    # Start (and later stop) only a pool this command opened: in-process callers such as
    # the tests may already run one for the web app on the same engine.
    owns_pool = not _pool_open()
    if owns_pool:
        await db.start()
    try:
        return output.emit(args, await args.handler(args))
    except output.CommandError as exc:
        return output.fail(args, str(exc))
    except DomainError as exc:
        return output.fail_domain(args, exc)
    finally:
        if owns_pool:
            await db.stop()


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    # `--json` is accepted before or after the command.
    args.json = args.json or getattr(args, "json_after", False)
    return args


async def run(argv: Sequence[str]) -> int:
    """Run one command on the caller's event loop (tests, embedding); returns the exit status."""
    return await _run(parse(argv))


def main(argv: Sequence[str] | None = None) -> int:
    return asyncio.run(_run(parse(argv)))


if __name__ == "__main__":
    sys.exit(main())
