"""Text the admin does not keep: NUL and every other C0 control but tab in a
one-line field of any admin form is refused with the field's error, on both databases (NUL
used to fail PostgreSQL with a 500 where a field was not checked), and nothing is written."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from models.tables import ApiToken, Contact, Customer, Order, User, WebhookSubscription
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import post_form

CONTROLS = ["\x00", "\x07", "\n", "\r", "\x1f"]
ONE_LINE = "must be one line of text, without control characters"


@dataclass
class Form:
    """A form of the admin: its page, where it posts, valid values and what it would write."""

    page: str
    action: str
    values: dict[str, str]
    written: Callable[[], Awaitable[int]]
    ids: dict[str, int] = field(default_factory=dict)


async def _forms(shop: Shop) -> dict[str, Form]:
    customer = await factories.customer(shop.ws, "Acme Tees")
    order = await factories.order(shop.ws, customer)
    order_page = f"/admin/orders/{order.number}"
    line = {"lines-0-description": "Front print", "lines-0-quantity": "2"}

    async def customers() -> int:
        return await Customer.count()

    async def contacts() -> int:
        return await Contact.count()

    async def orders() -> int:
        return await Order.count()

    async def dispatched() -> int:
        return await Order.count().where(Order.stage == "dispatched")

    async def tokens() -> int:
        return await ApiToken.count()

    async def users() -> int:
        return await User.count()

    async def subscriptions() -> int:
        return await WebhookSubscription.count()

    new_customer = {"name": "Bold Threads", "payment_terms": "net_30"}
    return {
        "customer": Form("/admin/customers/new", "/admin/customers/", new_customer, customers),
        "contact": Form(
            f"/admin/customers/{customer.id}",
            f"/admin/customers/{customer.id}/contacts",
            {"name": "Dana Reyes", "email": "dana@acme.example", "phone": "+44 20 7946 0000"},
            contacts,
        ),
        "order": Form(
            "/admin/orders/new",
            "/admin/orders/",
            {
                "customer": str(customer.id),
                **line,
                "lines-0-unit_price": "4.50",
                "lines-0-sku": "",
                "external_ref": "SHOP-1",
            },
            orders,
        ),
        "move": Form(
            order_page,
            f"{order_page}/stage",
            {"to_stage": "dispatched", "carrier": "DHL", "tracking_number": "1Z999"},
            dispatched,
        ),
        "token": Form("/admin/tokens/", "/admin/tokens/", {"name": "Shop", "days": "30"}, tokens),
        "staff": Form(
            "/admin/staff/",
            "/admin/staff/",
            {
                "name": "Sam",
                "email": "sam@inkwell.example",
                "role": "staff",
                "password": "correct horse battery staple",
            },
            users,
        ),
        "webhook": Form(
            "/admin/webhooks/",
            "/admin/webhooks/",
            {"url": "https://hooks.example.com/in", "events": "*"},
            subscriptions,
        ),
    }


FIELDS = [
    ("customer", "name"),
    ("customer", "price_list"),
    ("customer", "carrier"),
    ("contact", "name"),
    ("contact", "phone"),
    ("order", "lines-0-description"),
    ("order", "lines-0-sku"),
    ("order", "external_ref"),
    ("move", "carrier"),
    ("move", "tracking_number"),
    ("token", "name"),
    ("staff", "name"),
    ("webhook", "url"),
]


# Fields whose value is more than text: a SKU must exist, a price list needs its discount, a URL
# is a URL.
NO_TAB_TEXT = {("order", "lines-0-sku"), ("customer", "price_list"), ("webhook", "url")}


@pytest.mark.parametrize(("form_name", "name"), FIELDS)
async def test_control_characters_in_a_one_line_field_are_refused(
    shop: Shop, form_name: str, name: str
) -> None:
    form = (await _forms(shop))[form_name]
    before = await form.written()
    for control in CONTROLS:
        typed = form.values.get(name) or "SKU"
        value = typed[:2] + control + typed[2:]
        answer = await post_form(shop.client, form.page, form.action, {**form.values, name: value})
        assert answer.status_code == 422, (name, repr(control), answer.text[-2000:])
        assert ONE_LINE in answer.text, (name, repr(control))
        assert await form.written() == before, (name, repr(control))
    if (form_name, name) not in NO_TAB_TEXT:  # tab is text
        kept = await post_form(
            shop.client, form.page, form.action, {**form.values, name: "\tTab\tis text"}
        )
        assert kept.status_code == 303, (name, kept.text[-2000:])
        assert await form.written() == before + 1
