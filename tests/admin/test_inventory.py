"""The admin's inventory: list with the low-stock filter and search, a SKU's page with its
stock movements, adjustments (signed delta, required reason, column bounds) and the CSV import
by upload; every change of on_hand/reserved is a movement whose sums are the SKU's figures."""

from __future__ import annotations

import functools

import httpx

from models import stock
from models.actors import OPERATOR
from models.orders import cancelling
from models.tables import Order, Sku, StageChange, StockMovement, User
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of, post_form, statement_count
from tests.api.order_helpers import snapshot
from tests.models.test_stock_consumption import _short_order

CSV = (
    "code,style,brand,colour,colour_hex,size,on_hand,reorder_point\n"
    "TEE-BLK-M,Classic Tee,Gildan,Black,#000000,M,100,10\n"
    "TEE-WHT-L,Classic Tee,Gildan,White,#FFFFFF,L,40,5\n"
)


async def upload(client: httpx.AsyncClient, content: str, name: str = "skus.csv") -> httpx.Response:
    token = csrf_of(await client.get("/admin/inventory"))
    return await client.post(
        "/admin/inventory/import",
        data={"_csrf_token": token},
        files={"file": (name, content.encode(), "text/csv")},
    )


async def _sums(sku_id: int) -> tuple[int, int]:
    rows = await StockMovement.select(
        StockMovement.delta_on_hand, StockMovement.delta_reserved
    ).where(StockMovement.sku == sku_id)
    return sum(r["delta_on_hand"] for r in rows), sum(r["delta_reserved"] for r in rows)


async def test_movements_explain_every_figure(shop: Shop, client: httpx.AsyncClient) -> None:
    """Import → two orders reserve (API) → one reaches production (API) → the other is
    cancelled (operator) → an adjustment (admin): the sums of the deltas are the levels."""
    imported = await upload(shop.client, CSV)
    assert imported.status_code == 303 and imported.headers["location"] == "/admin/inventory"
    sku = await Sku.objects().where(Sku.code == "TEE-BLK-M").first()
    api_user = await factories.user(shop.ws)
    auth = await factories.headers(api_user)
    customer = await factories.customer(shop.ws)
    ids = []
    for quantity in (10, 5):
        body = {
            "customer_id": customer.id,
            "lines": [{"description": "Tee", "quantity": quantity, "unit_price_cents": 900,
                       "sku": "TEE-BLK-M"}],
        }  # fmt: skip
        answer = await client.post("/api/v1/orders", json=body, headers=auth)
        assert answer.status_code == 201, answer.text
        ids.append(answer.json()["id"])
    for stage in ("print_queue", "in_production"):
        moved = await client.post(
            f"/api/v1/orders/{ids[0]}/advance", json={"to_stage": stage}, headers=auth
        )
        assert moved.status_code == 200, moved.text
    await cancelling.cancel_order(workspace_id=shop.ws.id, order_id=ids[1], actor=OPERATOR)
    adjusted = await post_form(
        shop.client, "/admin/inventory/TEE-BLK-M", "/admin/inventory/TEE-BLK-M/adjust",
        {"delta": "+7", "reason": "received"},
    )  # fmt: skip
    assert adjusted.status_code == 303
    assert adjusted.headers["location"] == "/admin/inventory/TEE-BLK-M"

    row = await Sku.objects().where(Sku.id == sku.id).first()
    assert (row.on_hand, row.reserved) == (100 - 10 + 7, 0)
    assert await _sums(sku.id) == (row.on_hand, row.reserved)
    kinds = await StockMovement.select(
        StockMovement.kind, StockMovement.order, StockMovement.actor_kind, StockMovement.user,
        StockMovement.reason,
    ).where(StockMovement.sku == sku.id).order_by(StockMovement.id)  # fmt: skip
    assert [k["kind"] for k in kinds] == [
        "import", "reservation", "reservation", "consumption", "release", "adjustment",
    ]  # fmt: skip
    assert [k["order"] for k in kinds] == [None, ids[0], ids[1], ids[0], ids[1], None]
    assert kinds[0]["actor_kind"] == "user" and kinds[0]["user"] == shop.owner.id
    assert {(k["actor_kind"], k["user"]) for k in kinds[1:4]} == {("token", api_user.id)}
    assert kinds[4]["actor_kind"] == "operator"
    assert kinds[-1]["actor_kind"] == "user" and kinds[-1]["user"] == shop.owner.id
    assert kinds[-1]["reason"] == "received"
    # The page shows the figures, the notice once, and each movement with who made it.
    page = await shop.client.get("/admin/inventory/TEE-BLK-M")
    assert "On hand +7: now 97." in page.text
    assert 'id="on-hand">97<' in page.text and 'id="reserved">0<' in page.text
    assert page.text.count('id="movement-') == 6
    assert shop.owner.name in page.text and "received" in page.text
    assert "On hand +7" not in (await shop.client.get("/admin/inventory/TEE-BLK-M")).text
    # The API agrees.
    api = await client.get("/api/v1/inventory", params={"search": "TEE-BLK-M"}, headers=auth)
    assert api.json()["data"][0]["on_hand"] == 97


