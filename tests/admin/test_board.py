"""The board over HTTP: each card's garment count, methods and readiness marks (with who acts
next), moves back and forward, dispatch with carrier and tracking, a refused move's reason on
the board itself, and only the workspace's own orders."""

from __future__ import annotations

import datetime as dt
import re

import httpx

from models import clock
from models.tables import Invoice, Order, OrderImprint, OrderItem, Workspace
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import post_form

BOARD = "/admin/orders/board"
_CARD = re.compile(r'<article class="card order-card[^"]*" id="card-([^"]+)">(.*?)</article>', re.S)
_MARK = re.compile(
    r'<li class="mark (\w+)" data-mark="(\w+)" data-state="(\w+)">'
    r'<span class="actor \w+">(\w+)</span> ([^<]*)</li>'
)


def cards(page: httpx.Response) -> dict[str, str]:
    return {number: body for number, body in _CARD.findall(page.text)}


def marks(card: str) -> dict[str, tuple[str, str, str, str]]:
    """kind → (state, who acts next, the word shown for them, the words)."""
    return {
        kind: (state, actor, who, " ".join(words.split()))
        for actor, kind, state, who, words in _MARK.findall(card)
    }


async def board(shop: Shop) -> httpx.Response:
    page = await shop.client.get(BOARD)
    assert page.status_code == 200, page.text
    return page


async def open_rules(shop: Shop) -> None:
    """Moves refused by neither workspace rule (the tests of refusals turn them on)."""
    await Workspace.update(
        {Workspace.require_artwork_approval: False, Workspace.strict_sequence: False}
    ).where(Workspace.id == shop.ws.id)


async def garment(
    order: Order, sizes: dict[str, int], methods: list[str], position: int = 0
) -> None:
    """An item of `order` with these sizes and one imprint per method."""
    item = OrderItem(
        workspace=order.workspace, order=order.id, position=position, style="Classic Tee",
        colour="Black", description="Classic Tee, Black", sizes=sizes, unit_price_cents=500,
        size_upcharges_cents={},
    )  # fmt: skip
    await item.save()
    for place, method in enumerate(methods):
        await OrderImprint(
            workspace=order.workspace, order=order.id, item=item.id, position=place,
            location="front", method=method,
        ).save()  # fmt: skip


