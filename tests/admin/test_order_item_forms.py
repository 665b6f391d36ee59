"""The admin's new and edit order forms with garments: garments as size grids
from the workspace's SKUs (available stock beside each size; the standard run when not
stocked), imprints, plain lines beside them; the row buttons re-render the form with everything
typed plus or minus one row (no script needed); refusals beside their fields in people's
words; the edit form's round trip through `edit_order`, its stage rule and its revision."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import httpx
import pytest

from models.actors import Actor
from models.orders import editing
from models.tables import Order, OrderImprint, OrderItem, OrderLine, Sku, StockMovement
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of, post_form, statement_count

TEE_SIZES = ("S", "M", "L", "XL", "2XL")


async def stocked_tees(shop: Shop) -> dict[str, Sku]:
    """G5000 Black in five sizes (made out of order: the grid shows them in size order)."""
    skus = {}
    for size, on_hand in (("XL", 40), ("S", 30), ("2XL", 5), ("M", 60), ("L", 50)):
        skus[size] = await factories.sku(
            shop.ws, f"G5000-BLK-{size}", style="G5000", colour="Black", size=size,
            on_hand=on_hand, brand="Gildan",
        )  # fmt: skip
    return skus


def three_garments(customer_id: int, **extra: str) -> dict[str, str]:
    """Tees (stocked) with a front print and a back print with setup, hoodies (not stocked)
    embroidered on the left chest, caps in one size; and a plain line."""
    return {
        "customer": str(customer_id), "due_by": "2030-06-30", "external_ref": "SHOP-77",
        "notes": "Deliver to the side door",
        "items-0-style": "G5000", "items-0-colour": "Black", "items-0-unit_price": "4.50",
        "items-0-size-S": "4", "items-0-size-M": "10", "items-0-size-L": "8",
        "items-0-size-2XL": "2", "items-0-upcharge-2XL": "1.50", "items-0-size-XS": "",
        "items-0-imprints-0-location": "front", "items-0-imprints-0-method": "screen",
        "items-0-imprints-0-colours": "2", "items-0-imprints-0-colour_names": "White, PMS 186 C",
        "items-0-imprints-0-width_mm": "280", "items-0-imprints-0-height_mm": "300",
        "items-0-imprints-0-unit_price": "1.20", "items-0-imprints-0-setup": "25",
        "items-0-imprints-1-location": "back", "items-0-imprints-1-method": "dtg",
        "items-0-imprints-1-unit_price": "3", "items-0-imprints-1-notes": "Tour dates",
        "items-1-style": "Hoodie 185", "items-1-colour": "Navy",
        "items-1-description": "Heavy hoodie", "items-1-unit_price": "18,50",
        "items-1-size-M": "6", "items-1-size-XL": "6",
        "items-1-imprints-0-location": "left_chest", "items-1-imprints-0-method": "embroidery",
        "items-1-imprints-0-stitches": "8000", "items-1-imprints-0-unit_price": "4",
        "items-2-style": "Snapback", "items-2-colour": "Red", "items-2-unit_price": "7",
        "items-2-other_size": "OSFA", "items-2-other_quantity": "50",
        "items-2-imprints-0-location": "front", "items-2-imprints-0-method": "embroidery",
        "items-2-imprints-0-stitches": "5000",
        "lines-0-description": "Design fee", "lines-0-quantity": "1",
        "lines-0-unit_price": "40", "lines-0-sku": "",
        **extra,
    }  # fmt: skip


async def create(shop: Shop, data: dict[str, str]) -> httpx.Response:
    return await post_form(shop.client, "/admin/orders/new", "/admin/orders/new", data)


async def press(shop: Shop, page: str, action: str, data: dict[str, str]) -> httpx.Response:
    """A row button of the form at `page` with `data` typed."""
    return await post_form(shop.client, page, page, {**data, "action": action})


def value_of(page: str, name: str) -> str | None:
    """The value the page's input `name` shows (None: no such input)."""
    found = re.search(rf'<input[^>]*\bname="{re.escape(html.escape(name))}"[^>]*>', page)
    if found is None:
        return None
    value = re.search(r'\bvalue="([^"]*)"', found.group(0))
    return html.unescape(value.group(1)) if value else ""