async def test_adjust_refusals_change_nothing(shop: Shop) -> None:
    await factories.sku(shop.ws, "CAP", on_hand=5)
    url = "/admin/inventory/CAP"
    cases = [
        ({"delta": "abc", "reason": "count"}, "must be a whole number"),
        ({"delta": "0", "reason": "count"}, "must not be 0"),
        ({"delta": "3", "reason": "  "}, "is required"),
        ({"delta": "-6", "reason": "damaged"}, "only 5 on hand to take away"),
        ({"delta": str(stock.MAX_LEVEL), "reason": "typo"}, "above the most a SKU can hold"),
        ({"delta": "99999999999999", "reason": "typo"}, "must be a whole number"),
        # a NUL (PostgreSQL cannot store it: it was a 500) or another control.
        ({"delta": "3", "reason": "count\x00"}, "must be one line of text, without control"),
        ({"delta": "3", "reason": "\x00"}, "must be one line of text, without control"),
        ({"delta": "3", "reason": "count\x1b[31m"}, "must be one line of text, without control"),
        ({"delta": "3", "reason": "two\nlines"}, "must be one line of text, without control"),
        ({"delta": "3", "reason": "r" * 201}, "must be at most 200 characters"),
    ]
    for data, message in cases:
        answer = await post_form(shop.client, url, f"{url}/adjust", data)
        assert answer.status_code == 422, data
        assert message in answer.text, (data, answer.text[-2000:])
        assert f'value="{data["delta"]}"' in answer.text
    assert (await Sku.objects().where(Sku.code == "CAP").first()).on_hand == 5
    assert await StockMovement.count() == 0
    # A tab is text; the reason is kept as typed, trimmed.
    kept = await post_form(shop.client, url, f"{url}/adjust", {"delta": "2", "reason": " a\tb "})
    assert kept.status_code == 303
    assert (await StockMovement.select(StockMovement.reason).first())["reason"] == "a\tb"


async def test_import_errors_are_shown_per_row_and_nothing_is_kept(shop: Shop) -> None:
    await factories.sku(shop.ws, "TEE-WHT-L")
    bad = CSV + "MUG,Mug,Acme,Red,red,One,-1,0\n"
    answer = await upload(shop.client, bad)
    assert answer.status_code == 422
    assert "Nothing was imported." in answer.text
    assert "line 3: code: TEE-WHT-L already exists in the workspace" in answer.text
    assert "line 4: colour_hex: must be #RRGGBB" in answer.text
    assert "line 4: on_hand: must be a whole number, 0 or more" in answer.text
    assert await Sku.count() == 1
    binary = await upload(shop.client, "\xff\xfe", name="x.csv")
    assert binary.status_code in (422,)
    empty = await shop.client.post(
        "/admin/inventory/import",
        data={"_csrf_token": csrf_of(await shop.client.get("/admin/inventory"))},
        files={"file": ("", b"", "text/csv")},
    )
    assert empty.status_code == 422 and "Choose a CSV file" in empty.text


