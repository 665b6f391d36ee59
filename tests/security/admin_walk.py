"""The admin's own route table, and one record of every kind a path can name, so the walks
below cover a new admin path automatically (and fail until its parameter is known here)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from litestar import Litestar
from litestar.routes import HTTPRoute

from models import clock, link_tokens, proofs
from models.tables import (
    Address,
    ApiToken,
    ArtworkProof,
    CustomerMessage,
    InvoiceLink,
    InvoiceSettings,
    Payment,
    StockMovement,
    Workspace,
)
from tests import factories
from tests.admin.support import delivery, member, subscription
from tests.proofs.files import png

PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")
NOT_RECORDS = {"rest", "file_path"}  # the 404 catch-all and the static files
# A body that never ends (an open event stream): tests/admin/test_stream.py reads it.
STREAMS = {"/admin/stream"}


def admin_routes(app: Litestar, *, with_params: bool) -> list[tuple[str, str]]:
    """(method, path template) of every GET and POST under /admin."""
    found = []
    for route in app.routes:
        if not isinstance(route, HTTPRoute) or not route.path.startswith("/admin"):
            continue
        if route.path in STREAMS:
            continue
        names = set(PARAM.findall(route.path))
        if names & NOT_RECORDS or bool(names) != with_params:
            continue
        template = PARAM.sub(r"{\1}", route.path)
        found += [(m, template) for m in sorted(route.methods) if m in {"GET", "POST"}]
    return found


def fill(template: str, ids: dict[str, Any]) -> str:
    names = PARAM.findall(template)
    unknown = [name for name in names if name not in ids]
    assert not unknown, f"no record for {unknown} in {template}: add it to records()"
    return PARAM.sub(lambda m: str(ids[m.group(1)]), template)


def marked(n: int) -> str:
    """A value that breaks out of an attribute and opens a tag, unless escaped."""
    return f'"><i{n}>'


def raw_tag(n: int) -> str:
    return f"<i{n}>"


def escaped_tag(n: int) -> str:
    return f"&lt;i{n}&gt;"


# Fields the admin shows, each with its own mark (see records()).
FIELDS = {
    "staff name": 11,
    "token name": 12,
    "delivery response body": 13,
    "delivery error": 14,
    "customer name": 15,
    "contact name": 16,
    "contact phone": 17,
    "sku style": 18,
    "sku brand": 19,
    "sku colour": 20,
    "order external_ref": 21,
    "order line description": 22,
    "stock reason": 23,
    "proof note": 24,
    "proof file name": 25,
    "proof comment": 26,
    "proof answered by": 27,
    "customer message subject": 28,
    "invoice legal name": 29,
    "invoice address": 30,
    "invoice tax number": 31,
    "invoice tax label": 32,
    "invoice bank details": 33,
    "invoice footer": 34,
}


async def records(ws: Workspace, *, marks: bool = False) -> dict[str, Any]:
    """One record of each kind in `ws`, by the path parameter that names it. With `marks`,
    every shown text field holds its mark from FIELDS."""

    def text(field: str, plain: str) -> str:
        return marked(FIELDS[field]) if marks else plain

    staff = await member(ws, role="staff", name=text("staff name", "Sam Staff"))
    await factories.token(staff, name=text("token name", "CI"))
    token_id = (await ApiToken.select(ApiToken.id).where(ApiToken.user == staff.id))[0]["id"]
    sub = await subscription(ws)
    delivery_id = await delivery(ws, sub, response_body=text("delivery response body", "nope"))
    await delivery(ws, sub, status_code=None, error=text("delivery error", "refused"))
    customer = await factories.customer(ws, text("customer name", "Acme Tees"))
    contact = await factories.contact(
        customer, name=text("contact name", "Ann"), phone=text("contact phone", "+44 1")
    )
    sku = await factories.sku(
        ws, style=text("sku style", "Tee"), brand=text("sku brand", "Gildan"),
        colour=text("sku colour", "Black"),
    )  # fmt: skip
    order = await factories.order(
        ws, customer, lines=[(text("order line description", "Front print"), 2, 500)],
        line_skus=[sku.id], external_ref=text("order external_ref", "PO-1"),
    )  # fmt: skip
    invoice = await factories.invoice(order)
    address = Address(
        workspace=ws.id, customer=customer.id, label="Warehouse",
        line1="Unit 4", city="Leeds", country="GB", is_default=True, created_at=clock.now(),
    )  # fmt: skip
    await address.save()
    await StockMovement(
        workspace=ws.id, sku=sku.id, kind="adjustment", delta_on_hand=5,
        reason=text("stock reason", "Recount"), actor_kind="user", user=staff.id,
    ).save()  # fmt: skip
    proof = proofs.check_file("proof.png", png(8, 8), note=text("proof note", "Front"))
    proof_token = await proofs.store(
        workspace_id=ws.id, order_id=order.id, version=1, file=proof, user_id=staff.id,
        now=clock.now(),
    )  # fmt: skip
    await ArtworkProof.update(
        {
            ArtworkProof.file_name: text("proof file name", "proof.png"),
            ArtworkProof.answer: "changes_requested",
            ArtworkProof.answered_at: clock.now(),
            ArtworkProof.answered_name: text("proof answered by", "Dana"),
            ArtworkProof.answered_from: "192.0.2.1",
            ArtworkProof.customer_comment: text("proof comment", "Bigger logo"),
        }
    ).where(ArtworkProof.order == order.id)
    message = CustomerMessage(
        workspace=ws.id, order=order.id, customer=customer.id, contact=contact.id,
        kind="order.stage_changed", subject=text("customer message subject", "Your order"),
        body="Hello", status="failed", recipient="ann@example.com",
    )  # fmt: skip
    await message.save()
    await InvoiceSettings(
        workspace=ws.id, legal_name=text("invoice legal name", "Inkwell Ltd"),
        address_line1=text("invoice address", "1 Mill Lane"),
        tax_number=text("invoice tax number", "GB1"), tax_label=text("invoice tax label", "VAT"),
        bank_details=text("invoice bank details", "Sort code 1"),
        footer=text("invoice footer", "Thanks"), logo=png(8, 8), logo_type="image/png",
    ).save()  # fmt: skip
    payment = Payment(
        workspace=ws.id, invoice=invoice.id, amount_cents=100, method="bank_transfer",
        reference="BACS 1", paid_at=clock.now(),
    )  # fmt: skip
    await payment.save()
    invoice_token = link_tokens.new_token()  # the customer's page of the invoice
    await InvoiceLink(
        workspace=ws.id, invoice=invoice.id, token_digest=link_tokens.digest(invoice_token),
        expires_at=clock.now() + dt.timedelta(days=1),
    ).save()  # fmt: skip
    return {
        "token_id": token_id,
        "member_id": staff.id,
        "subscription_id": sub,
        "delivery_id": delivery_id,
        "action": "disable",  # the webhook confirmation pages' action, not a record
        "customer_id": customer.id,
        "contact_id": contact.id,
        "address_id": address.id,
        "code": sku.code,
        "sku_id": sku.id,
        "order_id": order.id,
        "ref": order.number,
        "number": invoice.number,
        "invoice_id": invoice.id,
        "payment_id": payment.id,
        "version": 1,
        "message_id": message.id,
        "proof_token": proof_token,
        "invoice_token": invoice_token,
    }
