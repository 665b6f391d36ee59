"""Settings → Pricing: the price list as grids. A new workspace's starting price list is
shown; rows, columns and matrices are added and removed by buttons that send the whole form
back (nothing typed is lost, no script needed); a save stores exactly what was typed, or
comes back with every refusal beside its field and nothing stored; staff only read; a save
from a form older than the stored price list is refused."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest

from api import etags
from api.admin.pricing_forms import STALE
from models import accounts
from models.pricing import defaults, store
from models.pricing.document import (
    EMPTY,
    MarkupRow,
    Matrix,
    MatrixRow,
    Placement,
    PricingDocument,
    SetupRule,
    Setups,
    encode,
)
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of, log_in, member

PAGE = "/admin/settings/pricing"
ERROR = re.compile(r'<p class="error" id="([^"]+)-error">(.*?)</p>', re.S)


class _Form(HTMLParser):
    """The fields a browser would send from the page's pricing form (no button pressed)."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self.disabled: list[str] = []
        self._select: str | None = None
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "form":
            self._inside = "pricing-form" in found.get("class", "")
        if tag == "option" and self._select is not None and self._inside:
            if "selected" in found or self._select not in self.fields:
                self.fields[self._select] = found.get("value", "")
            return
        if not self._inside or "name" not in found:
            return
        if "disabled" in found:
            self.disabled.append(found["name"])
            return
        if tag == "input" and found.get("type") in ("text", "hidden"):
            self.fields[found["name"]] = found.get("value", "")
        elif tag == "select":
            self._select = found["name"]

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "form":
            self._inside = False


def form_of(page: httpx.Response) -> dict[str, str]:
    parser = _Form()
    parser.feed(page.text)
    return {name: html.unescape(value) for name, value in parser.fields.items()}


def errors_of(page: httpx.Response) -> dict[str, str]:
    return {field: html.unescape(message) for field, message in ERROR.findall(page.text)}


async def send(
    client: httpx.AsyncClient, page: httpx.Response, fields: dict[str, str], action: str = "save"
) -> httpx.Response:
    """The form of `page` with `fields` as typed, sent by the button `action`."""
    data = {**fields, "action": action, "_csrf_token": csrf_of(page)}
    return await client.post(PAGE, data=data)


@pytest.fixture
async def priced(browser: httpx.AsyncClient) -> Shop:
    """A workspace made as `pressline workspace create` makes one (with the starting price
    list), its owner logged in."""
    ws = await accounts.create_workspace(name="Inkwell Prints", plan="premium")
    owner = await member(ws, role="owner")
    assert (await log_in(browser, owner.email)).status_code == 303
    return Shop(ws, owner, browser)


async def test_the_page_shows_the_starting_price_list(priced: Shop):
    settings = await priced.client.get("/admin/settings/")
    assert 'href="/admin/settings/pricing"' in settings.text

    page = await priced.client.get(PAGE)
    assert page.status_code == 200
    fields = form_of(page)
    stored = await store.read(priced.ws.id)
    assert stored == defaults.price_list()
    assert fields["version"] == etags.of(encode(stored))
    # the screen grid: 6 colour columns, 8 quantity breaks, money in major units
    assert [fields[f"m-0-col-{c}"] for c in range(6)] == ["1", "2", "3", "4", "5", "6"]
    assert [fields[f"m-0-row-{r}-min"] for r in range(8)] == [
        "1", "12", "24", "48", "72", "144", "288", "500"
    ]  # fmt: skip
    assert fields["m-0-row-0-cell-0"] == "4.50"
    assert fields["m-0-row-7-cell-5"] == "1.75"
    assert (fields["m-1-method"], fields["m-1-placement"]) == ("screen", "additional")
    assert (fields["m-2-method"], fields["m-2-per_1000_over"]) == ("embroidery", "0.40")
    assert fields["m-3-col-2"] == "1200"
    assert "m-0-per_1000_over" not in fields  # embroidery only
    assert fields["setup-screen-amount"] == "20.00" and fields["setup-screen-waive"] == "288"
    assert fields["setup-embroidery-amount"] == "35.00" and fields["setup-dtg-amount"] == ""
    assert [(fields[f"markup-{r}-min"], fields[f"markup-{r}-percent"]) for r in range(5)] == [
        ("1", "100"), ("24", "80"), ("72", "60"), ("144", "50"), ("500", "40")
    ]  # fmt: skip
    assert (fields["size-0-label"], fields["size-0-amount"]) == ("2XL", "2.00")
    assert '<h3 id="m-0-heading">Screen print, first location</h3>' in page.text
    assert "Up to (stitches)" in page.text and "Up to (cm²)" in page.text
    # every input and the select have a label
    ids = re.findall(r'<(?:input type="text"|select)[^>]* id="([^"]+)"', page.text)
    assert len(ids) > 200
    for name in ids:
        assert re.search(rf'<label[^>]* for="{name}">', page.text), name
    # "Add matrix" offers only what is missing
    options = re.findall(r'<option value="([a-z]+:[a-z]+)"', page.text)
    assert "screen:first" not in options and "dtg:additional" in options and len(options) == 6


