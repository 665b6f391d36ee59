"""The print-job pages' cost does not grow with the order (issue 27): the order page, its edit
page and work order of a one-garment order send as many statements as those of an order with
20 garments, imprints and stock; the new order form costs the same with 1 SKU or 201."""

from __future__ import annotations

from models.actors import Actor
from models.garments import NewImprint, NewItem
from models.orders import creating
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import statement_count

SIZES = ("XS", "S", "M", "L", "XL", "2XL")


def garment(n: int) -> NewItem:
    return NewItem(
        style=f"G{n:03}",
        colour="Black",
        sizes=tuple((size, 2) for size in SIZES),
        unit_price_cents=450,
        size_upcharges_cents=(("2XL", 200),),
        imprints=(
            NewImprint(location="front", method="screen", colours=2, setup_cents=2500),
            NewImprint(location="left_chest", method="embroidery", stitches=6000),
        ),
    )


async def order_of(shop: Shop, garments: int) -> str:
    customer = await factories.customer(shop.ws)
    await factories.contact(customer, is_primary=True)
    created = await creating.create(
        workspace_id=shop.ws.id,
        customer_id=customer.id,
        items=[garment(n) for n in range(garments)],
        actor=Actor.user(shop.owner.id),
    )
    return created.order.number


def pages(number: str) -> tuple[str, ...]:
    return (
        f"/admin/orders/{number}",
        f"/admin/orders/{number}/edit",
        f"/admin/orders/{number}/work-order",
    )


async def test_order_pages_cost_the_same_for_one_garment_or_twenty(shop: Shop, statements):
    for size in SIZES:  # the first garment's style is stocked, in every size
        await factories.sku(shop.ws, f"G000-BLK-{size}", style="G000", colour="Black", size=size)
    small = await order_of(shop, 1)
    counts = [await statement_count(shop.client, statements, path) for path in pages(small)]

    for n in range(1, 20):
        for size in SIZES:
            await factories.sku(
                shop.ws, f"G{n:03}-BLK-{size}", style=f"G{n:03}", colour="Black", size=size
            )
    big = await order_of(shop, 20)

    assert [await statement_count(shop.client, statements, p) for p in pages(big)] == counts
    assert max(counts) <= 15, counts


async def test_the_new_order_form_costs_the_same_with_one_sku_or_two_hundred(
    shop: Shop, statements
):
    await factories.customer(shop.ws)
    await factories.sku(shop.ws, "TEE-BLK-M", style="G5000", colour="Black", size="M")
    one = await statement_count(shop.client, statements, "/admin/orders/new")

    for n in range(200):
        await factories.sku(
            shop.ws, f"S{n:03}", style=f"S{n % 40}", colour=f"C{n % 5}", size=SIZES[n % 6]
        )

    assert await statement_count(shop.client, statements, "/admin/orders/new") == one
    assert one <= 10, one