async def test_list_filters_low_stock_and_searches(shop: Shop) -> None:
    await factories.sku(shop.ws, "LOW-1", on_hand=12, reserved=4, reorder_point=10)
    await factories.sku(shop.ws, "FINE-1", on_hand=100, reorder_point=10, brand="Stanley")
    await factories.sku(shop.ws, "GONE-1", on_hand=0, reorder_point=10, discontinued=True)
    low = await shop.client.get("/admin/inventory", params={"status": "low"})
    assert "LOW-1" in low.text and "FINE-1" not in low.text and "GONE-1" not in low.text
    every = await shop.client.get("/admin/inventory")
    assert all(code in every.text for code in ("LOW-1", "FINE-1", "GONE-1"))
    searched = await shop.client.get("/admin/inventory", params={"q": "stanley"})
    assert "FINE-1" in searched.text and "LOW-1" not in searched.text


async def test_another_workspaces_sku_is_404_and_csrf_is_required(shop: Shop) -> None:
    other = await factories.workspace()
    await factories.sku(other, "THEIRS", on_hand=3)
    assert (await shop.client.get("/admin/inventory/THEIRS")).status_code == 404
    answer = await post_form(
        shop.client, "/admin/inventory", "/admin/inventory/THEIRS/adjust",
        {"delta": "5", "reason": "mine now"},
    )  # fmt: skip
    assert answer.status_code == 404
    await factories.sku(shop.ws, "MINE", on_hand=3)
    no_csrf = await shop.client.post(
        "/admin/inventory/MINE/adjust", data={"delta": "5", "reason": "x"}
    )
    assert no_csrf.status_code == 403
    no_csrf_upload = await shop.client.post(
        "/admin/inventory/import", files={"file": ("a.csv", CSV.encode(), "text/csv")}
    )
    assert no_csrf_upload.status_code == 403
    assert {r.on_hand for r in await Sku.objects()} == {3}
    assert await Sku.count() == 2


async def test_staff_may_adjust_and_it_is_their_name_on_the_movement(
    shop: Shop, browser: httpx.AsyncClient
) -> None:
    from tests.admin.support import log_in, member

    await factories.sku(shop.ws, "TEE")
    staff = await member(shop.ws, role="staff")
    await shop.client.post(
        "/admin/logout", data={"_csrf_token": csrf_of(await shop.client.get("/admin/"))}
    )
    assert (await log_in(browser, staff.email)).status_code == 303
    answer = await post_form(
        browser, "/admin/inventory/TEE", "/admin/inventory/TEE/adjust",
        {"delta": "-2", "reason": "damaged"},
    )  # fmt: skip
    assert answer.status_code == 303
    row = await StockMovement.select(StockMovement.user).first()
    assert row["user"] == staff.id
    assert await User.exists().where(User.id == staff.id)


async def test_pages_cost_the_same_statements_for_one_row_or_fifty(
    shop: Shop, statements: list[str]
) -> None:
    cost = functools.partial(statement_count, shop.client, statements)
    await factories.sku(shop.ws, "AAA")
    await stock.adjust(
        workspace_id=shop.ws.id, sku="AAA", delta=1, reason="count",
        actor=OPERATOR,
    )  # fmt: skip
    one_list, one_sku = await cost("/admin/inventory"), await cost("/admin/inventory/AAA")
    for n in range(49):
        await factories.sku(shop.ws, f"B{n:03d}")
        await stock.adjust(
            workspace_id=shop.ws.id, sku="AAA", delta=1, reason="count", actor=OPERATOR
        )
    assert await cost("/admin/inventory") == one_list
    assert await cost("/admin/inventory/AAA") == one_sku
    assert one_list <= 6, statements


async def test_admin_shows_the_shortage_on_the_order_page(shop: Shop):
    customer = await factories.customer(shop.ws, "Acme Tees")
    order_id = await _short_order(shop.ws, customer)
    number = (await Order.select(Order.number).where(Order.id == order_id).first())["number"]
    page = f"/admin/orders/{number}"
    before = await snapshot()

    answer = await post_form(shop.client, page, f"{page}/stage", {"to_stage": "in_production"})

    assert answer.status_code == 422
    assert "CAP needs 5, 2 on hand (3 short)" in answer.text
    assert "HOOD needs 4, 0 on hand (4 short)" in answer.text
    assert await snapshot() == before
    assert await StageChange.count().where(StageChange.order == order_id) == 1
