"""An order with a primary contact, an owner logged in on a cookie-keeping client, and the
customer's link read from the queued email, as the customer would follow it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx

from models.tables import Contact, Customer, CustomerMessage, Order, User, Workspace
from tests import factories
from tests.admin.support import csrf_of, log_in, member

LINK = re.compile(r"https?://[^/\s]+(/proofs/[A-Za-z0-9_-]+)")


@dataclass
class Shop:
    ws: Workspace
    owner: User
    customer: Customer
    contact: Contact
    order: Order
    client: httpx.AsyncClient


async def shop(client: httpx.AsyncClient, **order_fields: Any) -> Shop:
    ws = await factories.workspace(name="Inkwell Prints")
    owner = await member(ws, role="owner")
    customer = await factories.customer(ws, "Acme Tees")
    contact = await factories.contact(customer, is_primary=True, name="Dana Reyes")
    order = await factories.order(ws, customer, **order_fields)
    answer = await log_in(client, owner.email)
    assert answer.status_code == 303, answer.text
    return Shop(ws, owner, customer, contact, order, client)


async def upload(
    s: Shop, content: bytes, name: str = "proof.png", note: str = ""
) -> httpx.Response:
    page = await s.client.get(f"/admin/orders/{s.order.number}/artwork")
    assert page.status_code == 200, page.text
    return await s.client.post(
        f"/admin/orders/{s.order.number}/proofs",
        data={"_csrf_token": csrf_of(page), "note": note},
        files={"file": (name, content, "application/octet-stream")},
    )


async def last_link() -> str:
    """The path of the link in the newest proof email."""
    row = await (
        CustomerMessage.select(CustomerMessage.body)
        .where(CustomerMessage.kind == "artwork.proof")
        .order_by(CustomerMessage.id, ascending=False)
        .first()
    )
    assert row is not None, "no proof email was queued"
    found = LINK.search(row["body"])
    assert found, row["body"]
    return found.group(1)


async def upload_raw(s: Shop, content: bytes, name: bytes, note: bytes = b"") -> httpx.Response:
    """An upload whose multipart body is written by hand, so the file name's bytes reach the
    server exactly as given (NUL, quotes, CR LF as a browser's `%0D%0A`, bytes of any kind)."""
    page = await s.client.get(f"/admin/orders/{s.order.number}/artwork")
    assert page.status_code == 200, page.text
    boundary = b"pressline-test-boundary"

    def part(headers: bytes, body: bytes) -> bytes:
        return b"--" + boundary + b"\r\n" + headers + b"\r\n\r\n" + body + b"\r\n"

    body = (
        part(b'Content-Disposition: form-data; name="_csrf_token"', csrf_of(page).encode())
        + part(b'Content-Disposition: form-data; name="note"', note)
        + part(
            b'Content-Disposition: form-data; name="file"; filename="' + name + b'"\r\n'
            b"Content-Type: application/octet-stream",
            content,
        )
        + b"--"
        + boundary
        + b"--\r\n"
    )
    return await s.client.post(
        f"/admin/orders/{s.order.number}/proofs",
        content=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary.decode()}"},
    )


def form_token(page: httpx.Response) -> str:
    found = re.search(r'name="_csrf" value="([0-9a-f]+)"', page.text)
    assert found, page.text
    return found.group(1)
