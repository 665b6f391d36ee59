"""`pressline pricing export|import`: the price list as the API's document, written to a file
or standard output and read back; an import checked as `PUT /api/v1/pricing` checks a body
(unknown fields, the rules between fields, each problem by its dot path) changes nothing
when refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from models.pricing import defaults, store
from models.pricing.document import EMPTY, encode
from models.tables import Workspace
from tests import factories
from tests.models.test_cli import assert_refused, new_workspace

pytestmark = pytest.mark.usefixtures("backend")


async def _api_body(client: Any, workspace_id: int) -> bytes:
    ws = await Workspace.objects().where(Workspace.id == workspace_id).first()
    auth = await factories.headers(await factories.user(ws))
    response = await client.get("/api/v1/pricing", headers=auth)
    assert response.status_code == 200, response.text
    return bytes(response.content)


async def test_export_then_import_round_trip(pressline, client, tmp_path: Path):
    source = await new_workspace(pressline, "--plan premium")  # the starting price list
    exported = tmp_path / "prices.json"
    run = await pressline(f"pricing export --workspace {source} {exported}")
    assert run.code == 0, run.err
    assert run.out == (
        f"exported the price list of workspace {source} to {exported} (4 matrices, 2 setups, "
        "5 markup rows, 4 size upcharges)\n"
    )
    body = exported.read_bytes()
    assert body == await _api_body(client, source) == encode(defaults.price_list())
    for flags in ("", " --json"):  # standard output: the document itself, and a newline
        run = await pressline(f"pricing export --workspace {source} -{flags}")
        assert (run.code, run.out, run.err) == (0, body.decode() + "\n", "")

    document = json.loads(body)
    document["matrices"][0]["rows"][0]["cells"][0] = 499
    document["size_upcharges_cents"]["6XL"] = 650
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(document, indent=2))
    target = (await factories.workspace()).id  # no price list yet
    assert await store.read(target) == EMPTY
    run = await pressline(f"pricing import --workspace {target} {changed} --json")
    assert run.code == 0, run.err
    assert run.data == {"workspace_id": target, "matrices": 4, "setups": 2,
                        "garment_markups": 5, "size_upcharges": 5}  # fmt: skip
    stored = await store.read(target)
    assert stored.matrices[0].rows[0].cells[0] == 499
    assert stored.size_upcharges_cents["6XL"] == 650
    run = await pressline(f"pricing export --workspace {target} -")
    assert json.loads(run.out) == document
    assert run.out.encode() == await _api_body(client, target) + b"\n"

    run = await pressline(f"pricing import --workspace {target} -", input=body.decode())
    assert run.code == 0, run.err
    assert run.out == (
        f"imported the price list of workspace {target} (4 matrices, 2 setups, 5 markup rows, "
        "4 size upcharges)\n"
    )
    assert await store.read(target) == defaults.price_list()


async def test_an_invalid_file_is_refused_and_nothing_changes(pressline, tmp_path: Path):
    ws = await new_workspace(pressline)
    starting = defaults.price_list()
    good = json.loads(encode(starting))

    async def refused(document: Any, *lines: str, as_json: bool = False) -> Any:
        path = tmp_path / "prices.json"
        path.write_text(document if isinstance(document, str) else json.dumps(document))
        run = await pressline(f"pricing import --workspace {ws} {path}" + " --json" * as_json)
        if as_json:
            assert run.code == 1 and run.err == ""
        else:
            assert_refused(run, *lines)
        assert await store.read(ws) == starting
        return run

    unordered = json.loads(json.dumps(good))
    unordered["matrices"][0]["rows"][2]["min_quantity"] = 12
    unordered["matrices"][2]["columns"] = [5000, 5000, 15000]
    unordered["garment_markups"][0]["min_quantity"] = 2
    run = await refused(
        unordered,
        "error: 3 problems:\n",
        "  matrices.0.rows.2.min_quantity: The matrices.0.rows.2.min_quantity field must be "
        "more than the row before (12).\n",
        "  matrices.2.columns: The matrices.2.columns field must be in ascending order.\n",
        "  garment_markups.0.min_quantity: The garment_markups.0.min_quantity field must be 1",
    )
    run = await refused(unordered, as_json=True)
    assert set(run.data["errors"]) == {
        "matrices.0.rows.2.min_quantity", "matrices.2.columns", "garment_markups.0.min_quantity"
    }  # fmt: skip

    await refused({**good, "colour": "red"}, "error: colour: is not a field of the price list\n")
    typo = json.loads(json.dumps(good))
    typo["matrices"][1]["row"] = typo["matrices"][1].pop("rows")
    await refused(typo, "error: matrices.1.row: is not a field of the price list\n")
    text = json.loads(json.dumps(good))
    text["matrices"][0]["rows"][1]["cells"][3] = "2.50"
    await refused(text, "error: matrices.0.rows.1.cells.3: Expected `int`, got `str`\n")
    negative = json.loads(json.dumps(good))
    negative["setups"]["screen"]["per_colour_cents"] = -1
    await refused(negative, "error: setups.screen.per_colour_cents: Expected `int` >= 0\n")
    await refused({"matrices": [{"method": "screen"}]},
                  "error: matrices.0.columns: is required\n")  # fmt: skip
    await refused("{not json", "error: file: is not a JSON price list: JSON is malformed")
    await refused("[]", "error: file: Expected `object`, got `array`\n")

    run = await pressline(f"pricing import --workspace {ws} {tmp_path / 'missing.json'}")
    assert_refused(run, "cannot read", "missing.json")
    run = await pressline(f"pricing import --workspace {ws} -", input="")
    assert_refused(run, "error: file: is not a JSON price list: Input data was truncated")
    assert await store.read(ws) == starting


async def test_an_unknown_workspace_is_refused(pressline, tmp_path: Path):
    path = tmp_path / "prices.json"
    run = await pressline(f"pricing export --workspace 999 {path}")
    assert_refused(run, "Workspace not found")
    assert not path.exists()
    path.write_bytes(encode(EMPTY))
    assert_refused(await pressline(f"pricing import --workspace 999 {path}"), "Workspace not found")