async def test_cards_show_garments_methods_and_each_mark_with_who_acts(shop: Shop) -> None:
    customer = await factories.customer(shop.ws, "Acme Tees")
    tight = await factories.sku(shop.ws, on_hand=5, reserved=8)  # 3 short of what is reserved
    plenty = await factories.sku(shop.ws, on_hand=100, reserved=20)
    now = clock.now()

    # items: the garments are their sizes (setup lines are not garments); short 3 of 4
    printed = await factories.order(
        shop.ws, customer, stage="print_queue",
        lines=[("Tee S", 4, 500), ("Tee M", 6, 500), ("Setup", 1, 2500)],
        line_skus=[tight.id, plenty.id, None],
    )  # fmt: skip
    await garment(printed, {"S": 4, "M": 6}, ["embroidery", "screen"])
    await garment(printed, {"L": 2}, ["screen", "dtg"], position=1)
    await factories.set_artwork(printed, status="approved", version=1, approved_at=now)
    # no items: the lines' quantities; waiting on the customer's approval; an invoice unpaid
    waiting = await factories.order(shop.ws, customer, lines=[("Tees", 10, 500), ("Caps", 5, 300)])
    await factories.set_artwork(waiting, status="awaiting_approval", version=1)
    await factories.invoice(waiting, total=9000)
    # changes requested; covered stock; part paid (a deposit)
    changes = await factories.order(
        shop.ws, customer, lines=[("Tees", 12, 500)], line_skus=[plenty.id]
    )
    await factories.set_artwork(changes, status="changes_requested", version=2)
    deposit = await factories.invoice(changes, total=10000)
    await Invoice.update({Invoice.paid_cents: 2500}).where(Invoice.id == deposit.id)
    # no artwork row; stock already taken by production; an invoice past its due date
    late = await factories.order(
        shop.ws, customer, stage="in_production", artwork=False, stock_consumed=True,
        lines=[("Tees", 7, 500)], line_skus=[tight.id],
    )  # fmt: skip
    overdue = await factories.invoice(late, total=4200)
    await Invoice.update({Invoice.due_at: now - dt.timedelta(days=3)}).where(
        Invoice.id == overdue.id
    )
    # settled, and a draft waiting to be issued
    settled = await factories.order(shop.ws, customer, stage="qc_pack", lines=[("Sample", 1, 900)])
    await factories.invoice(settled, status="paid")
    draft = await factories.order(shop.ws, customer, stage="qc_pack")
    await factories.invoice(draft, status="draft")

    shown = cards(await board(shop))
    assert set(shown) == {o.number for o in (printed, waiting, changes, late, settled, draft)}

    card = shown[printed.number]
    assert "12 garments" in card  # 4 + 6 + 2, not the setup line
    assert "Screen print · Embroidery · DTG" in card
    assert marks(card) == {
        "art": ("approved", "no_one", "OK", "Art approved"),
        "stock": ("short", "shop", "Shop", "Stock short 3"),
        "paid": ("not_invoiced", "no_one", "OK", "Not invoiced"),
    }
    card = shown[waiting.number]
    assert "15 garments" in card and 'class="methods"' not in card
    assert marks(card) == {
        "art": ("awaiting_approval", "customer", "Customer", "Art waiting on the customer"),
        "stock": ("not_stocked", "no_one", "OK", "No stock lines"),
        "paid": ("due", "customer", "Customer", "Payment due 90.00 GBP"),
    }
    assert marks(shown[changes.number]) == {
        "art": ("changes_requested", "shop", "Shop", "Art changes requested"),
        "stock": ("covered", "no_one", "OK", "Stock covered"),
        "paid": ("part_paid", "customer", "Customer", "Balance due 75.00 GBP"),
    }
    assert marks(shown[late.number]) == {
        "art": ("awaiting_proof", "shop", "Shop", "No proof yet"),
        "stock": ("taken", "no_one", "OK", "Stock taken"),
        "paid": ("overdue", "customer", "Customer", "Overdue 42.00 GBP"),
    }
    assert marks(shown[settled.number])["paid"] == ("settled", "no_one", "OK", "Paid")
    assert marks(shown[draft.number])["paid"] == ("draft", "shop", "Shop", "Invoice not issued")
    assert '<span class="garments">1 garment</span>' in shown[settled.number]


async def test_the_board_is_one_live_region(shop: Shop) -> None:
    page = await board(shop)
    assert re.search(
        r'<div class="board" id="board" data-live-region="/admin/orders/board">', page.text
    )
    assert page.text.count('id="board"') == 1


async def test_a_card_moves_back_and_forward(shop: Shop) -> None:
    await open_rules(shop)
    customer = await factories.customer(shop.ws)
    first = await factories.order(shop.ws, customer)
    queued = await factories.order(shop.ws, customer, stage="print_queue")
    shown = cards(await board(shop))
    assert "← " not in shown[first.number]  # artwork is the first open stage
    assert f'aria-label="Move {first.number} to Print queue">→ Print queue<' in shown[first.number]
    assert f'aria-label="Move {queued.number} to Artwork">← Artwork<' in shown[queued.number]
    assert (
        f'aria-label="Move {queued.number} to In production">→ In production<'
        in (shown[queued.number])
    )

    back = await post_form(
        shop.client, BOARD, f"/admin/orders/{queued.number}/stage",
        {"to_stage": "artwork", "return_to": "board"},
    )  # fmt: skip
    assert back.status_code == 303 and back.headers["location"] == BOARD
    stage = await Order.select(Order.stage).where(Order.id == queued.id).first()
    assert stage == {"stage": "artwork"}
    after = await board(shop)
    assert f"Order {queued.number} moved to Artwork." in after.text
    assert "← " not in cards(after)[queued.number]