async def test_a_workspace_without_a_price_list_starts_empty(shop: Shop):
    page = await shop.client.get(PAGE)
    assert page.status_code == 200
    assert "No print prices yet" in page.text
    assert ">Add matrix</button>" in page.text
    fields = form_of(page)
    assert fields["version"] == etags.of(encode(EMPTY))
    assert len(re.findall(r'<option value="[a-z]+:[a-z]+"', page.text)) == 10

    added = await send(shop.client, page, {**fields, "new_matrix": "embroidery:first"},
                       "add_matrix")  # fmt: skip
    assert added.status_code == 200
    fields = form_of(added)
    assert (fields["m-0-method"], fields["m-0-placement"]) == ("embroidery", "first")
    assert fields["m-0-col-0"] == "" and fields["m-0-row-0-min"] == "1"
    assert fields["m-0-per_1000_over"] == ""
    assert (
        'id="m-0-col-0" name="m-0-col-0" value="" maxlength="12" autocomplete="off" autofocus'
        in added.text
    )
    assert '<option value="embroidery:first"' not in added.text

    fields.update({"m-0-col-0": "8000", "m-0-row-0-cell-0": "6", "m-0-per_1000_over": "0.5",
                   "size-0-label": "3XL"})  # fmt: skip
    saved = await send(shop.client, added, {**fields, "size-0-amount": "3,00"})
    assert saved.status_code == 303, saved.text
    assert saved.headers["location"] == PAGE
    assert await store.read(shop.ws.id) == PricingDocument(
        matrices=[Matrix(method="embroidery", columns=[8000],
                         rows=[MatrixRow(min_quantity=1, cells=[600])], per_1000_over_cents=50)],
        size_upcharges_cents={"3XL": 300},
    )  # fmt: skip
    shown = await shop.client.get(PAGE)
    assert "The price list was saved." in shown.text
    assert form_of(shown)["m-0-row-0-cell-0"] == "6.00"


