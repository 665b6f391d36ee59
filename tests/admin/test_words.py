"""Print locations and methods in words wherever people read them (models/garments.py
`location_words`, `method_words`): the setup lines an order is given ("Setup: left chest,
embroidery", "Setup: front, screen print, 1 colour"), the order page, the work order, the
invoice, the customer's proof page and the command line. Lines keep the words they were made
with: an order made before keeps "Setup: left_chest embroidery" until its garments change."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from models.garments import Location, Method, location_words, method_words
from models.tables import Contact, Customer, Order, OrderLine
from tests import factories
from tests.admin.conftest import Shop
from tests.api.item_helpers import imprint, item, items_body, patch
from tests.proofs import support as proofs
from tests.proofs.files import png

HOODIE = item(
    style="Heavy Hoodie", colour="Navy", sizes={"M": 5, "L": 5}, unit_price_cents=2200,
    imprints=[imprint(location="left_chest", method="embroidery", colours=None, stitches=8000,
                      setup_cents=3000)],
)  # fmt: skip
CAP = item(
    style="Trucker Cap", colour="Black", sizes={"One size": 24}, unit_price_cents=900,
    imprints=[
        imprint(setup_cents=1500),
        imprint(location="back", colours=2, design="crest-2026", setup_cents=2000),
        imprint(location="right_sleeve", method="dtg", colours=None, setup_cents=500),
        imprint(location="pocket", method="vinyl", colours=None, setup_cents=1),
    ],
)  # fmt: skip
SETUPS = [
    "Setup: left chest, embroidery",
    "Setup: front, screen print, 1 colour",
    "Setup: back, screen print, 2 colours (crest-2026)",
    "Setup: right sleeve, DTG",
    "Setup: pocket, vinyl",
]
TAGS = re.compile(r"<[^>]+>")


def text_of(page: httpx.Response) -> str:
    """What a reader sees of the page: its text, without tags or attribute values."""
    return " ".join(TAGS.sub(" ", page.text).split())


async def setups(order_id: int) -> list[str]:
    rows = await OrderLine.select(OrderLine.description).where(OrderLine.order == order_id)
    return [r["description"] for r in rows if r["description"].startswith("Setup")]


async def garments_order(client: httpx.AsyncClient, ws: Any, auth: dict[str, str]) -> Order:
    customer = await factories.customer(ws, "Hop & Barley Brewing Co.")
    await factories.contact(customer, is_primary=True, name="Dana Reyes")
    delivery = {"description": "Delivery", "quantity": 1, "unit_price_cents": 950}
    body = items_body(customer.id, HOODIE, CAP, lines=[delivery])
    created = await client.post("/api/v1/orders", json=body, headers=auth)
    assert created.status_code == 201, created.text
    row = await Order.objects().where(Order.id == created.json()["id"]).first()
    assert row is not None
    return row


def test_words_for_every_location_and_method() -> None:
    assert [location_words(place) for place in Location] == [
        "Front", "Back", "Left chest", "Right chest", "Left sleeve", "Right sleeve", "Neck",
        "Pocket", "Other",
    ]  # fmt: skip
    assert [location_words(place, in_sentence=True) for place in Location][2] == "left chest"
    assert [method_words(method) for method in Method] == [
        "Screen print", "Embroidery", "DTG", "Transfer", "Vinyl",
    ]  # fmt: skip
    assert [method_words(method, in_sentence=True) for method in Method] == [
        "screen print", "embroidery", "DTG", "transfer", "vinyl",
    ]  # fmt: skip
    # A stored code the service no longer offers still reads as words.
    assert location_words("left_hip") == "Left hip"
    assert location_words("left_hip", in_sentence=True) == "left hip"


async def test_setup_lines_say_the_location_and_method_in_words(client: httpx.AsyncClient):
    ws, _, auth = await factories.account()
    order = await garments_order(client, ws, auth)
    assert await setups(order.id) == SETUPS
    detail = await client.get(f"/api/v1/orders/{order.id}", headers=auth)
    described = [line["description"] for line in detail.json()["lines"]]
    assert [d for d in described if d.startswith("Setup")] == SETUPS


async def test_an_order_keeps_its_lines_words_until_its_garments_are_edited(
    client: httpx.AsyncClient,
):
    ws, _, auth = await factories.account()
    order = await garments_order(client, ws, auth)
    old = {"Setup: left chest, embroidery": "Setup: left_chest embroidery",
           "Setup: front, screen print, 1 colour": "Setup: front screen, 1 colours"}  # fmt: skip
    for new, before in old.items():  # as an order made before these words stored them
        await OrderLine.update({OrderLine.description: before}).where(
            (OrderLine.order == order.id) & (OrderLine.description == new)
        )
    kept = ["Setup: left_chest embroidery", "Setup: front screen, 1 colours", *SETUPS[2:]]
    delivery = {"description": "Delivery", "quantity": 1, "unit_price_cents": 1200}
    answer = await patch(client, auth, order.id, {"lines": [delivery]})  # plain lines only
    assert answer.status_code == 200, answer.text
    assert await setups(order.id) == kept
    shown = [line["description"] for line in answer.json()["lines"]]
    assert "Setup: left_chest embroidery" in shown
    answer = await patch(client, auth, order.id, {"items": [HOODIE, CAP]})  # garments edited
    assert answer.status_code == 200, answer.text
    assert await setups(order.id) == SETUPS


@pytest.fixture
async def order(shop: Shop, client: httpx.AsyncClient) -> Order:
    """An order of garments in the logged-in shop's workspace, made through the API."""
    return await garments_order(client, shop.ws, await factories.headers(shop.owner))


