"""SKU codes with any printable character: imported by CSV, each is listed,
its page opens from the list's link and its adjustment goes through from that page's own
form, touching that SKU only; every SKU also answers at /admin/inventory/id/{id}."""

from __future__ import annotations

import csv
import html
import io
import re

import httpx
import pytest
from litestar import Litestar

from models.tables import Sku, StockMovement
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import PASSWORD, csrf_of
from tests.admin.test_inventory import upload

CODES = [
    "TEE/BLK/M",  # the codes of the report: a slash, and dots
    "../../etc/passwd",
    "A..B",
    "..",
    ".",
    "/",
    "//x//",
    "import",  # the import's own path
    "import/2",
    "id",
    "id/1",
    "adjust",
    "X/adjust",
    "50% off?#top",
    "%2F",
    "back\\slash",
    "a+b&c=d;e",
    "TÉE ünï 😀",
    '<b>"quoted"</b>',
    "12345",
]


def _csv(codes: list[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["code", "style", "brand", "colour", "colour_hex", "size", "on_hand"])
    for code in codes:
        writer.writerow([code, "Classic Tee", "Gildan", "Black", "#000000", "M", 10])
    return out.getvalue()


def _href(page: str, pattern: str) -> str:
    found = re.search(pattern, page)
    assert found, pattern
    return html.unescape(found.group(1))


def _title(page: str) -> str:
    """The SKU's code as its page's heading shows it."""
    return _href(page, r"<h1>(.*?) <span")


async def test_every_printable_code_is_viewed_and_adjusted_through_its_links(shop: Shop):
    imported = await upload(shop.client, _csv(CODES))
    assert imported.status_code == 303, imported.text[-3000:]
    ids = {row["code"]: row["id"] for row in await Sku.select(Sku.code, Sku.id)}
    assert set(ids) == set(CODES)
    listing = (await shop.client.get("/admin/inventory")).text

    for n, code in enumerate(CODES, start=1):
        sku_id = ids[code]
        href = _href(listing, rf'<tr id="sku-{sku_id}">\s*<td data-label="Code"><a href="([^"]+)"')
        page = await shop.client.get(href)
        assert page.status_code == 200, (code, href)
        assert _title(page.text) == code, (code, href)

        action = _href(page.text, r'<form class="card" method="post" action="([^"]+)" id="adjust"')
        answer = await shop.client.post(
            action, data={"delta": str(n), "reason": "count", "_csrf_token": csrf_of(page)}
        )
        assert answer.status_code == 303, (code, action, answer.text[-500:])
        shown = await shop.client.get(answer.headers["location"])
        assert shown.status_code == 200, (code, answer.headers["location"])
        assert f"On hand +{n}: now {10 + n}." in shown.text

    # Each adjustment went to its own SKU, and to no other.
    levels = {row["code"]: row["on_hand"] for row in await Sku.select(Sku.code, Sku.on_hand)}
    assert levels == {code: 10 + n for n, code in enumerate(CODES, start=1)}
    moved = await StockMovement.select(StockMovement.sku, StockMovement.delta_on_hand).where(
        StockMovement.kind == "adjustment"
    )
    assert sorted((m["sku"], m["delta_on_hand"]) for m in moved) == sorted(
        (ids[code], n) for n, code in enumerate(CODES, start=1)
    )


async def test_codes_are_reached_by_code_or_by_id_and_nothing_else(shop: Shop):
    tee = await factories.sku(shop.ws, "TEE/BLK/M", on_hand=4)
    dots = await factories.sku(shop.ws, "..", on_hand=4)
    theirs = await factories.sku(await factories.workspace(), "THEIRS")
    for path, shown in (
        ("/admin/inventory/TEE%2FBLK%2FM", "TEE/BLK/M"),
        ("/admin/inventory/TEE%2fBLK%2fM/", "TEE/BLK/M"),
        (f"/admin/inventory/id/{tee.id}", "TEE/BLK/M"),
        (f"/admin/inventory/id/{dots.id}", ".."),
    ):
        page = await shop.client.get(path)
        assert page.status_code == 200, path
        assert _title(page.text) == shown, path
    for path in (
        "/admin/inventory/TEE/BLK/M",  # an unencoded slash is not part of a code
        "/admin/inventory/TEE%2FBLK",
        "/admin/inventory/%00",  # NUL: never sent to PostgreSQL (was a 500)
        "/admin/inventory/%FF%FE",  # not UTF-8
        "/admin/inventory/" + "A" * 65,
        f"/admin/inventory/id/{theirs.id}",  # another workspace's
        "/admin/inventory/id/0",
        "/admin/inventory/id/99999999999999999999",
        f"/admin/inventory/id/{tee.id}/extra",
        "/admin/inventory/THEIRS",
    ):
        answer = await shop.client.get(path)
        assert answer.status_code == 404, (path, answer.status_code)
        assert "There is no such page in this workspace." in answer.text

    page = await shop.client.get(f"/admin/inventory/id/{tee.id}")
    for action in (
        "/admin/inventory/%00/adjust",
        "/admin/inventory/TEE%2FBLK%2FM/other",
        "/admin/inventory/TEE/BLK/M/adjust",
        f"/admin/inventory/id/{theirs.id}/adjust",
        "/admin/inventory/THEIRS/adjust",
    ):
        answer = await shop.client.post(
            action, data={"delta": "5", "reason": "x", "_csrf_token": csrf_of(page)}
        )
        assert answer.status_code == 404, (action, answer.status_code)
    by_id = await shop.client.post(
        f"/admin/inventory/id/{tee.id}/adjust",
        data={"delta": "-4", "reason": "damaged", "_csrf_token": csrf_of(page)},
    )
    assert by_id.status_code == 303
    assert by_id.headers["location"] == "/admin/inventory/TEE%2FBLK%2FM"
    # The route table's shape, without `/adjust`, adjusts too; `..` is linked by id.
    bare = await shop.client.post(
        f"/admin/inventory/id/{dots.id}",
        data={"delta": "-1", "reason": "damaged", "_csrf_token": csrf_of(page)},
    )
    assert bare.status_code == 303
    assert bare.headers["location"] == f"/admin/inventory/id/{dots.id}"
    levels = {row["code"]: row["on_hand"] for row in await Sku.select(Sku.code, Sku.on_hand)}
    assert levels == {"TEE/BLK/M": 0, "..": 3, "THEIRS": 100}


async def test_codes_that_are_not_printable_are_refused_on_import(shop: Shop):
    """A NUL in any cell (PostgreSQL: it was a 500 in the code column's look-up), a tab or an
    invisible character in a code: the line's error, nothing imported."""
    rows = _csv(["OK-1", "NUL\x00", "TAB\tX", "ZW\u200bSP", "DEL\x7f"])
    rows += "OK-2,Classic\x00Tee,Gildan,Black,#000000,M,1\n"
    answer = await upload(shop.client, rows)
    assert answer.status_code == 422
    assert "line 3: code: must be one line of text, without control characters" in answer.text
    for line in (4, 5, 6):
        assert f"line {line}: code: must be printable characters only" in answer.text, line
    assert "line 7: style: must be one line of text, without control characters" in answer.text
    assert await Sku.count() == 0


async def test_a_control_character_in_the_files_name_is_not_kept(shop: Shop):
    """The name is only shown in the notice (kept in the database until shown): a raw NUL in
    it (httpx would percent-encode it, so the body is written by hand) must not fail the
    import after its SKUs were created."""
    token = csrf_of(await shop.client.get("/admin/inventory"))
    body = (
        b"--b0undary\r\n"
        b'Content-Disposition: form-data; name="_csrf_token"\r\n\r\n' + token.encode() + b"\r\n"
        b"--b0undary\r\n"
        b'Content-Disposition: form-data; name="file"; filename="sk\x00us\x1b.csv"\r\n'
        b"Content-Type: text/csv\r\n\r\n" + _csv(["ONE"]).encode() + b"\r\n"
        b"--b0undary--\r\n"
    )
    answer = await shop.client.post(
        "/admin/inventory/import",
        content=body,
        headers={"Content-Type": "multipart/form-data; boundary=b0undary"},
    )
    assert answer.status_code == 303, answer.text[-2000:]
    listing = await shop.client.get(answer.headers["location"])
    assert "Imported 1 SKU from sk_us_.csv." in listing.text
    assert await Sku.count() == 1


@pytest.mark.usefixtures("backend")
async def test_command_line_takes_the_same_codes(pressline, tmp_path):
    ws = await factories.workspace()
    made = await pressline(
        "sku", "create", "--workspace", ws.id, "--code", "TEE/BLK/../M", "--style", "Tee",
        "--brand", "Gildan", "--colour", "Black", "--colour-hex", "#000000", "--size", "M",
        "--on-hand", 3,
    )  # fmt: skip
    assert made.code == 0, made.err
    refused = await pressline(
        "sku", "create", "--workspace", ws.id, "--code", "TAB\tX", "--style", "Tee",
        "--brand", "Gildan", "--colour", "Black", "--colour-hex", "#000000", "--size", "M",
        "--on-hand", 3,
    )  # fmt: skip
    assert refused.code == 1
    assert "code: must be printable characters only" in refused.err
    assert [row["code"] for row in await Sku.select(Sku.code)] == ["TEE/BLK/../M"]


async def test_a_logged_out_visit_comes_back_to_the_same_sku(shop: Shop, app: Litestar):
    """The login's `next` is the raw path: an encoded `/` or `%` in the code survives it."""
    await factories.sku(shop.ws, "50% off/TEE", on_hand=1)
    path = "/admin/inventory/50%25%20off%2FTEE"
    assert (await shop.client.get(path)).status_code == 200
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
        away = await other.get(path)
        assert away.status_code == 303
        login = await other.get(away.headers["location"])
        answer = await other.post(
            "/admin/login",
            data={"email": shop.owner.email, "password": PASSWORD, "next": _next(login.text),
                  "_csrf_token": csrf_of(login)},
        )  # fmt: skip
        assert answer.status_code == 303
        assert answer.headers["location"] == path
        back = await other.get(answer.headers["location"])
    assert back.status_code == 200 and _title(back.text) == "50% off/TEE"


def _next(page: str) -> str:
    return _href(page, r'name="next" value="([^"]*)"')
