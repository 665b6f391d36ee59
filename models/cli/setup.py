"""`pressline migrate`."""

from __future__ import annotations

import argparse
from typing import Any

from models import db
from models.cli.output import Result, add_json_flag


async def migrate(_: argparse.Namespace) -> Result:
    await db.migrate()
    return Result("migrations applied", {"ok": True})


def register(sub: Any) -> None:
    parser = sub.add_parser("migrate", help="apply pending database migrations")
    add_json_flag(parser)
    parser.set_defaults(handler=migrate)
