"""A workspace's order rules outside the admin: new workspaces (the demo's too) start with the
artwork approval rule on, and `pressline workspace set` changes the tax rate and time zone
under the rules `workspace create` applies."""

from __future__ import annotations

from decimal import Decimal

import pytest

from models import accounts, demo
from models.errors import InvalidFields
from models.tables import Workspace

pytestmark = pytest.mark.usefixtures("backend")


async def _row(ws_id: int) -> Workspace:
    row = await Workspace.objects().where(Workspace.id == ws_id).first()
    assert row is not None
    return row


async def test_new_workspaces_require_approved_artwork():
    made = await accounts.create_workspace(name="Inkwell Prints")
    assert (await _row(made.id)).require_artwork_approval is True
    without = await accounts.create_workspace(name="Quick Prints", require_artwork_approval=False)
    assert (await _row(without.id)).require_artwork_approval is False
    built = await demo.build_demo()
    assert (await _row(built.workspace_id)).require_artwork_approval is True
    # The column's own default (a row written without the field, as SQL would) is on too.
    await Workspace.raw("INSERT INTO workspaces (name) VALUES ('Raw Prints')")
    raw = await Workspace.objects().where(Workspace.name == "Raw Prints").first()
    assert raw is not None and raw.require_artwork_approval


async def test_the_command_line_creates_with_the_rule_on_unless_told(pressline):
    run = await pressline("workspace create --name 'Inkwell Prints'")
    assert run.code == 0, run.err
    assert "artwork approval on" in run.out
    run = await pressline("workspace create --name 'Quick Prints' --require-artwork-approval off")
    assert run.code == 0, run.err
    assert "artwork approval off" in run.out


async def test_set_changes_the_tax_rate_and_time_zone(pressline):
    ws = await accounts.create_workspace(name="Inkwell Prints", tax_rate="20")
    run = await pressline(
        f"workspace set --id {ws.id} --tax-rate 17.5 --timezone America/New_York --json"
    )
    assert run.code == 0, run.err
    assert (run.data["tax_rate"], run.data["timezone"]) == ("17.50", "America/New_York")
    row = await _row(ws.id)
    assert (Decimal(row.tax_rate), row.timezone) == (Decimal("17.50"), "America/New_York")
    assert row.require_artwork_approval  # settings not given stay as they are

    run = await pressline(f"workspace set --id {ws.id} --tax-rate 0")
    assert run.code == 0, run.err
    assert "tax 0.00%, America/New_York" in run.out


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ("--tax-rate 101", "tax_rate: must be between 0 and 100"),
        ("--tax-rate -1", "tax_rate: must be between 0 and 100"),
        ("--tax-rate 12.345", "tax_rate: must have at most 2 decimal places"),
        ("--timezone Mars/Olympus", "timezone: unknown time zone 'Mars/Olympus'"),
        ("--timezone ''", "timezone: unknown time zone ''"),
    ],
)
async def test_set_refuses_what_create_refuses(pressline, args: str, error: str):
    ws = await accounts.create_workspace(name="Inkwell Prints", tax_rate="20")
    run = await pressline(f"workspace set --id {ws.id} {args} --strict-sequence on")
    assert run.code == 1, run.out
    assert run.err.startswith("error: ") and error in run.err
    row = await _row(ws.id)
    assert (Decimal(row.tax_rate), row.timezone, row.strict_sequence) == (
        Decimal("20.00"),
        "UTC",
        False,
    )


async def test_set_workspace_names_each_bad_field():
    ws = await accounts.create_workspace(name="Inkwell Prints")
    with pytest.raises(InvalidFields) as refused:
        await accounts.set_workspace(ws.id, tax_rate="abc", timezone="Nowhere/Land")
    assert refused.value.errors == {
        "tax_rate": ["must be a number"],
        "timezone": ["unknown time zone 'Nowhere/Land' (e.g. Europe/London)"],
    }
