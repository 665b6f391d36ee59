"""`pressline demo`: migrate, build (or find) the sample workspace, print a working token and
the admin login."""

from __future__ import annotations

import click

from cli.output import Result, command
from models import db
from models.demo import WORKSPACE_NAME, build_demo
from models.settings import get_settings

COUNT_NAMES = {"skus": "SKUs", "paid_invoices": "paid"}


def _mail_line() -> str:
    """Where the customer emails go (docs/customers.md)."""
    if get_settings().smtp_url:
        return "customer emails: sent by the worker through SMTP_URL"
    return (
        "customer emails: SMTP_URL is unset, so the worker writes each one to its log "
        "(lines 'email (not sent: SMTP_URL is unset)')"
    )


@command(None, "demo", migrates=True)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    help="Port the web process listens on, for the printed addresses (default: PORT, 8000).",
)
async def demo(port: int | None) -> Result:
    """Migrate, then build the trial workspace 'Demo Print Co' with sample data (once; later
    runs reuse it) and print a fresh API token (30 days; the previous demo token is revoked)
    with a ready-to-paste curl line, and the admin's address and email, with a password on
    the first run (later runs keep the owner's own)."""
    port = port or get_settings().port
    await db.migrate()
    built = await build_demo()
    base = f"http://127.0.0.1:{port}"
    curl = f'curl -H "Authorization: Bearer {built.token}" {base}/api/v1/orders'
    admin = f"{base}/admin"
    if built.created:
        counts = ", ".join(f"{n} {COUNT_NAMES.get(name, name)}" for name, n in built.counts.items())
        summary = f"built workspace {built.workspace_id} {WORKSPACE_NAME!r} (trial): {counts}"
    else:
        summary = f"found workspace {built.workspace_id} {WORKSPACE_NAME!r}"
        if built.trial_renewed:
            summary += "; its trial had ended, so a new one started"
    revoked = (
        f"; {built.revoked_tokens} earlier demo token(s) revoked" if built.revoked_tokens else ""
    )
    if built.admin_password is None:
        password = (
            f"password unchanged (`pressline user set-password {built.user_id}` sets a new one)"
        )
    else:
        password = f"password {built.admin_password}"
    lines = [
        summary,
        f"token for user {built.user_id} (shown once; expires {built.expires_at:%Y-%m-%d}"
        f"{revoked}):",
        built.token,
        f"admin: {admin}  email {built.admin_email}  {password}",
        _mail_line(),
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
        "expires_at": built.expires_at,
        "curl": curl,
        "admin_url": admin,
        "admin_email": built.admin_email,
        "admin_password": built.admin_password,
        "revoked_tokens": built.revoked_tokens,
    }
    return Result("\n".join(lines), data)
