"""`pressline workspace create|set|list`: tenants, their plan, trial and order-flow settings."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import click

from cli.output import DECIMAL, ON_OFF, Result, command, moment
from models import accounts, plans
from models.mail import workspace as mail
from models.mail.stages import EMAIL_STAGES

PLAN_HELP = "|".join(plans.PLANS)


@click.group()
def workspace() -> None:
    """Create, list and configure workspaces (tenants)."""


class LimitOrNone(click.ParamType):
    """`--open-order-limit`: a whole number, or `none` to fall back to the plan's figure."""

    name = "N|none"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> int | accounts.Keep | None:
        if value is None or isinstance(value, int | accounts.Keep):
            return value
        if value.strip().lower() in ("none", "default"):
            return None
        try:
            return int(value)
        except ValueError:
            self.fail(f"expected a whole number or 'none', got {value!r}", param, ctx)


def describe(info: accounts.WorkspaceInfo) -> str:
    plan = info.plan
    if info.effective_plan != plan:
        plan += f", trial as {info.effective_plan} until {moment(info.trial_ends_at)}"
    limit = info.open_order_limit
    return (
        f"workspace {info.id} {info.name!r}: plan {plan}; {info.currency}, "
        f"tax {info.tax_rate}%, {info.timezone}; open-order limit "
        f"{'plan default' if limit is None else limit}; artwork approval "
        f"{'on' if info.require_artwork_approval else 'off'}; strict sequence "
        f"{'on' if info.strict_sequence else 'off'}"
        + ("; prices include tax" if info.prices_include_tax else "")
    )


@command(workspace, "create")
@click.option("--name", required=True, help="The shop's name (up to 200 characters).")
@click.option("--plan", default="starter", show_default=True, help=PLAN_HELP)
@click.option("--currency", default="GBP", show_default=True, help="Three-letter currency code.")
@click.option(
    "--tax-rate",
    type=DECIMAL,
    default=Decimal(20),
    show_default=True,
    help="Tax rate in percent, 0-100, at most 2 decimal places.",
)
@click.option(
    "--timezone",
    default="Europe/London",
    show_default=True,
    help="IANA time zone: order numbers' years and due dates follow it.",
)
@click.option(
    "--open-order-limit", type=int, metavar="N", help="Override the plan's open-order limit."
)
@click.option("--trial-days", type=int, metavar="N", help="Count as premium for N days (1-3650).")
@click.option(
    "--require-artwork-approval",
    type=ON_OFF,
    default="on",
    show_default=True,
    help="on: an order leaves the artwork stage only once its artwork is approved.",
)
async def create(
    name: str,
    plan: str,
    currency: str,
    tax_rate: Decimal,
    timezone: str,
    open_order_limit: int | None,
    trial_days: int | None,
    require_artwork_approval: bool,
) -> Result:
    """Create a workspace (prints its id)."""
    row = await accounts.create_workspace(
        name=name,
        plan=plan,
        currency=currency,
        tax_rate=tax_rate,
        timezone=timezone,
        open_order_limit=open_order_limit,
        trial_days=trial_days,
        require_artwork_approval=require_artwork_approval,
    )
    info = accounts.workspace_info(row)
    return Result(f"created {describe(info)}", info)


@command(workspace, "set")
@click.option("--id", "workspace_id", type=int, required=True, help="Workspace id.")
@click.option("--plan", help=PLAN_HELP)
@click.option(
    "--open-order-limit",
    type=LimitOrNone(),
    default=accounts.KEEP,
    show_default=False,
    help="Override the plan's open-order limit; 'none' removes the override.",
)
@click.option(
    "--tax-rate",
    type=DECIMAL,
    help="Tax rate in percent, 0-100: applies to orders created or edited afterwards.",
)
@click.option("--timezone", help="IANA time zone, e.g. Europe/London.")
@click.option(
    "--require-artwork-approval",
    type=ON_OFF,
    help="on: an order leaves the artwork stage only once its artwork is approved.",
)
@click.option("--strict-sequence", type=ON_OFF, help="on: orders move one stage at a time.")
@click.option(
    "--prices-include-tax",
    type=ON_OFF,
    help="on: new orders' line prices include tax (an order may say otherwise).",
)
@click.option(
    "--end-trial", is_flag=True, help="End a running trial now: the workspace's own plan applies."
)
@click.option("--email", help="The shop's address: Reply-To of customer emails ('' removes it).")
@click.option(
    "--mail-stages",
    metavar="STAGE,...",
    help="Moves that email the customer ('' for none; proofs always do): " + ",".join(EMAIL_STAGES),
)
async def update(
    workspace_id: int,
    plan: str | None,
    open_order_limit: int | accounts.Keep | None,
    tax_rate: Decimal | None,
    timezone: str | None,
    require_artwork_approval: bool | None,
    strict_sequence: bool | None,
    prices_include_tax: bool | None,
    end_trial: bool,
    email: str | None,
    mail_stages: str | None,
) -> Result:
    """Change a workspace's plan, trial or settings (those not given stay as they are)."""
    stages = (
        None if mail_stages is None else [s.strip() for s in mail_stages.split(",") if s.strip()]
    )
    emailing = email is not None or stages is not None
    others = (
        plan is not None
        or end_trial
        or tax_rate is not None
        or timezone is not None
        or require_artwork_approval is not None
        or strict_sequence is not None
        or prices_include_tax is not None
        or not isinstance(open_order_limit, accounts.Keep)
    )
    if others or not emailing:
        row = await accounts.set_workspace(
            workspace_id,
            plan=plan,
            open_order_limit=open_order_limit,
            tax_rate=tax_rate,
            timezone=timezone,
            require_artwork_approval=require_artwork_approval,
            strict_sequence=strict_sequence,
            prices_include_tax=prices_include_tax,
            end_trial=end_trial,
        )
        info = accounts.workspace_info(row)
        if not emailing:
            return Result(f"updated {describe(info)}", info)
    settings = await mail.set_mail_settings(workspace_id, email=email, mail_stages=stages)
    human = (
        f"updated workspace {workspace_id}: email {settings.email or 'none'}; "
        f"emailed stages {', '.join(settings.mail_stages) or 'none'} (and every proof)"
    )
    return Result(human, settings)


@command(workspace, "list")
async def list_workspaces() -> Result:
    """Every workspace of the deployment, oldest first."""
    infos = await accounts.list_workspaces()
    human = "\n".join(describe(info) for info in infos) or "no workspaces"
    return Result(human, {"workspaces": infos})
