"""Settings → Invoices: owners save what every invoice says of the shop (legal name, address,
tax number and label, bank details, footer, a logo told by its bytes) and the invoice page shows
it; refusals come back beside their fields with nothing saved; staff read only; the logo is
served to the workspace's own staff only."""

from __future__ import annotations

from typing import Any

import httpx

from models.tables import InvoiceSettings
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of, log_in, member
from tests.proofs.files import PDF, png

URL = "/admin/settings/invoices"
FILLED = {
    "legal_name": "Inkwell Prints Ltd",
    "address_line1": "Unit 4, Dyehouse Yard",
    "address_line2": "12 Mill Lane",
    "city": "Leeds",
    "postcode": "LS1 4AB",
    "country": "United Kingdom",
    "tax_number": "GB 123 4567 89",
    "tax_label": "VAT",
    "bank_details": "Northern Bank\r\nSort code 12-34-56\r\nAccount 12345678",
    "footer": "Inkwell Prints Ltd, registered in England no. 01234567.",
}


async def _save(
    client: httpx.AsyncClient, fields: dict[str, str], logo: bytes | None = None, **extra: str
) -> httpx.Response:
    opened = await client.get(URL)
    assert opened.status_code == 200
    files: dict[str, Any] = (
        {"logo": ("logo.png", logo, "image/png")}
        if logo is not None
        else {
            "logo": ("", b"", "application/octet-stream")  # a file input left empty
        }
    )
    data = {**fields, **extra, "_csrf_token": csrf_of(opened)}
    return await client.post(URL, data=data, files=files)


async def _invoice(shop: Shop, **order_fields: Any) -> str:
    customer = await factories.customer(shop.ws, "Acme Tees")
    await factories.contact(
        customer, is_primary=True, name="Ada Lovelace", email="ada@acme.example"
    )
    order = await factories.order(shop.ws, customer, stage="dispatched", **order_fields)
    return (await factories.invoice(order)).number


async def test_saved_settings_are_shown_on_the_invoice(shop: Shop) -> None:
    logo = png(120, 40)
    number = await _invoice(shop)

    saved = await _save(shop.client, FILLED, logo)

    assert saved.status_code == 303 and saved.headers["location"] == URL
    [row] = await InvoiceSettings.select().where(InvoiceSettings.workspace == shop.ws.id)
    assert row["legal_name"] == "Inkwell Prints Ltd" and row["tax_label"] == "VAT"
    assert row["bank_details"] == "Northern Bank\nSort code 12-34-56\nAccount 12345678"
    assert bytes(row["logo"]) == logo and row["logo_type"] == "image/png"
    form = await shop.client.get(URL)
    assert "The invoice settings were saved" in form.text
    assert 'value="GB 123 4567 89"' in form.text and 'id="current-logo"' in form.text

    page = (await shop.client.get(f"/admin/invoices/{number}")).text

    shop_part = page.split('id="inv-shop"')[1].split("</div>")[0]
    assert "Inkwell Prints Ltd" in shop_part and shop.ws.name not in shop_part
    assert "Unit 4, Dyehouse Yard<br>12 Mill Lane<br>Leeds LS1 4AB<br>United Kingdom" in shop_part
    assert "VAT number: GB 123 4567 89" in shop_part
    assert 'src="/admin/settings/invoices/logo"' in shop_part
    assert '<th scope="row" colspan="3" id="inv-tax-words">VAT 20 %</th>' in page
    bank = page.split('id="inv-bank"')[1].split("</section>")[0]
    assert "Northern Bank\nSort code 12-34-56\nAccount 12345678" in bank
    assert "registered in England no. 01234567." in page.split('id="inv-footer"')[1]
    served = await shop.client.get(f"{URL}/logo")
    assert served.status_code == 200 and served.content == logo
    assert served.headers["content-type"] == "image/png"
    assert served.headers["x-content-type-options"] == "nosniff"


async def test_before_any_save_an_invoice_names_the_workspace_and_its_tax_as_tax(
    shop: Shop,
) -> None:
    number = await _invoice(shop)

    page = (await shop.client.get(f"/admin/invoices/{number}")).text

    assert shop.ws.name in page.split('id="inv-shop"')[1].split("</div>")[0]
    assert 'id="inv-tax-words">Tax 20 %</th>' in page
    assert 'id="inv-logo"' not in page and 'id="inv-bank"' not in page
    assert (await shop.client.get(f"{URL}/logo")).status_code == 404
    assert 'id="invoices-link"' in (await shop.client.get("/admin/settings")).text


async def test_a_blank_tax_label_is_tax_and_saving_without_a_file_keeps_the_logo(
    shop: Shop,
) -> None:
    logo = png(60, 20)
    await _save(shop.client, FILLED, logo)

    again = await _save(shop.client, {**FILLED, "tax_label": "  ", "legal_name": "Inkwell"})

    assert again.status_code == 303
    [row] = await InvoiceSettings.select(
        InvoiceSettings.tax_label, InvoiceSettings.legal_name, InvoiceSettings.logo
    )
    assert row["tax_label"] == "Tax" and row["legal_name"] == "Inkwell"
    assert bytes(row["logo"]) == logo

    removed = await _save(shop.client, FILLED, remove_logo="on")

    assert removed.status_code == 303
    [row] = await InvoiceSettings.select(InvoiceSettings.logo, InvoiceSettings.logo_type)
    assert row == {"logo": None, "logo_type": None}
    assert (await shop.client.get(f"{URL}/logo")).status_code == 404


