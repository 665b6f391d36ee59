"""Reading posted forms (api/admin/form_data.py): a form whose text is not UTF-8 is a 400 page
on every admin POST, the login form and the proof page — never a 500 (a multipart part without
a filename used to fail the server in the CSRF check) and never text silently replaced (bad
percent-escapes used to be kept as U+FFFD); values arrive whole, so a refusal tells the real
length."""

from __future__ import annotations

import re

import httpx
from litestar import Litestar
from litestar.routes import HTTPRoute

from models.tables import AdminSession, ArtworkProof, Customer, Order
from tests import factories
from tests.admin.conftest import Shop
from tests.admin.support import csrf_of
from tests.proofs.files import png
from tests.proofs.support import form_token, last_link, upload
from tests.proofs.support import shop as proof_shop

NOT_UTF8 = "its text is not UTF-8"
BOUNDARY = b"form-reading-test"
PARAM = re.compile(r"\{\w+(?::\w+)?\}")


def multipart(*parts: tuple[bytes, bytes]) -> tuple[bytes, dict[str, str]]:
    """A multipart body written by hand: (headers, bytes) per part."""
    body = b"".join(
        b"--" + BOUNDARY + b"\r\n" + headers + b"\r\n\r\n" + content + b"\r\n"
        for headers, content in parts
    )
    content_type = f"multipart/form-data; boundary={BOUNDARY.decode()}"
    return body + b"--" + BOUNDARY + b"--\r\n", {"Content-Type": content_type}


def field(name: str, content: bytes, content_type: bytes = b"") -> tuple[bytes, bytes]:
    headers = f'Content-Disposition: form-data; name="{name}"'.encode()
    if content_type:
        headers += b"\r\nContent-Type: " + content_type
    return headers, content


def undecodable(token: str, csrf_field: str = "_csrf_token") -> list[tuple[bytes, dict[str, str]]]:
    """Bodies whose text is not UTF-8, each with a valid token field."""
    urlencoded = {"Content-Type": "application/x-www-form-urlencoded"}
    csrf = f"{csrf_field}={token}".encode()
    token_part = field(csrf_field, token.encode())
    unknown_charset = b"text/plain; charset=x-unknown"
    return [
        multipart(token_part, field("name", b"Acme \xff\xfe Tees")),
        multipart(token_part, field("name", b"Acme", unknown_charset)),
        (b"name=Acme%FF%FETees&" + csrf, urlencoded),
        (b"name=Acme\xff\xfeTees&" + csrf, urlencoded),
    ]


def admin_posts(app: Litestar) -> list[str]:
    """Every POST path of the admin (from the app's route table), its parameters filled in."""
    return sorted(
        PARAM.sub("1", route.path)
        for route in app.routes
        if isinstance(route, HTTPRoute)
        and route.path.startswith("/admin")
        and "POST" in route.route_handler_map
    )


async def test_a_form_not_in_utf8_is_a_400_page_on_every_admin_post(app: Litestar, shop: Shop):
    token = csrf_of(await shop.client.get("/admin/customers/new"))
    paths = admin_posts(app)
    assert "/admin/customers" in paths and "/admin/orders/1/stage" in paths
    for path in paths:
        for content, headers in undecodable(token):
            answer = await shop.client.post(path, content=content, headers=headers)
            assert answer.status_code == 400, (path, headers, answer.text[-500:])
            assert NOT_UTF8 in answer.text, path
        # the token in a header (htmx) instead: the form is read, and refused, all the same
        content, headers = undecodable(token)[0]
        answer = await shop.client.post(
            path, content=content, headers={**headers, "X-CSRFToken": token}
        )
        assert answer.status_code == 400, path
    assert await Customer.count() == 0 and await Order.count() == 0


async def test_the_same_form_in_utf8_is_kept_as_typed(shop: Shop):
    token = csrf_of(await shop.client.get("/admin/customers/new"))
    content, headers = multipart(
        field("_csrf_token", token.encode()), field("name", "Acme Tées ✓".encode()),
        field("payment_terms", b"net_30"),
    )  # fmt: skip
    answer = await shop.client.post("/admin/customers/", content=content, headers=headers)
    assert answer.status_code == 303, answer.text
    encoded = await shop.client.post(
        "/admin/customers/",
        content=f"name=Bold%20Th%C3%A9+Threads&payment_terms=net_30&_csrf_token={token}".encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert encoded.status_code == 303, encoded.text
    names = await Customer.select(Customer.name).order_by(Customer.id).output(as_list=True)
    assert names == ["Acme Tées ✓", "Bold Thé Threads"]


async def test_the_login_form_not_in_utf8_is_a_400_page(browser: httpx.AsyncClient):
    ws = await factories.workspace()
    await factories.user(ws, email="sam@inkwell.example")
    token = csrf_of(await browser.get("/admin/login"))
    for content, headers in undecodable(token):
        answer = await browser.post("/admin/login", content=content, headers=headers)
        assert answer.status_code == 400, answer.text[-500:]
        assert NOT_UTF8 in answer.text
    assert await AdminSession.count() == 0


async def test_the_proof_page_not_in_utf8_is_a_400(client: httpx.AsyncClient):
    for action in ("approve", "changes"):
        for content, headers in undecodable("0" * 64, "_csrf"):
            answer = await client.post(
                f"/proofs/no-such-link/{action}", content=content, headers=headers
            )
            assert answer.status_code == 400, (action, answer.text[-500:])
            assert answer.headers["content-type"].startswith("text/html")  # the customer's page
            assert NOT_UTF8 in answer.text and "Open the proof again" in answer.text


async def test_too_many_fields_are_a_400(shop: Shop):
    token = csrf_of(await shop.client.get("/admin/customers/new"))
    content = b"a=1&" * 10_500 + f"name=Acme&_csrf_token={token}".encode()
    answer = await shop.client.post(
        "/admin/customers/",
        content=content,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status_code == 400
    assert "more than 10000 fields" in answer.text
    assert await Customer.count() == 0


async def test_a_long_comment_is_refused_with_its_real_length(
    browser: httpx.AsyncClient, client: httpx.AsyncClient
):
    s = await proof_shop(browser)
    await upload(s, png())
    link = await last_link()
    page = await client.get(link)
    answer = await client.post(
        f"{link}/changes",
        data={"_csrf": form_token(page), "name": "Dana", "comment": "x" * 200_000},
    )
    assert answer.status_code == 422
    assert "(this is 200,000)" in answer.text
    proof = await ArtworkProof.select(ArtworkProof.customer_comment).first()
    assert proof == {"customer_comment": None}
