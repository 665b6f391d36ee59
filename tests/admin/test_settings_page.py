"""The order rules on the Settings page: tax rate, time zone, artwork approval and stages in
sequence — owners change them, staff read them, bad values are named by their label, and the
saved values are the ones orders then follow."""

from __future__ import annotations

import html
import re
from decimal import Decimal
from typing import Any

import httpx
import pytest

from models.actors import OPERATOR
from models.errors import RuleRefused
from models.orders.stage_moves import advance_order
from models.tables import Workspace
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import log_in, member, post_form
from tests.api.order_helpers import advance, create, order_body

PAGE = "/admin/settings/"
RULES = "/admin/settings/orders"
ERROR = re.compile(r'<p class="error"[^>]*>(.*?)</p>', re.S)


async def _stored(ws: Workspace) -> dict[str, Any]:
    row = await (
        Workspace.select(
            Workspace.tax_rate,
            Workspace.timezone,
            Workspace.require_artwork_approval,
            Workspace.strict_sequence,
            Workspace.prices_include_tax,
        )
        .where(Workspace.id == ws.id)
        .first()
    )
    assert row is not None
    return {
        "tax_rate": Decimal(str(row["tax_rate"])),
        "timezone": row["timezone"],
        "require_artwork_approval": bool(row["require_artwork_approval"]),
        "strict_sequence": bool(row["strict_sequence"]),
        "prices_include_tax": bool(row["prices_include_tax"]),
    }


def _errors(page: httpx.Response) -> list[str]:
    return [html.unescape(message) for message in ERROR.findall(page.text)]


def _checked(page: httpx.Response, name: str) -> bool:
    found = re.search(rf'<input type="checkbox" id="{name}"[^>]*>', page.text)
    assert found, name
    return " checked" in found.group(0)


async def test_an_owner_changes_each_order_rule(shop: Shop):
    page = await shop.client.get(PAGE)
    assert page.status_code == 200
    assert 'id="tax_rate" name="tax_rate" value="20.00"' in page.text
    assert 'value="Europe/London"' in page.text
    assert '<option value="America/New_York">' in page.text  # the time zones offered
    assert "Orders cannot leave Artwork until the customer or staff approved a proof" in page.text
    assert "A new rate applies to orders created or edited from now on" in page.text
    assert not _checked(page, "require_artwork_approval") and not _checked(page, "strict_sequence")
    assert not _checked(page, "prices_include_tax")

    saved = await post_form(
        shop.client, PAGE, RULES,
        {"tax_rate": "17.5", "timezone": "America/New_York",
         "require_artwork_approval": "on", "strict_sequence": "on", "prices_include_tax": "on"},
    )  # fmt: skip
    assert saved.status_code == 303, saved.text
    assert saved.headers["location"] == "/admin/settings"
    assert await _stored(shop.ws) == {
        "tax_rate": Decimal("17.50"),
        "timezone": "America/New_York",
        "require_artwork_approval": True,
        "strict_sequence": True,
        "prices_include_tax": True,
    }
    shown = await shop.client.get(saved.headers["location"])
    assert "The settings were saved." in shown.text
    assert 'value="17.50"' in shown.text and 'value="America/New_York"' in shown.text
    assert _checked(shown, "require_artwork_approval") and _checked(shown, "strict_sequence")
    assert _checked(shown, "prices_include_tax")

    # Unticked boxes are not sent by a browser: the rules go off; "8 %" reads as 8.
    saved = await post_form(
        shop.client, PAGE, RULES, {"tax_rate": " 8 %", "timezone": "Europe/Paris"}
    )
    assert saved.status_code == 303, saved.text
    assert await _stored(shop.ws) == {
        "tax_rate": Decimal("8.00"),
        "timezone": "Europe/Paris",
        "require_artwork_approval": False,
        "strict_sequence": False,
        "prices_include_tax": False,
    }
    # The email settings are a form of their own and were left as they were.
    email = await Workspace.select(Workspace.mail_stages).where(Workspace.id == shop.ws.id)
    assert email[0]["mail_stages"] == "in_production,dispatched"


