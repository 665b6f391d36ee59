"""Staff upload proofs on the order's page: checked by content, stored, emailed as a link."""

from __future__ import annotations

import hashlib

import httpx

from models.tables import Artwork, ArtworkProof, Contact, CustomerMessage, Order
from tests.admin.support import csrf_of
from tests.proofs.files import PDF, png
from tests.proofs.support import last_link, shop, upload


async def _artwork(order: Order) -> tuple[str, int]:
    row = (
        await Artwork.select(Artwork.status, Artwork.version)
        .where(Artwork.order == order.id)
        .first()
    )
    return row["status"], row["version"]


async def test_a_png_proof_is_stored_versioned_and_emailed(staff: httpx.AsyncClient):
    s = await shop(staff, external_ref="SHOP-77")
    image = png()
    done = await upload(s, image, "front.png", note="Colours as agreed on the phone")
    assert done.status_code == 303
    assert done.headers["location"] == f"/admin/orders/{s.order.number}/artwork"
    assert await _artwork(s.order) == ("awaiting_approval", 1)
    [proof] = await ArtworkProof.select().where(ArtworkProof.order == s.order.id)
    assert (proof["version"], proof["file_name"], proof["content_type"]) == (
        1,
        "front.png",
        "image/png",
    )
    assert proof["size"] == len(image)
    assert proof["sha256"] == hashlib.sha256(image).hexdigest()
    assert bytes(proof["data"]) == image
    assert proof["created_by"] == s.owner.id
    link = await last_link()
    token = link.rsplit("/", 1)[1]
    assert len(token) >= 22  # ≥ 128 bits
    assert proof["token_digest"] == hashlib.sha256(token.encode()).hexdigest()
    assert token not in str(await ArtworkProof.select(ArtworkProof.token_digest))

    [mail] = await CustomerMessage.select().where(CustomerMessage.kind == "artwork.proof")
    assert mail["status"] == "queued" and mail["recipient"] == s.contact.email
    assert s.order.number in mail["subject"] and "SHOP-77" in mail["subject"]
    assert "Colours as agreed on the phone" in mail["body"]

    page = await staff.get(done.headers["location"])
    assert "Proof version 1 uploaded" in page.text
    assert "front.png" in page.text and "awaiting the customer" in page.text
    assert "artwork.proof" not in page.text and mail["subject"] in page.text

    served = await staff.get(f"/admin/orders/{s.order.number}/proofs/1/file")
    assert served.status_code == 200 and served.content == image
    assert served.headers["content-type"] == "image/png"
    assert served.headers["x-content-type-options"] == "nosniff"
    assert served.headers["content-disposition"] == 'inline; filename="front.png"'
    for missing in ("2", "0", "-1", str(2**31), "9" * 30):  # past the column's range too
        path = f"/admin/orders/{s.order.number}/proofs/{missing}/file"
        assert (await staff.get(path)).status_code == 404, missing

    second = await upload(s, PDF, "v2.pdf")
    assert second.status_code == 303
    assert await _artwork(s.order) == ("awaiting_approval", 2)
    pdf = await staff.get(f"/admin/orders/{s.order.number}/proofs/2/file")
    assert pdf.headers["content-type"] == "application/pdf"


async def test_bad_files_get_a_clear_error_and_no_new_version(staff: httpx.AsyncClient):
    s = await shop(staff)
    cases = [
        (b"just some text, not an image\n", "sneaky.png", "not a PDF, PNG or JPEG"),
        (b"", "empty.png", "The file is empty"),
        (png() + b"\0" * (11 * 1024 * 1024), "huge.png", "at most 10 MiB"),
    ]
    for content, name, message in cases:
        refused = await upload(s, content, name)
        assert refused.status_code == 422, name
        assert message in refused.text, name
        assert "Upload a proof" in refused.text  # the order's artwork page, with its form
    # Far past the limit the body is not even read: the admin's 413 page, never a 500.
    huge = await upload(s, b"%PDF-" + b"\0" * (13 * 1024 * 1024), "huge.pdf")
    assert huge.status_code == 413
    assert await ArtworkProof.count() == 0
    assert await CustomerMessage.count() == 0
    assert await _artwork(s.order) == ("awaiting_proof", 0)


async def test_another_workspace_cannot_see_or_upload(staff: httpx.AsyncClient, customer):
    s = await shop(staff)
    await upload(s, png())
    other = await shop(customer)  # another shop's owner, on another browser
    for path in (
        f"/admin/orders/{s.order.number}/proofs/1/file",
        f"/admin/orders/{s.order.id}/artwork",
    ):
        assert (await customer.get(path)).status_code == 404, path
    page = await customer.get(f"/admin/orders/{other.order.number}/artwork")
    refused = await customer.post(
        f"/admin/orders/{s.order.number}/proofs",
        data={"_csrf_token": csrf_of(page)},
        files={"file": ("x.png", png(), "image/png")},
    )
    assert refused.status_code == 404
    assert await ArtworkProof.count() == 1


async def test_without_a_primary_contact_the_upload_says_nobody_was_emailed(staff):
    s = await shop(staff)
    await Contact.update({Contact.is_primary: False}).where(Contact.id == s.contact.id)
    done = await upload(s, png())
    shown = await staff.get(done.headers["location"])
    assert "no primary contact, so nobody was emailed" in shown.text
    [row] = await CustomerMessage.select(CustomerMessage.status)
    assert row["status"] == "no_contact"