async def test_rows_and_columns_are_added_and_removed_keeping_what_was_typed(priced: Shop):
    page = await priced.client.get(PAGE)
    fields = form_of(page)
    fields["m-0-row-0-cell-0"] = "4.99"  # typed, not saved yet

    with_row = await send(priced.client, page, fields, "add_row-0")
    assert with_row.status_code == 200
    fields = form_of(with_row)
    assert fields["m-0-row-8-min"] == "" and fields["m-0-row-8-cell-5"] == ""
    assert (
        'name="m-0-row-8-min" value="" maxlength="12" autocomplete="off" autofocus' in with_row.text
    )
    assert fields["m-0-row-0-cell-0"] == "4.99"
    fields.update({"m-0-row-8-min": "1000", "m-0-row-8-cell-0": "0.65"})

    with_column = await send(priced.client, with_row, fields, "add_column-0")
    fields = form_of(with_column)
    assert fields["m-0-col-6"] == "" and fields["m-0-row-0-cell-6"] == ""
    assert fields["m-0-row-8-min"] == "1000" and fields["m-0-row-8-cell-0"] == "0.65"
    assert fields["m-0-row-0-cell-0"] == "4.99"
    assert (
        'id="m-0-col-6" name="m-0-col-6" value="" maxlength="12" autocomplete="off" autofocus'
        in with_column.text
    )
    fields["m-0-col-6"] = "7"
    for r, cents in enumerate([1200, 950, 700, 475, 395, 295, 240, 195, 150]):
        fields[f"m-0-row-{r}-cell-6"] = f"{cents / 100:.2f}"
    for c in range(1, 6):
        fields[f"m-0-row-8-cell-{c}"] = str(c)

    without_row = await send(priced.client, with_column, fields, "remove_row-0-2")  # from 24
    fields = form_of(without_row)
    assert "m-0-row-2-min" not in fields and "m-0-row-2-cell-0" not in fields
    assert fields["m-0-row-3-min"] == "48" and fields["m-0-col-6"] == "7"
    assert fields["m-0-row-8-cell-3"] == "3"
    without_column = await send(priced.client, without_row, fields, "remove_column-3-1")
    fields = form_of(without_column)
    assert "m-3-col-1" not in fields and "m-3-row-0-cell-1" not in fields
    assert fields["m-3-col-2"] == "1200"
    without_matrix = await send(priced.client, without_column, fields, "remove_matrix-1")
    fields = form_of(without_matrix)
    assert "m-1-method" not in fields and '<option value="screen:additional"' in without_matrix.text
    with_markup = await send(priced.client, without_matrix, fields, "add_markup")
    fields = form_of(with_markup)
    assert fields["markup-5-min"] == ""
    fields.update({"markup-5-min": "1000", "markup-5-percent": "35%"})
    with_size = await send(priced.client, with_markup, fields, "add_size")
    fields = form_of(with_size)
    assert fields["markup-5-percent"] == "35%" and fields["size-4-label"] == ""
    fields.update({"size-4-label": "6XL", "size-4-amount": "6.5"})
    fields.update({"setup-dtg-amount": "15", "setup-screen-waive": ""})
    assert await store.read(priced.ws.id) == defaults.price_list()  # nothing saved yet

    saved = await send(priced.client, with_size, fields)
    assert saved.status_code == 303, saved.text
    starting = defaults.price_list()
    screen = starting.matrices[0]
    rows = [MatrixRow(min_quantity=row.min_quantity, cells=[*row.cells, extra])
            for row, extra in zip(screen.rows, [1200, 950, 700, 475, 395, 295, 240, 195],
                                  strict=True)]  # fmt: skip
    rows[0].cells[0] = 499
    rows.append(MatrixRow(min_quantity=1000, cells=[65, 100, 200, 300, 400, 500, 150]))
    del rows[2]
    dtg = starting.matrices[3]
    expected = PricingDocument(
        matrices=[
            Matrix(method="screen", columns=[1, 2, 3, 4, 5, 6, 7], rows=rows),
            starting.matrices[2],
            Matrix(method="dtg", columns=[100, 1200],
                   rows=[MatrixRow(min_quantity=row.min_quantity,
                                   cells=[row.cells[0], row.cells[2]]) for row in dtg.rows]),
        ],
        setups=Setups(screen=SetupRule(per_colour_cents=2000),
                      embroidery=SetupRule(per_design_cents=3500),
                      dtg=SetupRule(per_design_cents=1500)),
        garment_markups=[*starting.garment_markups, MarkupRow(min_quantity=1000, percent=35)],
        size_upcharges_cents={**starting.size_upcharges_cents, "6XL": 650},
    )  # fmt: skip
    assert await store.read(priced.ws.id) == expected


