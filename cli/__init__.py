"""The operators' command line, `pressline` (docs/operations.md).

Each command group is a module; a command parses its arguments, calls one domain function in
models/ and returns what `output.emit` prints. Parsing is click's; running is ours, so that
`run` can execute a command on the caller's event loop (tests, embedding).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence

import click

from cli import (
    customers,
    demo,
    orders,
    outbox,
    pricing,
    setup,
    skus,
    tokens,
    users,
    webhooks,
    workspaces,
)
from cli.output import CommandError, Pending, emit, fail, fail_domain
from models import db
from models.errors import DomainError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
@click.option(
    "--json",
    is_flag=True,
    help="Print one JSON object instead of a human line (also accepted after the command).",
)
def app(json: bool) -> None:
    """Pressline's operators' command line: set up workspaces, users, tokens, customers, SKUs
    and webhooks; act on orders, artwork and invoices; inspect webhook deliveries.

    Every command prints a human line, or one JSON object with --json. `pressline COMMAND
    --help` describes a command's arguments.
    """


for group in (
    setup.migrate,
    demo.demo,
    workspaces.workspace,
    users.user,
    tokens.token,
    customers.customer,
    customers.contact,
    skus.sku,
    pricing.pricing,
    orders.order,
    orders.artwork,
    orders.invoice,
    webhooks.webhook,
    outbox.outbox,
):
    app.add_command(group)


def parse(argv: Sequence[str]) -> Pending | int:
    """The command to run, or the exit status when there is none (help, usage error)."""
    try:
        result = app.main(list(argv), prog_name="pressline", standalone_mode=False)
    except click.ClickException as exc:  # usage errors: status 2, click's message
        exc.show()
        return exc.exit_code
    except click.Abort:
        click.echo("Aborted!", err=True)
        return 1
    return result if isinstance(result, Pending) else int(result or 0)


def _pool_open() -> bool:
    return getattr(db.engine(), "pool", None) is not None


NOT_MIGRATED = (
    "the database is not set up, or not up to date: run `pressline migrate` first "
    "(DATABASE_URL names it; without it, pressline.sqlite3 in this directory)"
)


async def execute(pending: Pending) -> int:
    # Asked before anything connects: a SQLite file that does not exist is not made, empty.
    if not pending.migrates and not await db.migrated():
        return fail(pending.as_json, NOT_MIGRATED)
    # Start (and later stop) only a pool this command opened: in-process callers such as
    # the tests may already run one for the web app on the same engine.
    owns_pool = not _pool_open()
    if owns_pool:
        await db.start()
    try:
        return emit(pending.as_json, await pending.call())
    except CommandError as exc:
        return fail(pending.as_json, str(exc))
    except DomainError as exc:
        return fail_domain(pending.as_json, exc)
    finally:
        if owns_pool:
            await db.stop()


async def run(argv: Sequence[str]) -> int:
    """Run one command on the caller's event loop; returns the exit status."""
    parsed = parse(argv)
    return parsed if isinstance(parsed, int) else await execute(parsed)


def main(argv: Sequence[str] | None = None) -> int:
    """The `pressline` console script: one command on its own event loop."""
    parsed = parse(sys.argv[1:] if argv is None else argv)
    try:
        return parsed if isinstance(parsed, int) else asyncio.run(execute(parsed))
    except BrokenPipeError:  # the reader left (`pressline … | head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
