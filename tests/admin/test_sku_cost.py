"""A SKU's cost in the admin: shown on the list and the SKU's page, edited there in major units
as every amount of the admin is typed (`2.51`; empty: unknown), refused with the form's
error; and the CSV upload's optional `cost` column."""

from __future__ import annotations

import html

import httpx

from models.tables import Sku
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of, log_in, member, post_form
from tests.admin.test_inventory import upload


async def _cost(code: str) -> int | None:
    row = await Sku.select(Sku.cost_cents).where(Sku.code == code).first()
    return row["cost_cents"]


async def _set(client: httpx.AsyncClient, url: str, typed: str) -> httpx.Response:
    return await post_form(client, url, f"{url}/cost", {"cost": typed})


async def test_the_cost_is_shown_and_edited_in_major_units(
    shop: Shop, client: httpx.AsyncClient
) -> None:
    await factories.sku(shop.ws, "TEE/BLK/M")
    url = "/admin/inventory/TEE%2FBLK%2FM"
    page = await shop.client.get(url)
    assert '<strong id="cost-shown">unknown</strong>' in page.text
    assert 'name="cost" value=""' in page.text
    before = await Sku.objects().where(Sku.code == "TEE/BLK/M").first()

    saved = await _set(shop.client, url, " 2.51 ")

    assert saved.status_code == 303 and saved.headers["location"] == url
    assert await _cost("TEE/BLK/M") == 251
    after = await Sku.objects().where(Sku.code == "TEE/BLK/M").first()
    assert after.updated_at > before.updated_at
    assert (after.on_hand, after.reserved) == (before.on_hand, before.reserved)
    page = await shop.client.get(url)
    assert "Cost now 2.51 GBP." in page.text
    assert '<strong id="cost-shown">2.51 GBP</strong>' in page.text
    assert 'name="cost" value="2.51"' in page.text
    listed = await shop.client.get("/admin/inventory")
    assert '<td data-label="Cost" class="num">2.51 GBP</td>' in listed.text
    auth = await factories.headers(await factories.user(shop.ws))
    api = await client.get("/api/v1/inventory", headers=auth)
    assert api.json()["data"][0]["cost_cents"] == 251

    for typed, cents in (("1,250.00", 125_000), ("12,50", 1250), ("0", 0), ("1000000", 10**8)):
        assert (await _set(shop.client, url, typed)).status_code == 303, typed
        assert await _cost("TEE/BLK/M") == cents, typed

    cleared = await _set(shop.client, url, "")
    assert cleared.status_code == 303
    assert await _cost("TEE/BLK/M") is None
    page = await shop.client.get(url)
    assert "Cost now unknown." in page.text and 'name="cost" value=""' in page.text
    listed = await shop.client.get("/admin/inventory")
    assert '<td data-label="Cost" class="num">—</td>' in listed.text


REFUSED = [
    ("cheap", "The cost: Type an amount with at most two decimals, e.g. 1250, 1250.50"),
    ("2.515", "The cost: Type an amount with at most two decimals"),
    ("-2.51", "The cost: Type the amount without a minus sign, e.g. 12.50"),
    ("1,250", "The cost: Type the amount as 1250 (or 1,250.00) or as 1.25: 1,250 could be"),
    ("1000000.01", "The cost must be at most 1,000,000.00."),
    ("99999999999999999999", "The cost: Type an amount with at most two decimals"),
    ("2\x0051", "The cost: Type an amount with at most two decimals"),
]


async def test_a_bad_cost_is_the_forms_error_and_changes_nothing(shop: Shop) -> None:
    await factories.sku(shop.ws, "CAP", cost_cents=500)
    url = "/admin/inventory/CAP"
    for typed, message in REFUSED:
        answer = await _set(shop.client, url, typed)
        assert answer.status_code == 422, typed
        page = html.unescape(answer.text)
        assert f'<p class="error" id="cost-error">{message}' in page, (typed, page[-3000:])
        assert page.count('role="alert"') == 1  # the cost form's, not the adjustment's
        assert 'id="cost" name="cost"' in page and "aria-invalid=true" in page
        assert f'name="cost" value="{typed.strip()}"' in page or "\x00" in typed
        assert '<strong id="cost-shown">5.00 GBP</strong>' in page
    assert await _cost("CAP") == 500


async def test_the_cost_form_needs_csrf_and_a_sku_of_the_workspace(shop: Shop) -> None:
    other = await factories.workspace()
    await factories.sku(other, "THEIRS", cost_cents=700)
    mine = await factories.sku(shop.ws, "import", cost_cents=300)  # reached by id only
    by_id = f"/admin/inventory/id/{mine.id}"
    page = await shop.client.get(by_id)
    assert f'action="{by_id}/cost"' in page.text

    foreign = await post_form(shop.client, by_id, "/admin/inventory/THEIRS/cost", {"cost": "1"})
    assert foreign.status_code == 404
    no_csrf = await shop.client.post(f"{by_id}/cost", data={"cost": "1"})
    assert no_csrf.status_code == 403
    assert (await _cost("THEIRS"), await _cost("import")) == (700, 300)

    saved = await _set(shop.client, by_id, "3.10")
    assert saved.status_code == 303 and saved.headers["location"] == by_id
    assert await _cost("import") == 310


async def test_staff_may_set_the_cost(shop: Shop, browser: httpx.AsyncClient) -> None:
    await factories.sku(shop.ws, "TEE")
    staff = await member(shop.ws, role="staff")
    await shop.client.post(
        "/admin/logout", data={"_csrf_token": csrf_of(await shop.client.get("/admin/"))}
    )
    assert (await log_in(browser, staff.email)).status_code == 303
    assert (await _set(browser, "/admin/inventory/TEE", "4.20")).status_code == 303
    assert await _cost("TEE") == 420


async def test_the_upload_reads_the_cost_column(shop: Shop) -> None:
    csv = (
        "code,style,brand,colour,colour_hex,size,on_hand,cost\n"
        "TEE-S,Classic Tee,Gildan,Black,#000000,S,10,2.51\n"
        "TEE-M,Classic Tee,Gildan,Black,#000000,M,10,\n"
    )
    imported = await upload(shop.client, csv)
    assert imported.status_code == 303, imported.text
    assert (await _cost("TEE-S"), await _cost("TEE-M")) == (251, None)
    listed = await shop.client.get("/admin/inventory")
    assert '<td data-label="Cost" class="num">2.51 GBP</td>' in listed.text


async def test_the_upload_names_the_row_and_column_of_a_bad_cost(shop: Shop) -> None:
    csv = (
        "code,style,brand,colour,colour_hex,size,on_hand,cost\n"
        "TEE-S,Classic Tee,Gildan,Black,#000000,S,10,2.51\n"
        "TEE-M,Classic Tee,Gildan,Black,#000000,M,10,2.5.1\n"
        "TEE-L,Classic Tee,Gildan,Black,#000000,L,10,1000000.01\n"
    )
    answer = await upload(shop.client, csv)
    assert answer.status_code == 422
    page = html.unescape(answer.text)
    assert "Nothing was imported." in page
    assert "<li>line 3: cost: Type an amount with at most two decimals" in page
    assert "<li>line 4: cost: must be at most 1,000,000.00</li>" in page
    assert await Sku.count() == 0