@pytest.mark.parametrize(
    ("tax_rate", "timezone", "expected"),
    [
        ("abc", "Europe/London", ["Tax rate must be a number."]),
        ("-1", "Europe/London", ["Tax rate must be between 0 and 100."]),
        ("101", "Europe/London", ["Tax rate must be between 0 and 100."]),
        ("", "Europe/London", ["Tax rate must be a number."]),
        ("12.345", "Europe/London", ["Tax rate must have at most 2 decimal places."]),
        ("20", "Mars/Olympus", ["Unknown time zone 'Mars/Olympus'"]),
        ("20", "", ["Unknown time zone ''"]),
        ("1e2", "../etc/passwd", ["Tax rate must be a number.", "Unknown time zone"]),
    ],
)
async def test_bad_values_are_refused_with_their_label(
    shop: Shop, tax_rate: str, timezone: str, expected: list[str]
):
    before = await _stored(shop.ws)
    refused = await post_form(
        shop.client, PAGE, RULES,
        {"tax_rate": tax_rate, "timezone": timezone, "require_artwork_approval": "on"},
    )  # fmt: skip
    assert refused.status_code == 422
    errors = _errors(refused)
    assert len(errors) == len(expected), errors
    for message, start in zip(errors, expected, strict=True):
        assert message.startswith(start), errors
    # What was typed comes back, to correct; nothing was saved.
    assert f'name="tax_rate" value="{html.escape(tax_rate.strip())}"' in refused.text
    assert 'aria-invalid="true"' in refused.text.replace("aria-invalid=true", 'aria-invalid="true"')
    assert _checked(refused, "require_artwork_approval")
    assert await _stored(shop.ws) == before


async def test_staff_read_the_order_rules_but_cannot_change_them(browser: httpx.AsyncClient):
    ws = await factories.workspace(strict_sequence=True)
    clerk = await member(ws, role="staff")
    assert (await log_in(browser, clerk.email)).status_code == 303
    page = await browser.get(PAGE)
    assert page.status_code == 200
    assert re.search(r'id="tax_rate"[^>]*disabled', page.text)
    assert re.search(r'id="strict_sequence"[^>]*checked[^>]*disabled', page.text)
    assert 'action="/admin/settings/orders"' in page.text
    assert page.text.count("Only an owner can change these settings.") == 2
    rules_form = page.text.split('action="/admin/settings/orders"')[1].split("</form>")[0]
    assert "<button" not in rules_form
    before = await _stored(ws)
    refused = await post_form(browser, PAGE, RULES, {"tax_rate": "5", "timezone": "UTC"})
    assert refused.status_code == 403
    assert await _stored(ws) == before


async def test_saved_rules_are_the_ones_orders_follow(shop: Shop, client: httpx.AsyncClient):
    customer = await factories.customer(shop.ws)
    auth = await factories.headers(shop.owner)
    before = await create(client, auth, order_body(customer.id))  # 10 x 12.50 at 20 %
    assert before.status_code == 201, before.text
    assert before.json()["totals"]["tax_cents"] == 2500

    saved = await post_form(
        shop.client, PAGE, RULES,
        {"tax_rate": "5", "timezone": "Europe/London", "strict_sequence": "on"},
    )  # fmt: skip
    assert saved.status_code == 303, saved.text

    after = await create(client, auth, order_body(customer.id))
    assert after.status_code == 201, after.text
    assert after.json()["totals"]["tax_cents"] == 625  # 5 % of 125.00
    # An order placed before keeps the tax it was given.
    again = await client.get(f"/api/v1/orders/{before.json()['id']}", headers=auth)
    assert again.json()["totals"]["tax_cents"] == 2500

    # Stages in sequence: a skip is refused, the next stage is not.
    skipped = await advance(client, auth, after.json()["id"], "in_production")
    assert skipped.status_code == 422, skipped.text
    assert "cannot skip from artwork to in_production" in skipped.text
    with pytest.raises(RuleRefused, match="the next stage is print_queue"):
        await advance_order(
            actor=OPERATOR, workspace_id=shop.ws.id, order_id=after.json()["id"],
            to_stage="qc_pack",
        )  # fmt: skip
    moved = await advance(client, auth, after.json()["id"], "print_queue")
    assert moved.status_code == 200, moved.text

    # Approval required: an order without an approved proof stays in artwork.
    saved = await post_form(
        shop.client, PAGE, RULES,
        {"tax_rate": "5", "timezone": "Europe/London", "require_artwork_approval": "on"},
    )  # fmt: skip
    assert saved.status_code == 303, saved.text
    refused = await advance(client, auth, before.json()["id"], "print_queue")
    assert refused.status_code == 422, refused.text
    assert "before its artwork is approved" in refused.text
