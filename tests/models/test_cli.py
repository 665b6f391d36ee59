"""The operators' command line, run in-process against the test database (both engines).

`cli.run` is `main` without `asyncio.run`: the command runs on the test loop, so it shares
the web app's PostgreSQL pool (and must leave it open); one test runs the installed
`pressline` script as a separate process to cover `main` itself.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import shlex
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from models import clock, db
from models.tables import ApiToken, Contact, Customer, PriceList, Sku, User, Workspace
from tests import factories
from tests.cli_runner import Run

pytestmark = pytest.mark.usefixtures("backend")

SKU_ARGS = "--style 'Classic Tee' --brand Gildan --colour Black --colour-hex '#0a0a0a' --size M"
SKU_HEADER = "code,style,brand,colour,colour_hex,size,on_hand\n"


async def new_workspace(pressline: Any, extra: str = "") -> int:
    run = await pressline(f"workspace create --name 'Inkwell Prints' {extra} --json")
    assert run.code == 0, run.err
    return int(run.data["id"])


async def new_user(pressline: Any, workspace_id: int) -> int:
    run = await pressline(
        f"user create --workspace {workspace_id} --name Sam --email s@ink.test --json"
    )
    assert run.code == 0, run.err
    return int(run.data["id"])


async def new_token(pressline: Any, user_id: int, extra: str = "") -> dict[str, Any]:
    run = await pressline(f"token create --user {user_id} {extra} --json")
    assert run.code == 0, run.err
    return run.data


def assert_refused(run: Run, *fragments: str) -> None:
    """Exit 1 with `error: ...` on stderr, nothing on stdout, no traceback."""
    assert run.code == 1, (run.out, run.err)
    assert run.out == ""
    assert run.err.startswith("error: ")
    assert "Traceback" not in run.err
    for fragment in fragments:
        assert fragment in run.err


# --- workspace -----------------------------------------------------------------------------


async def test_workspace_create_defaults_human_line(pressline):
    run = await pressline("workspace create --name 'Inkwell Prints'")
    assert run.code == 0, run.err
    ws = await Workspace.objects().first()
    assert ws is not None
    assert run.out.startswith(f"created workspace {ws.id} 'Inkwell Prints': plan starter")
    assert (ws.plan, ws.currency, ws.timezone) == ("starter", "GBP", "Europe/London")
    assert Decimal(ws.tax_rate) == Decimal("20.00")
    assert ws.trial_ends_at is None and ws.open_order_limit is None


async def test_workspace_create_json_with_every_option(pressline):
    before = clock.now()
    run = await pressline(
        "workspace create --name Inkwell --plan standard --currency eur --tax-rate 7.5"
        " --timezone Europe/Berlin --open-order-limit 40 --trial-days 14 --json"
    )
    assert run.code == 0, run.err
    data = run.data
    ws = await Workspace.objects().where(Workspace.id == data["id"]).first()
    assert ws is not None
    assert data["plan"] == "standard" and data["effective_plan"] == "premium"
    assert (ws.currency, ws.timezone, ws.open_order_limit) == ("EUR", "Europe/Berlin", 40)
    assert data["tax_rate"] == "7.50"
    expected = before + dt.timedelta(days=14)
    assert expected <= ws.trial_ends_at <= expected + dt.timedelta(seconds=30)


async def test_workspace_create_lists_every_bad_field(pressline):
    run = await pressline(
        "--json workspace create --name ' ' --plan gold --currency POUND --tax-rate 100.5"
        " --timezone Mars/Olympus --trial-days 0"
    )
    assert run.code == 1
    fields = {"name", "plan", "currency", "tax_rate", "timezone", "trial_days"}
    assert set(run.data["errors"]) == fields
    assert "plan: must be one of starter, standard, premium, enterprise" in run.data["error"]
    assert await Workspace.count() == 0
    human = await pressline("workspace create --name X --tax-rate 12.345")
    assert_refused(human, "tax_rate: must have at most 2 decimal places")


async def test_workspace_set_changes_and_clears_settings(pressline):
    ws_id = await new_workspace(pressline, "--open-order-limit 3")
    before = await Workspace.objects().where(Workspace.id == ws_id).first()
    assert before is not None
    run = await pressline(
        f"workspace set --id {ws_id} --plan enterprise --open-order-limit none"
        " --require-artwork-approval on --strict-sequence on --json"
    )
    assert run.code == 0, run.err
    assert run.data["plan"] == "enterprise" and run.data["open_order_limit"] is None
    ws = await Workspace.objects().where(Workspace.id == ws_id).first()
    assert ws is not None
    assert (ws.plan, ws.open_order_limit) == ("enterprise", None)
    assert ws.require_artwork_approval and ws.strict_sequence
    assert ws.updated_at > before.updated_at
    # Settings not given stay as they are.
    run = await pressline(f"workspace set --id {ws_id} --strict-sequence off")
    assert run.code == 0 and "strict sequence off" in run.out
    ws = await Workspace.objects().where(Workspace.id == ws_id).first()
    assert ws is not None
    assert ws.plan == "enterprise" and ws.require_artwork_approval and not ws.strict_sequence
    run = await pressline(f"workspace set --id {ws_id} --open-order-limit 12")
    assert run.code == 0 and "open-order limit 12" in run.out
    assert "prices include tax" not in run.out
    run = await pressline(f"workspace set --id {ws_id} --prices-include-tax on")
    assert run.code == 0 and run.out.rstrip().endswith("; prices include tax")
    ws = await Workspace.objects().where(Workspace.id == ws_id).first()
    assert ws is not None and ws.prices_include_tax


async def test_workspace_set_refusals(pressline):
    ws_id = await new_workspace(pressline)
    run = await pressline("workspace set --id 999 --plan premium")
    assert_refused(run, "workspace 999 not found")
    assert_refused(await pressline(f"workspace set --id {ws_id}"), "nothing to change")
    assert_refused(await pressline(f"workspace set --id {ws_id} --plan gold"), "plan: must be")
    run = await pressline(f"workspace set --id {ws_id} --open-order-limit -1 --json")
    assert run.code == 1 and run.data["errors"] == {"open_order_limit": ["must be 0 or more"]}
    usage = await pressline(f"workspace set --id {ws_id} --strict-sequence maybe")
    assert usage.code == 2
    assert "Invalid value for '--strict-sequence'" in usage.err and "on or off" in usage.err


# --- users ---------------------------------------------------------------------------------


async def test_user_create_and_refusals(pressline):
    ws_id = await new_workspace(pressline)
    run = await pressline(f"user create --workspace {ws_id} --name Sam --email sam@ink.test")
    assert run.code == 0, run.err
    user = await User.objects().first()
    assert user is not None
    assert run.out.strip() == f"created user {user.id} Sam <sam@ink.test> in workspace {ws_id}"
    assert user.is_active and user.workspace == ws_id
    again = await pressline(f"--json user create --workspace {ws_id} --name S --email sam@ink.test")
    assert again.code == 1 and list(again.data["errors"]) == ["email"]
    run = await pressline(f"user create --workspace {ws_id} --name '' --email nope")
    assert_refused(run, "2 problems", "name: must not be blank", "email: must be an email")
    run = await pressline("user create --workspace 999 --name A --email a@b.co")
    assert_refused(run, "workspace 999 not found")
    assert await User.count() == 1


async def test_user_deactivate_and_activate(pressline):
    user_id = await new_user(pressline, await new_workspace(pressline))
    run = await pressline(f"user deactivate {user_id} --json")
    assert run.code == 0, run.err
    assert run.data["is_active"] is False and run.data["deactivated_at"] is not None
    user = await User.objects().where(User.id == user_id).first()
    assert user is not None and not user.is_active and user.deactivated_at is not None
    run = await pressline(f"user activate {user_id}")
    assert run.code == 0 and run.out.strip() == f"user {user_id} active"
    user = await User.objects().where(User.id == user_id).first()
    assert user is not None and user.is_active and user.deactivated_at is None
    assert_refused(await pressline("user deactivate 999"), "user 999 not found")
    refused = await pressline("user activate 999 --json")
    assert (refused.code, refused.data, refused.err) == (1, {"error": "user 999 not found"}, "")


# --- tokens --------------------------------------------------------------------------------


async def test_token_create_prints_the_token_once(pressline):
    user_id = await new_user(pressline, await new_workspace(pressline))
    before = clock.now()
    run = await pressline(f"token create --user {user_id} --name 'shop sync'")
    assert run.code == 0, run.err
    token = run.out.splitlines()[1]
    assert token.startswith("plk_") and len(token) >= 40
    row = await ApiToken.objects().first()
    assert row is not None
    assert row.name == "shop sync" and token not in (row.digest, row.prefix)
    assert row.prefix == token[:8]
    expected = before + dt.timedelta(days=365)
    assert expected <= row.expires_at <= expected + dt.timedelta(seconds=30)

    data = await new_token(pressline, user_id, "--expires-in-days 7")
    assert set(data) >= {"id", "token", "expires_at"}
    expires = dt.datetime.fromisoformat(data["expires_at"])
    assert abs(expires - (clock.now() + dt.timedelta(days=7))) < dt.timedelta(seconds=30)
    data = await new_token(pressline, user_id, "--expires-at 2031-05-01T12:00:00")
    assert data["expires_at"] == "2031-05-01T12:00:00+00:00"


async def test_token_create_refusals(pressline):
    user_id = await new_user(pressline, await new_workspace(pressline))
    assert_refused(await pressline("token create --user 999"), "user 999 not found")
    run = await pressline(f"token create --user {user_id} --expires-at 2020-01-01")
    assert_refused(run, "expires_at: must be in the future")
    run = await pressline(f"token create --user {user_id} --expires-in-days 0")
    assert_refused(run, "expires_in_days: must be between 1 and")
    usage = await pressline(
        f"token create --user {user_id} --expires-in-days 3 --expires-at 2031-01-01"
    )
    assert usage.code == 2 and "not both" in usage.err
    await pressline(f"user deactivate {user_id}")
    assert_refused(await pressline(f"token create --user {user_id}"), "is deactivated")
    assert await ApiToken.count() == 0


async def test_token_list_never_shows_the_token(pressline):
    user_id = await new_user(pressline, await new_workspace(pressline))
    first = await new_token(pressline, user_id, "--name one")
    second = await new_token(pressline, user_id)
    await pressline(f"token revoke {first['id']}")
    run = await pressline(f"token list --user {user_id} --json")
    assert run.code == 0, run.err
    rows = run.data["tokens"]
    assert [row["id"] for row in rows] == [first["id"], second["id"]]
    shown = {"id", "user_id", "name", "prefix", "created_at", "expires_at", "revoked_at"}
    assert set(rows[0]) == shown
    assert rows[0]["revoked_at"] is not None and rows[1]["revoked_at"] is None
    digests = [row["digest"] for row in await ApiToken.select(ApiToken.digest)]
    human = await pressline(f"token list --user {user_id}")
    assert human.out.startswith(f"2 token(s) of user {user_id}") and "revoked" in human.out
    for secret in [first["token"], second["token"], *digests]:
        assert secret not in run.out and secret not in human.out
    assert_refused(await pressline("token list --user 999"), "user 999 not found")


async def test_token_revoke(pressline):
    user_id = await new_user(pressline, await new_workspace(pressline))
    token = await new_token(pressline, user_id)
    run = await pressline(f"token revoke {token['id']} --json")
    assert run.code == 0 and run.data["revoked_now"] is True
    row = await ApiToken.objects().first()
    assert row is not None and row.revoked_at is not None
    again = await pressline(f"token revoke {token['id']}")
    assert again.code == 0 and "already revoked" in again.out
    assert_refused(await pressline("token revoke 999"), "token 999 not found")


# --- customers and contacts ----------------------------------------------------------------


async def test_customer_create_derives_unique_slugs_and_finds_price_lists(pressline):
    ws_id = await new_workspace(pressline)
    run = await pressline(
        f"customer create --workspace {ws_id} --name 'Hop & Barley Brewing Co.'"
        " --price-list Trade --discount 12.5 --payment-terms net_15 --carrier DPD --tax-exempt"
    )
    assert run.code == 0, run.err
    assert "slug hop-barley-brewing-co" in run.out
    again = await pressline(
        f"customer create --workspace {ws_id} --name 'Hop & Barley Brewing Co'"
        " --price-list Trade --json"
    )
    assert again.code == 0, again.err
    assert again.data["slug"] == "hop-barley-brewing-co-2"
    accented = await pressline(f"customer create --workspace {ws_id} --name 'Ünïcode Café' --json")
    assert accented.data["slug"] == "unicode-cafe" and accented.data["price_list_id"] is None
    lists = await PriceList.select()
    assert len(lists) == 1 and Decimal(lists[0]["discount_percent"]) == Decimal("12.50")
    first = await Customer.objects().order_by(Customer.id).first()
    assert first is not None
    assert (first.payment_terms, first.default_carrier, first.tax_exempt) == ("net_15", "DPD", True)
    assert first.price_list == lists[0]["id"] == again.data["price_list_id"]


async def test_customer_create_refusals(pressline):
    ws_id = await new_workspace(pressline)
    create = f"customer create --workspace {ws_id}"
    run = await pressline(f"{create} --name Band --slug the-band --price-list Trade --discount 10")
    assert run.code == 0, run.err
    run = await pressline(f"{create} --name B2 --slug the-band")
    assert_refused(run, "slug: the-band is already used")
    run = await pressline(f"{create} --name B3 --price-list Trade --discount 15")
    assert_refused(run, "already exists with discount 10.00")
    run = await pressline(
        f"{create} --name B4 --slug 'Not A Slug' --discount 101 --payment-terms net_90 --json"
    )
    assert run.code == 1
    assert set(run.data["errors"]) == {"slug", "discount", "payment_terms"}
    run = await pressline("customer create --workspace 999 --name B5")
    assert_refused(run, "workspace 999 not found")
    assert await Customer.count() == 1


async def test_contact_add_keeps_one_primary(pressline):
    ws_id = await new_workspace(pressline)
    customer = await pressline(f"customer create --workspace {ws_id} --name School --json")
    customer_id = customer.data["id"]
    created = await Customer.objects().where(Customer.id == customer_id).first()
    assert created is not None
    add = f"contact add --customer {customer_id}"
    first = await pressline(f"{add} --name Ann --email ann@school.test")
    assert first.code == 0 and "created primary contact" in first.out
    second = await pressline(
        f"{add} --name Bob --email bob@school.test --phone '+44 161 496 0000' --json"
    )
    assert second.data["is_primary"] is False and second.data["phone"] == "+44 161 496 0000"
    third = await pressline(f"{add} --name Cy --email cy@school.test --primary --json")
    assert third.data["is_primary"] is True
    primaries = await Contact.select(Contact.name).where(Contact.is_primary.eq(True))
    assert primaries == [{"name": "Cy"}]
    changed = await Customer.objects().where(Customer.id == customer_id).first()
    assert changed is not None and changed.updated_at > created.updated_at
    run = await pressline("contact add --customer 999 --name X --email x@y.co")
    assert_refused(run, "customer 999 not found")
    run = await pressline(f"{add} --name X --email not-an-email")
    assert_refused(run, "email: must be an email address")


# --- SKUs ----------------------------------------------------------------------------------


async def test_sku_create(pressline):
    ws_id = await new_workspace(pressline)
    create = f"sku create --workspace {ws_id}"
    run = await pressline(
        f"{create} --code TEE-BLK-M {SKU_ARGS} --on-hand 40 --reorder-point 10 --json"
    )
    assert run.code == 0, run.err
    sku = await Sku.objects().where(Sku.id == run.data["id"]).first()
    assert sku is not None
    stored = (sku.code, sku.colour_hex, sku.on_hand, sku.reserved, sku.reorder_point)
    assert stored == ("TEE-BLK-M", "#0A0A0A", 40, 0, 10)
    human = await pressline(f"{create} --code TEE-BLK-L {SKU_ARGS} --on-hand 0")
    assert human.out.startswith("created SKU ") and "TEE-BLK-L" in human.out
    run = await pressline(f"{create} --code TEE-BLK-M {SKU_ARGS} --on-hand 1")
    assert_refused(run, "TEE-BLK-M already exists")
    run = await pressline(
        f"{create} --code X --style T --brand '' --colour Red --colour-hex red --size S"
        " --on-hand -1 --json"
    )
    assert run.code == 1 and set(run.data["errors"]) == {"brand", "colour_hex", "on_hand"}
    run = await pressline(f"sku create --workspace 999 --code Z {SKU_ARGS} --on-hand 1")
    assert_refused(run, "workspace 999 not found")
    assert await Sku.count() == 2


def write_csv(tmp_path: Path, text: str, name: str = "skus.csv") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


async def test_sku_import_creates_every_row(pressline, tmp_path, client):
    ws = await factories.workspace()
    auth = await factories.headers(await factories.user(ws))
    path = write_csv(
        tmp_path,
        "\ufeffcode,style,brand,colour,colour-hex,size,on_hand,reorder_point\n"
        "HOOD-NVY-S,Heavy Hoodie,Fruit of the Loom,Navy,#1f2a44,S,25,5\n"
        "HOOD-NVY-M,Heavy Hoodie,Fruit of the Loom,Navy,#1f2a44,M,3,5\n"
        '"HOOD-NVY-L","Heavy Hoodie, Zip",Fruit of the Loom,Navy,#1f2a44,L,0,\n',
    )
    run = await pressline(f"sku import --workspace {ws.id} {path} --json")
    assert run.code == 0, run.err
    assert run.data["created"] == 3 and len(run.data["ids"]) == 3
    more = write_csv(
        tmp_path, SKU_HEADER + "CAP-1,Cap,Beechfield,Red,#ff0000,One Size,9\n", "2.csv"
    )
    human = await pressline(f"sku import --workspace {ws.id} {more}")
    assert human.out.strip() == f"imported 1 SKU(s) into workspace {ws.id}"
    response = await client.get("/api/v1/inventory", headers=auth)
    assert response.status_code == 200, response.text
    rows = {row["code"]: row for row in response.json()["data"]}
    assert rows["HOOD-NVY-L"]["style"] == "Heavy Hoodie, Zip"
    statuses = [rows[code]["status"] for code in ("HOOD-NVY-S", "HOOD-NVY-M", "HOOD-NVY-L")]
    assert statuses == ["in_stock", "low_stock", "out_of_stock"]


async def test_sku_import_is_all_or_nothing_and_names_bad_lines(pressline, tmp_path):
    ws_id = await new_workspace(pressline)
    await pressline(f"sku create --workspace {ws_id} --code OLD-1 {SKU_ARGS} --on-hand 1")
    path = write_csv(
        tmp_path,
        SKU_HEADER + "NEW-1,Tee,Gildan,Red,#ff0000,S,10\n"
        "NEW-2,Tee,Gildan,Red,#ff0000,M,lots\n"
        "NEW-1,Tee,,Red,#ff00,L,1\n"
        "NEW-4,Tee\n"
        "OLD-1,Tee,Gildan,Red,#ff0000,S,10\n"
        "NEW-6,Tee,Gildan,Red,#ff0000,XL,10\n",
    )
    run = await pressline(f"sku import --workspace {ws_id} {path} --json")
    assert run.code == 1
    assert run.data["errors"] == {
        "line 3": ["on_hand: must be a whole number, 0 or more"],
        "line 4": [
            "brand: must not be blank",
            "colour_hex: must be #RRGGBB",
            "code: NEW-1 repeats line 2",
        ],
        "line 5": ["expected 7 fields"],
        "line 6": ["code: OLD-1 already exists in the workspace"],
    }
    human = await pressline(f"sku import --workspace {ws_id} {path}")
    assert_refused(human, "6 problems:", "\n  line 3: on_hand", "\n  line 6: code: OLD-1")
    assert await Sku.count() == 1


async def test_sku_import_file_problems(pressline, tmp_path):
    ws_id = await new_workspace(pressline)
    run_import = f"sku import --workspace {ws_id}"
    run = await pressline(f"{run_import} {tmp_path / 'missing.csv'}")
    assert_refused(run, "cannot read", "No such file")
    header = write_csv(tmp_path, "code,style,colour hex,notes\nA,B,#000000,x\n")
    run = await pressline(f"{run_import} {header}")
    assert_refused(run, "missing column(s): brand, colour, size, on_hand", "column(s): notes")
    empty = write_csv(tmp_path, SKU_HEADER, "e.csv")
    assert_refused(await pressline(f"{run_import} {empty}"), "no SKU rows")
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"code\n\xff\xfe\x00")
    assert_refused(await pressline(f"{run_import} {binary}"), "not UTF-8")
    run = await pressline(f"sku import --workspace 999 {empty}")
    assert_refused(run, "workspace 999 not found")


# --- through the API -----------------------------------------------------------------------


async def test_operator_changes_take_effect_on_the_next_request(pressline, client):
    app_pool = getattr(db.engine(), "pool", None)  # the web app's (PostgreSQL), or None
    ws_id = await new_workspace(pressline, "--plan premium")
    user_id = await new_user(pressline, ws_id)
    token = await new_token(pressline, user_id)
    auth = {"Authorization": f"Bearer {token['token']}"}
    me = await client.get("/api/v1/me", headers=auth)
    assert me.status_code == 200, me.text
    assert me.json()["id"] == user_id

    assert (await pressline(f"user deactivate {user_id}")).code == 0
    response = await client.get("/api/v1/me", headers=auth)
    assert response.status_code == 403, response.text
    assert (await pressline(f"user activate {user_id}")).code == 0
    assert (await client.get("/api/v1/me", headers=auth)).status_code == 200

    assert (await pressline(f"workspace set --id {ws_id} --plan starter")).code == 0
    response = await client.get("/api/v1/me", headers=auth)
    assert response.status_code == 422, response.text
    assert "starter" in response.json()["message"]
    assert (await pressline(f"workspace set --id {ws_id} --plan premium")).code == 0

    assert (await pressline(f"token revoke {token['id']}")).code == 0
    response = await client.get("/api/v1/me", headers=auth)
    assert response.status_code == 401, response.text
    assert response.json()["message"] == "Token revoked"
    # The commands ran beside the app on its loop and left its pool open.
    assert getattr(db.engine(), "pool", None) is app_pool
    assert app_pool is None or not app_pool._closed


async def test_trial_workspace_reaches_the_api_and_customers_show_their_price_list(
    pressline, client
):
    ws_id = await new_workspace(pressline, "--trial-days 14")
    token = await new_token(pressline, await new_user(pressline, ws_id))
    auth = {"Authorization": f"Bearer {token['token']}"}
    customer = await pressline(
        f"customer create --workspace {ws_id} --name 'Charity Run' --price-list Charity"
        " --discount 15 --json"
    )
    await pressline(f"contact add --customer {customer.data['id']} --name Dee --email d@run.test")
    response = await client.get(f"/api/v1/customers/{customer.data['id']}", headers=auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["slug"] == "charity-run"
    assert body["price_list"] == {"name": "Charity", "discount_percent": "15.00"}
    assert [c["email"] for c in body["contacts"] if c["is_primary"]] == ["d@run.test"]


async def test_json_flag_before_or_after_the_command(pressline):
    before = await pressline("--json workspace create --name A")
    after = await pressline("workspace create --name B --json")
    assert before.data["name"] == "A" and after.data["name"] == "B"


async def test_installed_script_runs_main(backend, tmp_path):
    """`pressline` as operators run it: its own process, loop and connections."""
    script = Path(sys.executable).with_name("pressline")
    env = {**os.environ, "DATABASE_URL": backend}

    async def run(command: str) -> tuple[int, str, str]:
        process = await asyncio.create_subprocess_exec(
            str(script),
            *shlex.split(command),
            env=env,
            cwd=tmp_path,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await process.communicate()
        return process.returncode or 0, out.decode(), err.decode()

    code, out, err = await run("workspace create --name Script --json")
    assert code == 0, err
    ws_id = json.loads(out)["id"]
    assert await Workspace.exists().where(Workspace.id == ws_id)
    code, out, err = await run("user activate 999")
    assert (code, out) == (1, "") and err.strip() == "error: user 999 not found"


async def test_input_the_database_cannot_take_is_refused_not_crashed(pressline, tmp_path):
    ws_id = await new_workspace(pressline)
    for command in (
        "user activate 99999999999",
        "token revoke 2147483648",
        "contact add --customer 99999999999 --name X --email x@y.co",
        "workspace set --id -3 --plan premium",
    ):
        assert_refused(await pressline(command), "not found")
    path = write_csv(tmp_path, SKU_HEADER + "N1,T\x00ee,Gildan,Red,#000000,S,1\n")
    run = await pressline(f"sku import --workspace {ws_id} {path}")
    assert_refused(run, "line 2: style: must be one line of text, without control characters")
    run = await pressline(f"customer create --workspace {ws_id} --name 'Bad \udcff byte'")
    assert_refused(run, "name: must be one line of text, without control characters")
