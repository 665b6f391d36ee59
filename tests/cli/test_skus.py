"""A SKU's cost from the command line: `sku create --cost-cents`, `sku update CODE
--cost-cents` (a whole number of minor units, or `none` for unknown) and the optional `cost`
column of `sku import` (major units, as the admin types amounts); what the API then shows."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from models.tables import Sku
from tests import factories
from tests.models.test_cli import SKU_ARGS, assert_refused, new_workspace, write_csv

pytestmark = pytest.mark.usefixtures("backend")

HEADER = "code,style,brand,colour,colour_hex,size,on_hand,cost\n"
T0 = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.UTC)


async def _costs(workspace_id: int) -> dict[str, int | None]:
    rows = await Sku.select(Sku.code, Sku.cost_cents).where(Sku.workspace == workspace_id)
    return {row["code"]: row["cost_cents"] for row in rows}


async def _api_costs(client: Any, ws: Any) -> dict[str, int | None]:
    auth = await factories.headers(await factories.user(ws))
    response = await client.get("/api/v1/inventory", headers=auth)
    assert response.status_code == 200, response.text
    return {row["code"]: row["cost_cents"] for row in response.json()["data"]}


async def test_create_takes_the_cost_in_minor_units_or_leaves_it_unknown(pressline):
    ws_id = await new_workspace(pressline)
    create = f"sku create --workspace {ws_id} {SKU_ARGS} --on-hand 10"
    run = await pressline(f"{create} --code TEE-M --cost-cents 251 --json")
    assert run.code == 0, run.err
    assert run.data["cost_cents"] == 251
    human = await pressline(f"{create} --code TEE-L")
    assert human.code == 0, human.err
    assert "cost unknown" in human.out
    free = await pressline(f"{create} --code TEE-S --cost-cents 0")
    assert "cost 0 (minor units)" in free.out
    assert await _costs(ws_id) == {"TEE-M": 251, "TEE-L": None, "TEE-S": 0}

    run = await pressline(f"{create} --code TEE-XL --cost-cents -1 --json")
    assert run.code == 1 and run.data["errors"] == {"cost_cents": ["must be 0 or more"]}
    run = await pressline(f"{create} --code TEE-XL --cost-cents 100000001")
    assert_refused(run, "cost_cents: must be at most 100000000")
    assert (await pressline(f"{create} --code TEE-XL --cost-cents 2.51")).code == 2
    assert not await Sku.exists().where(Sku.code == "TEE-XL")


async def test_update_sets_and_clears_the_cost(pressline, client):
    ws = await factories.workspace()
    await factories.sku(ws, "TEE/BLK M", cost_cents=100)
    await factories.sku(ws, "CAP")
    before = await Sku.objects().where(Sku.code == "TEE/BLK M").first()
    update = f"sku update --workspace {ws.id}"

    run = await pressline(f"{update} 'TEE/BLK M' --cost-cents 100000000 --json")
    assert run.code == 0, run.err
    assert (run.data["code"], run.data["cost_cents"]) == ("TEE/BLK M", 100_000_000)
    assert await _costs(ws.id) == {"TEE/BLK M": 100_000_000, "CAP": None}
    after = await Sku.objects().where(Sku.code == "TEE/BLK M").first()
    assert after.updated_at > before.updated_at
    assert (after.on_hand, after.reorder_point) == (before.on_hand, before.reorder_point)

    human = await pressline(f"{update} 'TEE/BLK M' --cost-cents none")
    assert human.code == 0, human.err
    assert human.out.strip().endswith("in workspace " + str(ws.id) + ": cost unknown")
    assert (await pressline(f"{update} CAP --cost-cents 0")).code == 0
    assert await _api_costs(client, ws) == {"TEE/BLK M": None, "CAP": 0}


async def test_an_update_is_a_change_for_updated_since(pressline, client):
    ws, _, auth = await factories.account()
    await factories.sku(ws, "SET", updated_at=T0)
    await factories.sku(ws, "LEFT", updated_at=T0)

    run = await pressline(f"sku update --workspace {ws.id} SET --cost-cents 399")

    assert run.code == 0, run.err
    since = {"updated_since": "2026-03-01T09:35:00Z"}
    response = await client.get("/api/v1/inventory", params=since, headers=auth)
    rows = response.json()["data"]
    assert [(row["code"], row["cost_cents"]) for row in rows] == [("SET", 399)]


async def test_update_refusals_change_nothing(pressline):
    ws = await factories.workspace()
    other = await factories.workspace()
    await factories.sku(ws, "TEE", cost_cents=500)
    await factories.sku(other, "THEIRS", cost_cents=700)
    update = f"sku update --workspace {ws.id}"

    assert_refused(await pressline(f"{update} TEE --cost-cents -5"), "must be 0 or more")
    run = await pressline(f"{update} TEE --cost-cents 100000001 --json")
    assert run.code == 1 and run.data["errors"] == {"cost_cents": ["must be at most 100000000"]}
    assert_refused(await pressline(f"{update} TEE"), "nothing to change")
    assert_refused(await pressline(f"{update} THEIRS --cost-cents 1"), "SKU THEIRS not found")
    assert_refused(await pressline(f"{update} 'T\x00E' --cost-cents 1"), "not found")
    run = await pressline("sku update --workspace 999 TEE --cost-cents 1")
    assert_refused(run, "workspace 999 not found")
    usage = await pressline(f"{update} TEE --cost-cents 2.50")
    assert usage.code == 2 and "expected a whole number or 'none'" in usage.err
    assert await _costs(ws.id) == {"TEE": 500}
    assert await _costs(other.id) == {"THEIRS": 700}


async def test_import_reads_the_cost_column_in_major_units(pressline, tmp_path, client):
    ws = await factories.workspace()
    path = write_csv(
        tmp_path,
        "code,style,brand,colour,colour_hex,size,on_hand,Cost\n"
        "TEE-S,Tee,Gildan,Black,#000000,S,10,2.51\n"
        "TEE-M,Tee,Gildan,Black,#000000,M,10,\n"
        'TEE-L,Tee,Gildan,Black,#000000,L,10,"1,250.00"\n'
        "TEE-XL,Tee,Gildan,Black,#000000,XL,10, 3 \n"
        'TEE-2XL,Tee,Gildan,Black,#000000,2XL,10,"4,5"\n'
        "TEE-3XL,Tee,Gildan,Black,#000000,3XL,10,1000000.00\n",
    )
    run = await pressline(f"sku import --workspace {ws.id} {path} --json")
    assert run.code == 0, run.err
    assert run.data["created"] == 6
    assert await _api_costs(client, ws) == {
        "TEE-S": 251,
        "TEE-M": None,
        "TEE-L": 125_000,
        "TEE-XL": 300,
        "TEE-2XL": 450,
        "TEE-3XL": 100_000_000,
    }


async def test_import_names_the_row_and_column_of_a_bad_cost(pressline, tmp_path):
    ws_id = await new_workspace(pressline)
    path = write_csv(
        tmp_path,
        HEADER + "A,Tee,Gildan,Black,#000000,S,10,2.51\n"
        "B,Tee,Gildan,Black,#000000,M,10,cheap\n"
        "C,Tee,Gildan,Black,#000000,L,10,-2.51\n"
        "D,Tee,Gildan,Black,#000000,XL,10,1000000.01\n"
        "E,Tee,Gildan,Black,#000000,S,10,2.515\n"
        'F,Tee,Gildan,Black,#000000,S,10,"1,250"\n',
    )
    run = await pressline(f"sku import --workspace {ws_id} {path} --json")
    assert run.code == 1
    errors = run.data["errors"]
    assert list(errors) == ["line 3", "line 4", "line 5", "line 6", "line 7"]
    assert errors["line 3"] == [
        "cost: Type an amount with at most two decimals, e.g. 1250, 1250.50, 1,250.50 or 12,50 "
        "(a comma before the last one or two digits is the decimal point)."
    ]
    assert errors["line 4"] == [
        "cost: Type the amount without a minus sign, e.g. 12.50: it cannot be negative here."
    ]
    assert errors["line 5"] == ["cost: must be at most 1,000,000.00"]
    assert errors["line 6"][0].startswith("cost: Type an amount with at most two decimals")
    assert errors["line 7"] == [
        "cost: Type the amount as 1250 (or 1,250.00) or as 1.25: 1,250 could be either."
    ]
    human = await pressline(f"sku import --workspace {ws_id} {path}")
    assert_refused(human, "5 problems:", "\n  line 3: cost: Type an amount")
    assert await Sku.count() == 0