async def test_empty_rows_and_columns_are_left_out_when_saving(shop: Shop):
    page = await shop.client.get(PAGE)
    added = await send(shop.client, page, {**form_of(page), "new_matrix": "screen:first"},
                       "add_matrix")  # fmt: skip
    fields = form_of(await send(shop.client, added, form_of(added), "add_row-0"))
    fields = {**fields, "m-0-col-0": "1", "m-0-row-0-cell-0": "5"}
    added_column = await send(shop.client, added, fields, "add_column-0")  # left empty
    fields = form_of(added_column)
    assert "m-0-row-1-min" in fields and "m-0-col-1" in fields
    saved = await send(shop.client, added_column, fields)
    assert saved.status_code == 303, saved.text
    stored = await store.read(shop.ws.id)
    assert stored.matrices == [
        Matrix(method="screen", columns=[1], rows=[MatrixRow(min_quantity=1, cells=[500])])
    ]


async def test_a_refused_save_shows_each_problem_at_its_field_and_stores_nothing(priced: Shop):
    page = await priced.client.get(PAGE)
    fields = form_of(page)
    fields.update({"m-0-row-1-cell-2": "", "m-0-row-2-cell-0": "abc", "m-0-row-3-cell-1": "-2",
                   "m-3-col-0": "lots", "setup-dtg-waive": "50", "markup-1-percent": "x",
                   "size-1-label": "2xl", "size-2-amount": "1,000"})  # fmt: skip
    refused = await send(priced.client, page, fields)
    assert refused.status_code == 422
    errors = errors_of(refused)
    assert errors == {
        "m-0-row-1-cell-2": "Screen print, first location, row 2: the price for 3 colours is "
        "required (type 0 when there is none).",
        "m-0-row-2-cell-0": "Screen print, first location, row 3, the price for 1 colour: Type "
        "an amount with at most two decimals, e.g. 1250, 1250.50, 1,250.50 or 12,50 (a comma "
        "before the last one or two digits is the decimal point).",
        "m-0-row-3-cell-1": "Screen print, first location, row 4, the price for 2 colours: Type "
        "the amount without a minus sign, e.g. 12.50: it cannot be negative here.",
        "m-3-col-0": "DTG, first location: column 1 must be a whole number, e.g. 2.",
        "setup-dtg-amount": "Setup, DTG: the setup charge is required.",
        "markup-1-percent": "Garment markup, row 2: the markup must be a whole number, e.g. 2.",
        "size-1-label": "Size upcharge, row 2: the size is listed twice; keep one row per size.",
        "size-2-amount": "Size upcharge, row 3, the upcharge: Type the amount as 1000 (or "
        "1,000.00) or as 1: 1,000 could be either.",
    }
    assert refused.text.count('aria-invalid="true"') == len(errors)
    assert 'aria-invalid="true" aria-describedby="m-0-row-2-cell-0-error"' in refused.text
    assert "The price list was not saved. Screen print, first location, row 2" in refused.text
    assert "(and 7 more, shown beside their fields)" in refused.text
    kept = form_of(refused)
    assert kept["m-0-row-2-cell-0"] == "abc" and kept["size-2-amount"] == "1,000"
    assert kept["m-0-row-0-cell-0"] == "4.50" and kept["version"] == fields["version"]
    assert await store.read(priced.ws.id) == defaults.price_list()

    # the rules between fields, once every field reads: ascending rows and columns
    kept.update({"m-0-row-1-cell-2": "5.50", "m-0-row-2-cell-0": "2.50", "m-0-row-3-cell-1": "2",
                 "m-3-col-0": "100", "setup-dtg-amount": "10", "markup-1-percent": "80",
                 "size-1-label": "3XL", "size-2-amount": "1000",
                 "m-0-row-2-min": "12", "m-2-col-1": "4000", "markup-0-min": "2"})  # fmt: skip
    refused = await send(priced.client, refused, kept)
    assert refused.status_code == 422
    assert errors_of(refused) == {
        "m-0-row-2-min": "Screen print, first location, row 3: the starting quantity must be "
        "more than the row before (12).",
        "m-2": "Embroidery, first location: the columns must be in ascending order.",
        "markup-0-min": "Garment markup, row 1: the starting quantity must be 1: the first row "
        "marks up from one garment.",
    }
    assert 'aria-invalid="true" aria-describedby="m-0-row-2-min-error"' in refused.text
    assert form_of(refused)["m-0-row-2-min"] == "12"
    assert await store.read(priced.ws.id) == defaults.price_list()