def selected(page: str, name: str) -> str | None:
    found = re.search(rf'<select[^>]*name="{re.escape(name)}".*?</select>', page, re.DOTALL)
    assert found, name
    option = re.search(r'<option value="([^"]*)" ?selected', found.group(0))
    return option.group(1) if option else None


def words(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def size_columns(page: str, item: int) -> list[str]:
    return [html.unescape(name) for name in re.findall(rf'name="items-{item}-size-([^"]+)"', page)]


async def order_rows(number: str) -> tuple[dict[str, Any], list[dict], list[dict], list[dict]]:
    order = await Order.select().where(Order.number == number).first()
    assert order is not None
    items = (
        await OrderItem.select().where(OrderItem.order == order["id"]).order_by(OrderItem.position)
    )
    imprints = (
        await OrderImprint.select()
        .where(OrderImprint.order == order["id"])
        .order_by(OrderImprint.item, OrderImprint.position)
    )
    lines = await OrderLine.select(
        OrderLine.description, OrderLine.quantity, OrderLine.unit_price_cents, OrderLine.sku,
        OrderLine.item,
    ).where(OrderLine.order == order["id"]).order_by(OrderLine.position)  # fmt: skip
    return order, items, imprints, lines


def as_dict(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


async def created_number(answer: httpx.Response) -> str:
    assert answer.status_code == 303, words(answer.text)[-3000:]
    return answer.headers["location"].rsplit("/", 1)[-1]


# --- creating -----------------------------------------------------------------------------------


async def test_three_garments_with_imprints_become_items_imprints_and_lines(shop: Shop) -> None:
    skus = await stocked_tees(shop)
    customer = await factories.customer(shop.ws, "Hop & Barley")
    number = await created_number(await create(shop, three_garments(customer.id)))
    order, items, imprints, lines = await order_rows(number)

    assert (order["external_ref"], order["notes"], order["revision"]) == (
        "SHOP-77", "Deliver to the side door", 1,
    )  # fmt: skip
    assert [(i["style"], i["colour"], i["description"], i["unit_price_cents"]) for i in items] == [
        ("G5000", "Black", "Gildan G5000 Black", 450),
        ("Hoodie 185", "Navy", "Heavy hoodie", 1850),
        ("Snapback", "Red", "Snapback Red", 700),
    ]
    assert as_dict(items[0]["sizes"]) == {"S": 4, "M": 10, "L": 8, "2XL": 2}
    assert as_dict(items[0]["size_upcharges_cents"]) == {"2XL": 150}
    assert as_dict(items[1]["sizes"]) == {"M": 6, "XL": 6}
    assert as_dict(items[2]["sizes"]) == {"OSFA": 50}
    assert [
        (i["location"], i["method"], i["colours"], as_dict(i["colour_names"]), i["stitches"],
         i["width_mm"], i["height_mm"], i["unit_price_cents"], i["setup_cents"], i["notes"])
        for i in imprints
    ] == [
        ("front", "screen", 2, ["White", "PMS 186 C"], None, 280, 300, 120, 2500, ""),
        ("back", "dtg", None, [], None, None, None, 300, 0, "Tour dates"),
        ("left_chest", "embroidery", None, [], 8000, None, None, 400, 0, ""),
        ("front", "embroidery", None, [], 5000, None, None, 0, 0, ""),
    ]  # fmt: skip
    tee = 450 + 120 + 300
    assert [(x["description"], x["quantity"], x["unit_price_cents"]) for x in lines] == [
        ("Gildan G5000 Black — S", 4, tee),
        ("Gildan G5000 Black — M", 10, tee),
        ("Gildan G5000 Black — L", 8, tee),
        ("Gildan G5000 Black — 2XL", 2, tee + 150),
        ("Setup: front, screen print, 2 colours", 1, 2500),
        ("Heavy hoodie — M", 6, 1850 + 400),
        ("Heavy hoodie — XL", 6, 1850 + 400),
        ("Snapback Red — OSFA", 50, 700),
        ("Design fee", 1, 4000),
    ]
    item_ids = [i["id"] for i in items]
    assert [x["item"] for x in lines] == [item_ids[0]] * 5 + [item_ids[1]] * 2 + [item_ids[2], None]
    assert [x["sku"] for x in lines[:4]] == [skus[s].id for s in ("S", "M", "L", "2XL")]
    assert order["subtotal_cents"] == sum(x["quantity"] * x["unit_price_cents"] for x in lines)
    reserved = await Sku.select(Sku.size, Sku.reserved).where(Sku.workspace == shop.ws.id)
    assert {r["size"]: r["reserved"] for r in reserved} == {
        "S": 4, "M": 10, "L": 8, "XL": 0, "2XL": 2,
    }  # fmt: skip


async def test_the_new_form_offers_the_skus_sizes_with_stock_else_the_standard_run(
    shop: Shop,
) -> None:
    await stocked_tees(shop)
    await factories.sku(shop.ws, "G5000-BLK-M-OLD", style="G5000", colour="Black", size="M",
                        discontinued=True)  # fmt: skip
    await factories.sku(shop.ws, "HOOD-NVY-L", style="Hoodie 185", colour="Navy", size="L",
                        brand="Fruit")  # fmt: skip
    await factories.customer(shop.ws, "Acme")
    blank = await shop.client.get("/admin/orders/new")
    assert blank.status_code == 200
    assert size_columns(blank.text, 0) == ["XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL", "5XL"]
    assert '<option value="G5000">Gildan</option>' in blank.text
    assert '<option value="Hoodie 185">Fruit</option>' in blank.text
    assert '<option value="Navy"></option>' in blank.text

    # the style and colour picked (any case) show their SKUs' sizes in size order with what is
    # free; what was typed in a size they do not have stays, as a column of its own
    shown = await press(shop, "/admin/orders/new", "refresh-0", {
        "items-0-style": "g5000", "items-0-colour": "BLACK", "items-0-size-M": "12",
        "items-0-size-3XL": "1", "items-0-upcharge-2XL": "2",
    })  # fmt: skip
    assert shown.status_code == 200
    assert size_columns(shown.text, 0) == [*TEE_SIZES, "3XL"]
    assert value_of(shown.text, "items-0-size-M") == "12"
    assert value_of(shown.text, "items-0-size-3XL") == "1"
    assert value_of(shown.text, "items-0-upcharge-2XL") == "2"
    text = words(shown.text)
    assert "S quantity 30 free" in text and "2XL quantity 5 free" in text
    assert re.search(r'id="items-0-q0"[^>]*autofocus', shown.text)
    assert await Order.count() == 0

    # stock is the workspace's own: another workspace's SKUs are not offered
    other = await factories.workspace()
    await factories.sku(other, "X-1", style="Secret", colour="Gold", size="M")
    again = await shop.client.get("/admin/orders/new")
    assert "Secret" not in again.text and "Gold" not in again.text


async def test_the_row_buttons_keep_everything_typed(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, "Acme")
    typed = three_garments(customer.id)
    page = "/admin/orders/new"

    added = await press(shop, page, "add_item", typed)
    assert added.status_code == 200
    for name, value in typed.items():
        if name.startswith(("items-", "lines-")) and value and "other_" not in name:
            assert value_of(added.text, name) == value or selected(added.text, name) == value, name
    assert value_of(added.text, "items-2-size-OSFA") == "50"  # the other size became a column
    assert selected(added.text, "customer") == str(customer.id)
    assert value_of(added.text, "due_by") == "2030-06-30"
    assert "Deliver to the side door" in added.text
    assert value_of(added.text, "items-3-style") == ""  # one new garment, with one imprint row
    assert re.search(r'id="items-3-style"[^>]*autofocus', added.text)
    assert selected(added.text, "items-3-imprints-0-location") is None
    assert value_of(added.text, "items-4-style") is None
    assert "Garment 4" in added.text

    # the new, empty garment stays while other buttons are pressed (saving leaves it out)
    kept = await press(shop, page, "refresh-0", form_of(added.text))
    assert value_of(kept.text, "items-3-style") == ""
    assert 'name="items-3-imprints-0-location"' in kept.text

    imprint = await press(shop, page, "add_imprint-1", typed)
    assert value_of(imprint.text, "items-1-imprints-0-stitches") == "8000"
    assert selected(imprint.text, "items-1-imprints-1-location") is None
    assert value_of(imprint.text, "items-1-imprints-2-notes") is None
    assert re.search(r'id="items-1-imprints-1-location"[^>]*autofocus', imprint.text)

    gone = await press(shop, page, "remove_imprint-0-0", typed)
    assert 'name="items-0-imprints-0-location"' not in gone.text
    assert selected(gone.text, "items-0-imprints-1-location") == "back"
    without = await press(shop, page, "remove_item-1", typed)
    assert value_of(without.text, "items-1-style") is None
    assert value_of(without.text, "items-2-style") == "Snapback"

    line = await press(shop, page, "add_line", typed)
    assert value_of(line.text, "lines-0-description") == "Design fee"
    assert value_of(line.text, "lines-1-description") == ""
    assert await Order.count() == 0

    # the removed garment stays removed when the form is then saved
    saved = {k: v for k, v in typed.items() if not k.startswith("items-1-")}
    number = await created_number(await create(shop, saved))
    _, items, _, _ = await order_rows(number)
    assert [i["style"] for i in items] == ["G5000", "Snapback"]


async def test_refusals_name_the_garment_the_imprint_and_the_field(shop: Shop) -> None:
    await stocked_tees(shop)
    customer = await factories.customer(shop.ws, "Acme")
    data = three_garments(
        customer.id,
        **{
            "items-1-unit_price": "18.505",
            "items-1-imprints-0-setup": "lots",
            "items-2-colour": " ",
            "items-2-imprints-0-width_mm": "0",
            "items-0-imprints-1-colour_names": "White, " + "x" * 51,
        },
    )
    refused = await create(shop, data)
    assert refused.status_code == 422
    said(
        refused,
        "Garment 2, price each: Type an amount with at most two decimals",
        "Garment 2, imprint 1, setup (once): Type an amount",
        "Garment 3: Colour is required.",
        "Garment 3, imprint 1: Width (mm) must be at least 1.",
        "Garment 1, imprint 2: Each colour name must be at most 50 characters.",
    )
    # beside its field, and everything typed kept
    assert '<p class="error" id="items-1-unit_price-error">' in refused.text
    assert re.search(r'id="items-1-unit_price"[^>]*aria-invalid="true"', refused.text)
    assert value_of(refused.text, "items-1-unit_price") == "18.505"
    assert value_of(refused.text, "items-0-imprints-0-colour_names") == "White, PMS 186 C"

    # rules between fields, once every field reads on its own (as the API checks them)
    rules = await create(shop, three_garments(customer.id, **{
        "items-0-imprints-0-colours": "", "items-1-imprints-0-stitches": "",
    }))  # fmt: skip
    assert rules.status_code == 422
    said(
        rules,
        "Garment 1, imprint 1: Ink colours is required for screen printing.",
        "Garment 2, imprint 1: Stitches is required for embroidery.",
    )
    assert '<p class="error" id="items-0-imprints-0-colours-error">' in rules.text
    assert re.search(r'id="items-0-imprints-0-colours"[^>]*aria-invalid="true"', rules.text)

    # the workspace's own stock: a size the SKUs do not have
    unstocked = await create(shop, three_garments(customer.id, **{"items-0-size-3XL": "2"}))
    assert unstocked.status_code == 422
    said(
        unstocked,
        "Garment 1, size 3XL: The workspace has no G5000 Black in size 3XL; it has S, M, L, XL, "
        "2XL.",
    )
    assert re.search(r'name="items-0-size-3XL"[^>]*aria-invalid="true"', unstocked.text)
    assert value_of(unstocked.text, "items-0-size-3XL") == "2"
    assert await Order.count() == 0 and await OrderItem.count() == 0


def said(answer: httpx.Response, *sentences: str) -> None:
    """Each sentence is on the page, and no API key is shown as it is."""
    text = words(answer.text)
    for sentence in sentences:
        assert sentence in text, (sentence, text[-3000:])
    assert "items." not in text


async def test_a_garment_needs_a_size_and_fields_no_page_numbers_are_refused(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, "Acme")
    no_size = await create(shop, {
        "customer": str(customer.id), "items-0-style": "Tee", "items-0-colour": "White",
        "items-0-unit_price": "3",
    })  # fmt: skip
    assert no_size.status_code == 422
    assert "Garment 1: Sizes must have at least 1 size." in words(no_size.text)
    zero = await create(shop, {
        "customer": str(customer.id), "items-0-style": "Tee", "items-0-colour": "White",
        "items-0-unit_price": "3", "items-0-size-M": "0",
    })  # fmt: skip
    assert "Garment 1: Sizes needs at least one size above 0." in words(zero.text)
    unread = await create(shop, {
        "customer": str(customer.id), "items-0-style": "Tee", "items-0-colour": "White",
        "items-0-unit_price": "3", "items-0-size-M": "1", "items-1234567-style": "Hat",
    })  # fmt: skip
    assert unread.status_code == 422
    assert "A garment could not be read" in words(unread.text)
    assert await Order.count() == 0


async def test_plain_lines_alone_still_make_an_order(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, "Acme")
    number = await created_number(await create(shop, {
        "customer": str(customer.id), "lines-0-description": "Front print",
        "lines-0-quantity": "10", "lines-0-unit_price": "4.50",
    }))  # fmt: skip
    _, items, _, lines = await order_rows(number)
    assert items == [] and [(x["description"], x["item"]) for x in lines] == [("Front print", None)]


# --- editing ------------------------------------------------------------------------------------


async def test_the_edit_form_round_trip(shop: Shop) -> None:
    await stocked_tees(shop)
    customer = await factories.customer(shop.ws, "Hop & Barley")
    number = await created_number(await create(shop, three_garments(customer.id)))
    page = f"/admin/orders/{number}/edit"

    opened = await shop.client.get(page)
    assert opened.status_code == 200
    assert value_of(opened.text, "revision") == "1"
    for name, value in {
        "items-0-style": "G5000", "items-0-colour": "Black", "items-0-unit_price": "4.50",
        "items-0-description": "Gildan G5000 Black", "items-0-size-M": "10",
        "items-0-size-XL": "", "items-0-upcharge-2XL": "1.50", "items-1-unit_price": "18.50",
        "items-0-imprints-0-colour_names": "White, PMS 186 C",
        "items-0-imprints-0-setup": "25.00", "items-1-imprints-0-stitches": "8000",
        "items-2-size-OSFA": "50", "lines-0-description": "Design fee",
        "lines-0-unit_price": "40.00", "due_by": "2030-06-30", "external_ref": "SHOP-77",
    }.items():  # fmt: skip
        assert value_of(opened.text, name) == value, name
    assert selected(opened.text, "items-0-imprints-1-method") == "dtg"
    assert "Deliver to the side door" in opened.text
    assert size_columns(opened.text, 0) == list(TEE_SIZES)

    # the form sent back as it is changes nothing
    unchanged = await post_form(shop.client, page, page, form_of(opened.text))
    assert unchanged.status_code == 303
    assert (await order_rows(number))[0]["revision"] == 1

    # more tees in M, a new size, the back print gone, the caps gone, a new hoodie imprint
    typed = form_of(opened.text)
    typed.update({"items-0-size-M": "20", "items-0-size-XL": "3"})
    gone = ("items-0-imprints-1-", "items-2-")
    typed = {k: v for k, v in typed.items() if not k.startswith(gone)}
    added = await press(shop, page, "add_imprint-1", typed)
    typed = form_of(added.text)
    typed.update({
        "items-1-imprints-1-location": "back", "items-1-imprints-1-method": "transfer",
        "items-1-imprints-1-unit_price": "2.5",
    })  # fmt: skip
    saved = await post_form(shop.client, page, page, typed)
    assert saved.status_code == 303, words(saved.text)[-2000:]
    assert saved.headers["location"] == f"/admin/orders/{number}"
    assert f"Order {number} saved." in (await shop.client.get(saved.headers["location"])).text

    order, items, imprints, lines = await order_rows(number)
    assert order["revision"] == 2 and order["notes"] == "Deliver to the side door"
    assert [i["style"] for i in items] == ["G5000", "Hoodie 185"]
    assert as_dict(items[0]["sizes"]) == {"S": 4, "M": 20, "L": 8, "XL": 3, "2XL": 2}
    assert [(i["location"], i["method"]) for i in imprints] == [
        ("front", "screen"), ("left_chest", "embroidery"), ("back", "transfer"),
    ]  # fmt: skip
    tee = 450 + 120
    assert [(x["description"], x["quantity"], x["unit_price_cents"]) for x in lines] == [
        ("Gildan G5000 Black — S", 4, tee),
        ("Gildan G5000 Black — M", 20, tee),
        ("Gildan G5000 Black — L", 8, tee),
        ("Gildan G5000 Black — XL", 3, tee),
        ("Gildan G5000 Black — 2XL", 2, tee + 150),
        ("Setup: front, screen print, 2 colours", 1, 2500),
        ("Heavy hoodie — M", 6, 1850 + 400 + 250),
        ("Heavy hoodie — XL", 6, 1850 + 400 + 250),
        ("Design fee", 1, 4000),
    ]
    reserved = await Sku.select(Sku.size, Sku.reserved).where(Sku.workspace == shop.ws.id)
    assert {r["size"]: r["reserved"] for r in reserved}["M"] == 20
    edited = await StockMovement.select().where(StockMovement.reason == editing.EDIT_REASON)
    assert len(edited) == 2  # M grew by 10, XL reserved 3

    reopened = await shop.client.get(page)
    assert value_of(reopened.text, "revision") == "2"
    assert value_of(reopened.text, "items-0-size-M") == "20"


async def test_past_print_queue_only_the_due_date_and_notes_change(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, "Acme")
    number = await created_number(await create(shop, three_garments(customer.id)))
    row = await Order.select(Order.id).where(Order.number == number).first()
    await factories.set_artwork(await Order.objects().get(Order.id == row["id"]),
                                status="approved", version=1)  # fmt: skip
    for stage in ("print_queue", "in_production"):
        moved = await post_form(shop.client, f"/admin/orders/{number}",
                                f"/admin/orders/{number}/stage", {"to_stage": stage})  # fmt: skip
        assert moved.status_code == 303, words(moved.text)[-1000:]
    page = f"/admin/orders/{number}/edit"
    opened = await shop.client.get(page)
    assert opened.status_code == 200
    assert "its garments and lines can no longer change" in words(opened.text)

    typed = form_of(opened.text)
    refused = await post_form(shop.client, page, page, {**typed, "items-0-size-M": "99"})
    assert refused.status_code == 422
    assert f"Order {number} is in_production; its lines can no longer change." in words(
        refused.text
    )
    assert value_of(refused.text, "items-0-size-M") == "99"
    order, _, _, lines = await order_rows(number)
    assert order["revision"] == 1 and lines[1]["quantity"] == 10

    later = await post_form(shop.client, page, page, {**typed, "due_by": "2030-07-15",
                                                      "notes": "Rush"})  # fmt: skip
    assert later.status_code == 303, words(later.text)[-1000:]
    order, _, _, _ = await order_rows(number)
    assert order["revision"] == 2 and order["notes"] == "Rush"


async def test_notes_sent_back_with_browser_line_breaks_change_nothing(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, "Acme")
    typed = three_garments(customer.id, notes="Side door\r\nRing twice")
    number = await created_number(await create(shop, typed))
    page = f"/admin/orders/{number}/edit"
    sent = form_of((await shop.client.get(page)).text)
    assert sent["notes"] == "Side door\nRing twice"
    again = await post_form(
        shop.client, page, page, {**sent, "notes": "Side door\r\nRing twice\r\n"}
    )
    assert again.status_code == 303
    assert "Nothing was changed." in (await shop.client.get(again.headers["location"])).text
    assert (await order_rows(number))[0]["revision"] == 1


async def test_a_stale_revision_is_refused_and_nothing_saved(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, "Acme")
    number = await created_number(await create(shop, three_garments(customer.id)))
    page = f"/admin/orders/{number}/edit"
    opened = await shop.client.get(page)
    typed = form_of(opened.text)

    order = await Order.select(Order.id).where(Order.number == number).first()
    await editing.edit_order(
        workspace_id=shop.ws.id,
        order_id=order["id"],
        edit=editing.OrderEdit(notes="Other"),
        actor=Actor.user(shop.owner.id),
    )  # someone else saves meanwhile: revision 2
    stale = await shop.client.post(page, data={**typed, "items-0-size-M": "30"})
    assert stale.status_code == 409
    text = words(stale.text)
    assert f"Order {number} changed while you were editing it" in text
    assert "your changes were not saved" in text
    assert value_of(stale.text, "items-0-size-M") == "30"
    row, _, _, lines = await order_rows(number)
    assert row["revision"] == 2 and row["notes"] == "Other" and lines[1]["quantity"] == 10


async def test_another_workspaces_order_cannot_be_edited(shop: Shop) -> None:
    other = await factories.workspace()
    theirs = await factories.order(other, await factories.customer(other))
    customer = await factories.customer(shop.ws, "Acme")
    number = await created_number(await create(shop, three_garments(customer.id)))
    token = csrf_of(await shop.client.get(f"/admin/orders/{number}/edit"))
    for ref in (theirs.number, str(theirs.id), "ORD-1999-0001", "0", "99999999999"):
        assert (await shop.client.get(f"/admin/orders/{ref}/edit")).status_code == 404
        posted = await shop.client.post(
            f"/admin/orders/{ref}/edit", data={"_csrf_token": token, "notes": "x"}
        )
        assert posted.status_code == 404
    assert (await Order.select(Order.notes).where(Order.id == theirs.id).first())["notes"] == ""


@pytest.mark.parametrize("path", ["/admin/orders/new", "/admin/orders/{number}/edit"])
async def test_the_forms_cost_a_fixed_number_of_statements(
    shop: Shop, statements: list[str], path: str
) -> None:
    await stocked_tees(shop)
    customer = await factories.customer(shop.ws, "Acme")
    number = await created_number(await create(shop, three_garments(customer.id)))
    few = await statement_count(shop.client, statements, path.format(number=number))
    more = await created_number(await create(shop, three_garments(
        customer.id, **{"items-3-style": "G5000", "items-3-colour": "Black",
                        "items-3-unit_price": "1", "items-3-size-M": "1",
                        "external_ref": "SHOP-78"},
    )))  # fmt: skip
    many = await statement_count(shop.client, statements, path.format(number=more))
    assert few == many and many <= 9, statements


def form_of(page: str) -> dict[str, str]:
    """The fields the page's order form would send as it is shown (text, hidden, ticked
    checkboxes, chosen radio buttons, selected options, text areas), like a browser (a name
    sent twice: the last)."""
    form = re.search(r'<form[^>]*id="order-form".*?</form>', page, re.DOTALL)
    assert form is not None
    body = form.group(0)
    fields: dict[str, str] = {}
    for tag in re.findall(r"<input[^>]*>", body):
        name = re.search(r'\bname="([^"]*)"', tag)
        kind = re.search(r'\btype="([^"]*)"', tag)
        if name is None or (kind and kind.group(1) == "submit"):
            continue
        ticked = re.search(r"\bchecked\b", tag)
        if kind and kind.group(1) in ("checkbox", "radio") and not ticked:
            continue  # sent only when ticked or chosen
        value = re.search(r'\bvalue="([^"]*)"', tag)
        fields[html.unescape(name.group(1))] = html.unescape(value.group(1)) if value else ""
    for select in re.findall(r"<select.*?</select>", body, re.DOTALL):
        name = re.search(r'\bname="([^"]*)"', select)
        assert name is not None
        option = re.search(r'<option value="([^"]*)" ?selected', select)
        fields[name.group(1)] = option.group(1) if option else ""
    for name, value in re.findall(r'<textarea[^>]*name="([^"]*)"[^>]*>(.*?)</textarea>', body,
                                  re.DOTALL):  # fmt: skip
        fields[name] = html.unescape(value)
    return fields


async def test_hostile_garment_fields_are_refused_never_a_500(shop: Shop) -> None:
    await stocked_tees(shop)
    customer = await factories.customer(shop.ws, "Acme")
    hostile = {
        "customer": str(customer.id), "items-0-style": "G5000\x00", "items-0-colour": "Black",
        "items-0-unit_price": "1", "items-0-size-M\x00": "1", "items-0-size-" + "X" * 300: "2",
        "items-0-size-L": "-3", "items-0-upcharge-L": "1,250", "items-1-style": "x" * 5000,
        "items-1-colour": "Red", "items-1-unit_price": "1", "items-1-size-M": "1",
        "items-0-imprints-0-location": "roof", "items-0-imprints-0-method": "screen",
        "items-0-imprints-0-colours": "٣", "items-0-imprints-0-colour_names": ",,, ,",
        "items-0-imprints-0-notes": "a\x01b",
    }  # fmt: skip
    for action in ("refresh-0", "sizes-1", "add_imprint-0", "add_imprint-99", "remove_item-7",
                   "bogus", "add_item"):  # fmt: skip
        shown = await press(shop, "/admin/orders/new", action, hostile)
        assert shown.status_code == 200, (action, shown.status_code)
    refused = await create(shop, hostile)
    assert refused.status_code == 422
    said(
        refused,
        "Garment 1, imprint 1: Location must be one of the choices offered.",
        "Garment 1: Size L must be at least 0.",
        "Garment 1, imprint 1: Ink colours must be a whole number, e.g. 2.",
        "Garment 1, upcharge for L: Type the amount as 1250 (or 1,250.00) or as 1.25",
        "Garment 2: Style must be at most 100 characters.",
    )
    assert await Order.count() == 0


async def test_another_size_by_name(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, "Acme")
    cap = {
        "customer": str(customer.id), "items-0-style": "Cap", "items-0-colour": "Red",
        "items-0-unit_price": "5",
    }  # fmt: skip
    unnamed = await create(shop, {**cap, "items-0-other_quantity": "5"})
    said(unnamed, "Garment 1, other size: Name the other size (e.g. OSFA) beside its quantity.")
    twice = await create(shop, {**cap, "items-0-size-M": "2", "items-0-other_size": "m",
                                "items-0-other_quantity": "3"})  # fmt: skip
    said(twice, "Garment 1, other size: m has a box of its own: type its quantity there.")
    assert value_of(twice.text, "items-0-other_quantity") == "3"
    into_its_box = await press(shop, "/admin/orders/new", "refresh-0", {
        **cap, "items-0-other_size": "xl", "items-0-other_quantity": "4",
    })  # fmt: skip
    assert value_of(into_its_box.text, "items-0-size-XL") == "4"
    assert value_of(into_its_box.text, "items-0-other_size") == ""
    assert await Order.count() == 0
