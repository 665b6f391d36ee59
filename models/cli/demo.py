"""`pressline demo`: migrate, build (or find) the sample workspace, print a working token."""

from __future__ import annotations

import argparse
from typing import Any

from models import db
from models.cli.output import CommandError, Result, add_json_flag
from models.demo import WORKSPACE_NAME, build_demo
from models.settings import get_settings

COUNT_NAMES = {"skus": "SKUs", "paid_invoices": "paid"}


async def demo(_: argparse.Namespace) -> Result:
    try:
        port = get_settings().port
    except ValueError:
        raise CommandError("PORT must be a whole number") from None
    await db.migrate()
    built = await build_demo()
    url = f"http://127.0.0.1:{port}/api/v1/orders"
    curl = f'curl -H "Authorization: Bearer {built.token}" {url}'
    if built.created:
        counts = ", ".join(f"{n} {COUNT_NAMES.get(name, name)}" for name, n in built.counts.items())
        summary = f"built workspace {built.workspace_id} {WORKSPACE_NAME!r} (trial): {counts}"
    else:
        summary = f"found workspace {built.workspace_id} {WORKSPACE_NAME!r}"
        if built.trial_renewed:
            summary += "; its trial had ended, so a new one started"
    lines = [
        summary,
        f"token for user {built.user_id} (shown once; expires {built.expires_at:%Y-%m-%d}):",
        built.token,
        "try it:",
        curl,
    ]
    data = {
        "workspace_id": built.workspace_id,
        "user_id": built.user_id,
        "created": built.created,
        "trial_renewed": built.trial_renewed,
        "counts": built.counts,
        "token": built.token,
        "expires_at": built.expires_at.isoformat(timespec="seconds"),
        "curl": curl,
    }
    return Result("\n".join(lines), data)


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "demo",
        help="migrate, then build a trial workspace with sample data and print a token",
        description=f"Builds the {WORKSPACE_NAME!r} workspace once (reused on later runs) "
        "and prints a fresh token with a ready-to-paste curl line.",
    )
    add_json_flag(parser)
    parser.set_defaults(handler=demo)
