"""`pressline migrate`."""

from __future__ import annotations

from cli.output import Result, command
from models import db


@command(None, "migrate", migrates=True)
async def migrate() -> Result:
    """Apply pending database migrations (safe to run repeatedly)."""
    await db.migrate()
    return Result("migrations applied", {"ok": True})