async def test_dispatch_from_the_board_asks_for_carrier_and_tracking(shop: Shop) -> None:
    await open_rules(shop)
    customer = await factories.customer(shop.ws, default_carrier="Royal Mail")
    packed = await factories.order(shop.ws, customer, stage="qc_pack")
    card = cards(await board(shop))[packed.number]
    # no one-click dispatch: the button opens a form, the customer's carrier filled in
    assert 'value="dispatched"' in card and "<details" in card
    assert f'id="carrier-{packed.number}" name="carrier" maxlength="100" value="Royal Mail"' in card
    assert f'id="tracking-{packed.number}" name="tracking_number"' in card

    sent = await post_form(
        shop.client, BOARD, f"/admin/orders/{packed.number}/stage",
        {"to_stage": "dispatched", "carrier": "Royal Mail", "tracking_number": "RM123456789GB",
         "return_to": "board"},
    )  # fmt: skip
    assert sent.status_code == 303 and sent.headers["location"] == BOARD
    row = await Order.select().where(Order.id == packed.id).first()
    assert row is not None
    assert (row["stage"], row["carrier"], row["tracking_number"]) == (
        "dispatched", "Royal Mail", "RM123456789GB",
    )  # fmt: skip
    after = await board(shop)
    assert packed.number not in cards(after)  # dispatched orders leave the board
    page = await shop.client.get(f"/admin/orders/{packed.number}")
    assert "RM123456789GB" in page.text


async def test_a_refused_move_shows_its_reason_on_the_board(shop: Shop) -> None:
    await Workspace.update({Workspace.require_artwork_approval: True}).where(
        Workspace.id == shop.ws.id
    )
    customer = await factories.customer(shop.ws)
    unapproved = await factories.order(shop.ws, customer)
    refused = await post_form(
        shop.client, BOARD, f"/admin/orders/{unapproved.number}/stage",
        {"to_stage": "print_queue", "return_to": "board"},
    )  # fmt: skip
    assert refused.status_code == 422
    assert 'id="board"' in refused.text  # the board, not the order's page
    reason = (
        f"Order {unapproved.number} cannot leave artwork before its artwork is approved "
        "(the workspace requires artwork approval)."
    )
    assert f'<p class="alert" role="alert" id="refusal">{reason}</p>' in refused.text
    assert 'class="card order-card refused"' in refused.text
    stage = await Order.select(Order.stage).where(Order.id == unapproved.id).first()
    assert stage == {"stage": "artwork"}


async def test_a_refused_dispatch_keeps_what_was_typed_on_its_card(shop: Shop) -> None:
    await open_rules(shop)
    customer = await factories.customer(shop.ws)
    packed = await factories.order(shop.ws, customer, stage="qc_pack")
    refused = await post_form(
        shop.client, BOARD, f"/admin/orders/{packed.number}/stage",
        {"to_stage": "dispatched", "carrier": "Parcelforce", "tracking_number": "X" * 101,
         "return_to": "board"},
    )  # fmt: skip
    assert refused.status_code == 422
    assert 'role="alert" id="refusal"' in refused.text
    card = cards(refused)[packed.number]
    assert '<details class="dispatch" open>' in card
    assert 'value="Parcelforce"' in card and f'id="tracking-error-{packed.number}"' in card
    assert 'aria-invalid="true"' in card
    stage = await Order.select(Order.stage).where(Order.id == packed.id).first()
    assert stage == {"stage": "qc_pack"}


async def test_another_workspaces_orders_are_never_on_the_board(shop: Shop) -> None:
    ours = await factories.order(shop.ws, await factories.customer(shop.ws))
    other_ws = await factories.workspace()
    other_customer = await factories.customer(other_ws)
    others = [
        await factories.order(other_ws, other_customer, stage=stage)
        for stage in ("artwork", "print_queue", "in_production", "qc_pack")
    ]
    await factories.invoice(others[0])
    await garment(others[1], {"M": 3}, ["screen"])
    page = await board(shop)
    assert set(cards(page)) == {ours.number}
    for order in others:
        assert order.number not in page.text