async def test_staff_read_the_price_list_and_cannot_save_it(priced: Shop, app: Any):
    staff = await member(priced.ws, role="staff")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        assert (await log_in(client, staff.email)).status_code == 303
        settings = await client.get("/admin/settings/")
        assert ">See the price list</a>" in settings.text
        page = await client.get(PAGE)
        assert page.status_code == 200
        assert "Only an owner can change the price list." in page.text
        parser = _Form()
        parser.feed(page.text)
        assert "m-0-row-0-cell-0" in parser.disabled and "setup-screen-amount" in parser.disabled
        assert 'value="4.50"' in page.text
        assert "<button" not in page.text.split('class="pricing-form"')[1].split("</form>")[0]
        fields = {"version": form_of(page)["version"], "m-0-method": "screen",
                  "m-0-placement": "first", "m-0-col-0": "1", "m-0-row-0-min": "1",
                  "m-0-row-0-cell-0": "1"}  # fmt: skip
        for action in ("save", "add_row-0"):
            refused = await send(client, page, fields, action)
            assert refused.status_code == 403
            assert "Only an owner of the workspace can do this." in refused.text
    assert await store.read(priced.ws.id) == defaults.price_list()


async def test_a_save_from_an_outdated_form_is_refused(priced: Shop):
    page = await priced.client.get(PAGE)
    fields = form_of(page)
    meanwhile = PricingDocument(
        matrices=[Matrix(method="dtg", placement=Placement.FIRST, columns=[500],
                         rows=[MatrixRow(min_quantity=1, cells=[900])])]
    )  # fmt: skip
    await store.replace(priced.ws.id, meanwhile)  # another owner, or PUT /api/v1/pricing
    fields["m-0-row-0-cell-0"] = "4.75"
    # a button keeps the form's version: the save after it is refused all the same
    again = await send(priced.client, page, fields, "add_size")
    assert form_of(again)["version"] == fields["version"]
    refused = await send(priced.client, again, form_of(again))
    assert refused.status_code == 409
    assert html.unescape(STALE) in html.unescape(refused.text)
    assert form_of(refused)["m-0-row-0-cell-0"] == "4.75"
    assert await store.read(priced.ws.id) == meanwhile

    fresh = await priced.client.get(PAGE)
    fields = form_of(fresh)
    assert fields["version"] == etags.of(encode(meanwhile)) and fields["m-0-col-0"] == "500"
    fields["m-0-row-0-cell-0"] = "8.50"
    saved = await send(priced.client, fresh, fields)
    assert saved.status_code == 303, saved.text
    assert (await store.read(priced.ws.id)).matrices[0].rows[0].cells == [850]


async def test_fields_the_page_never_numbers_are_refused(shop: Shop):
    page = await shop.client.get(PAGE)
    fields = {**form_of(page), "m-0-method": "screen", "m-0-placement": "first",
              "m-0-col-0": "1", "m-0-row-0-min": "1", "m-0-row-0-cell-0": "1",
              "m-1234567-col-0": "2"}  # fmt: skip
    refused = await send(shop.client, page, fields)
    assert refused.status_code == 422
    assert "Some fields could not be read (m-1234567-col-0)" in refused.text
    assert await store.read(shop.ws.id) == EMPTY