async def test_a_jpeg_is_told_by_its_bytes_whatever_its_name(shop: Shop) -> None:
    jpeg = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 100

    saved = await _save(shop.client, FILLED, jpeg)

    assert saved.status_code == 303
    served = await shop.client.get(f"{URL}/logo")
    assert served.headers["content-type"] == "image/jpeg" and served.content == jpeg


async def test_refusals_are_shown_beside_their_fields_and_nothing_is_saved(shop: Shop) -> None:
    typed = {
        **FILLED,
        "legal_name": "L" * 201,
        "city": "Leeds\x07",
        "tax_label": "Value added tax, the one we pay",
        "bank_details": "\n".join(f"line {n}" for n in range(7)),
        "footer": "f" * 601,
    }

    refused = await _save(shop.client, typed, b"just text, named logo.png")

    assert refused.status_code == 422
    page = refused.text
    for field, words in {
        "legal_name": "The legal name must be at most 200 characters.",
        "city": "The town or city must be one line of text, without control characters.",
        "tax_label": "The tax label must be at most 20 characters.",
        "bank_details": "The bank details must be at most 6 lines.",
        "footer": "The footer must be at most 600 characters.",
        "logo": "The logo must be a PNG or JPEG image: this file is neither",
    }.items():
        assert f'<p class="error" id="{field}-error">{words}' in page, field
        assert f'id="{field}"' in page.split(f'id="{field}-error"')[0].rsplit("<label", 1)[1]
    assert 'aria-invalid="true"' in page.split('id="legal_name"')[1].split(">")[0]
    assert 'value="Inkwell Prints Ltd"' not in page  # the typed value comes back, not a stored one
    assert "L" * 201 in page and "line 6" in page
    assert "The settings were not saved" in page
    assert await InvoiceSettings.count() == 0


async def test_a_logo_too_large_or_a_pdf_or_a_new_one_removed_at_once_is_refused(
    shop: Shop,
) -> None:
    big = png(800, 800) + b"\x00" * (600 * 1024)

    for logo, extra, words in [
        (big, {}, "The logo is 6"),
        (PDF, {}, "The logo must be a PNG or JPEG image"),
        (b"", {}, "The logo file is empty"),
        (png(), {"remove_logo": "on"}, "Choose a new logo or remove the logo, not both."),
    ]:
        refused = await _save(shop.client, FILLED, logo, **extra)

        assert refused.status_code == 422, words
        assert f'<p class="error" id="logo-error">{words}' in refused.text, words
    assert await InvoiceSettings.count() == 0


async def test_a_body_past_the_upload_limit_gets_the_413_page(shop: Shop) -> None:
    refused = await _save(shop.client, FILLED, b"\x89PNG\r\n\x1a\n" + b"\x00" * 3 * 1024 * 1024)

    assert refused.status_code == 413
    assert await InvoiceSettings.count() == 0


async def test_staff_read_the_settings_and_cannot_save_them(browser: httpx.AsyncClient) -> None:
    ws = await factories.workspace()
    owner = await member(ws, role="owner")
    staff = await member(ws, role="staff")
    await log_in(browser, owner.email)
    await _save(browser, FILLED, png(40, 20))
    await browser.post("/admin/logout", data={"_csrf_token": csrf_of(await browser.get(URL))})
    await log_in(browser, staff.email)

    form = await browser.get(URL)
    refused = await browser.post(
        URL, data={**FILLED, "legal_name": "Staff Ltd", "_csrf_token": csrf_of(form)}
    )

    assert form.status_code == 200 and 'id="owners-only"' in form.text
    assert 'id="legal_name" name="legal_name" value="Inkwell Prints Ltd"' in form.text
    assert "disabled" in form.text.split('id="legal_name"')[1].split(">")[0]
    assert '<button type="submit">Save</button>' not in form.text
    assert refused.status_code == 403
    [row] = await InvoiceSettings.select(InvoiceSettings.legal_name)
    assert row["legal_name"] == "Inkwell Prints Ltd"
    assert (await browser.get(f"{URL}/logo")).status_code == 200


async def test_another_workspace_sees_its_own_settings_and_no_logo(shop: Shop) -> None:
    await _save(shop.client, FILLED, png(40, 20))
    other = await factories.workspace(name="Other Shop")
    other_owner = await member(other, role="owner")
    transport = shop.client._transport
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as theirs:
        await log_in(theirs, other_owner.email)

        form = await theirs.get(URL)
        logo = await theirs.get(f"{URL}/logo")

    assert 'value="Inkwell Prints Ltd"' not in form.text and 'id="no-logo"' in form.text
    assert logo.status_code == 404


async def test_a_file_sent_as_a_text_field_counts_as_not_sent(shop: Shop) -> None:
    opened = await shop.client.get(URL)

    saved = await shop.client.post(
        URL,
        data={**FILLED, "_csrf_token": csrf_of(opened)},
        files={"legal_name": ("name.txt", b"Not a name", "text/plain")},
    )

    assert saved.status_code == 303
    [row] = await InvoiceSettings.select(InvoiceSettings.legal_name)
    assert row["legal_name"] == "Inkwell Prints Ltd"