async def test_the_order_page_and_the_work_order_say_words(shop: Shop, order: Order):
    for path in (f"/admin/orders/{order.number}", f"/admin/orders/{order.number}/work-order"):
        page = await shop.client.get(path)
        assert page.status_code == 200, path
        seen = text_of(page)
        assert "Left chest · Embroidery" in seen, path
        assert "Right sleeve · DTG" in seen and "Front · Screen print" in seen, path
        for code in ("left_chest", "right_sleeve", "dtg"):
            assert code not in seen, (path, code)
        assert re.search(r"\bscreen\b(?! print)", seen) is None, path
    seen = text_of(await shop.client.get(f"/admin/orders/{order.number}"))
    for setup in SETUPS:
        assert setup in seen


async def test_the_invoice_says_words(shop: Shop, order: Order):
    invoice = await factories.invoice(order)
    page = await shop.client.get(f"/admin/invoices/{invoice.number}")
    assert page.status_code == 200
    seen = text_of(page)
    for setup in SETUPS:
        assert setup in seen
    assert "left_chest" not in seen


async def test_the_customers_proof_page_says_words(shop: Shop, order: Order):
    customer = await Customer.objects().where(Customer.id == order.customer).first()
    contact = await Contact.objects().where(Contact.customer == order.customer).first()
    assert customer is not None and contact is not None
    staff = proofs.Shop(shop.ws, shop.owner, customer, contact, order, shop.client)
    answer = await proofs.upload(staff, png())
    assert answer.status_code == 303, answer.text[-2000:]
    page = await shop.client.get(await proofs.last_link())
    assert page.status_code == 200
    seen = text_of(page)
    for setup in SETUPS:
        assert setup in seen
    assert "left_chest" not in seen


async def test_the_command_line_says_words(backend: str, shop: Shop, order: Order, pressline):
    run = await pressline(f"order show {order.number}")
    assert run.code == 0, run.err
    assert "    Left chest: Embroidery, 8,000 stitches;" in run.out
    assert "    Right sleeve: DTG;" in run.out
    assert "Setup: left chest, embroidery" in run.out
    assert "left_chest" not in run.out
