"""The API's order detail shows the proofs and who approved (additive)."""

from __future__ import annotations

from tests import factories
from tests.proofs.files import PDF, png
from tests.proofs.support import form_token, last_link, shop, upload


async def test_the_order_detail_lists_proofs_and_the_approver(staff, customer, client):
    s = await shop(staff)
    auth = {"Authorization": f"Bearer {await factories.token(s.owner)}"}
    before = (await client.get(f"/api/v1/orders/{s.order.id}", headers=auth)).json()
    assert before["artwork"] == {
        "status": "awaiting_proof",
        "version": 0,
        "approved_at": None,
        "approved_by": None,
        "approval_source": None,
        "approval_note": None,
        "proofs": [],
    }
    await upload(s, png(), "v1.png")
    first = await last_link()
    page = await customer.get(first)
    await customer.post(f"{first}/changes", data={"_csrf": form_token(page), "comment": "Bigger"})
    await upload(s, PDF, "v2.pdf")
    second = await last_link()
    page = await customer.get(second)
    await customer.post(f"{second}/approve", data={"_csrf": form_token(page), "name": "Dana"})

    detail = (await client.get(f"/api/v1/orders/{s.order.id}", headers=auth)).json()
    artwork = detail["artwork"]
    assert (artwork["status"], artwork["version"], artwork["approved_by"]) == (
        "approved",
        2,
        "Dana",
    )
    assert (artwork["approval_source"], artwork["approval_note"]) == ("customer", None)
    assert artwork["approved_at"].endswith("+00:00")
    assert [
        (p["version"], p["file_name"], p["content_type"], p["customer_comment"])
        for p in artwork["proofs"]
    ] == [(1, "v1.png", "image/png", "Bigger"), (2, "v2.pdf", "application/pdf", None)]
    assert artwork["proofs"][1]["size"] == len(PDF)
    assert artwork["proofs"][0]["created_at"].endswith("+00:00")

    schema = (await client.get("/schema/openapi.json")).json()
    fields = schema["components"]["schemas"]["Artwork"]["properties"]
    assert {"approved_by", "approval_source", "approval_note", "proofs"} <= set(fields)
