"""Uploaded file names: control characters, slashes and quotes become `_`, the
name ends in the extension of what the file is, at most 200 characters; the file is served
with a Content-Disposition built from that name (RFC 6266, `filename*` for non-ASCII), even
for names stored before that rule, and never cached."""

from __future__ import annotations

import httpx
import pytest

from models import db
from models.tables import ArtworkProof, CustomerMessage
from tests.admin.support import log_in
from tests.proofs.files import PDF, png
from tests.proofs.support import Shop, last_link, shop, upload, upload_raw
from tests.security.processes import web_process

# What the browser sends (bytes inside filename="…") → the name stored and served.
NAMES = [
    (b"front%0D%0ASet-Cookie: a=b.png", "front__Set-Cookie: a=b.png"),  # CR LF, as browsers
    (b"nul\x00byte.png", "nul_byte.png"),
    (b"tab\there and del\x7f.png", "tab_here and del_.png"),
    (b"say %22hi%22 it's.png", "say _hi_ it_s.png"),
    (b"dir/sub\\name.png", "dir_sub_name.png"),
    (b"invoice\xe2\x80\xaegnp.exe", "invoice_gnp.exe.png"),  # a right-to-left override
    (b"   ", "proof.png"),
    (b"front", "front.png"),
    (b"FRONT.PNG", "FRONT.PNG"),
    (b"a" * 300 + b".png", "a" * 196 + ".png"),
]
GERMAN = "Entwurf für Müller \N{EN DASH} Größe.png"
GERMAN_DISPOSITION = (
    'inline; filename="Entwurf fur Muller _ Gro_e.png"; '
    "filename*=UTF-8''Entwurf%20f%C3%BCr%20M%C3%BCller%20%E2%80%93%20Gr%C3%B6%C3%9Fe.png"
)


def disposition(name: str) -> str:
    return f'inline; filename="{name}"'


async def _served(s: Shop, version: int, link: str | None = None) -> list[httpx.Response]:
    """The proof's file as staff and (with `link`) as the customer get it."""
    paths = [f"/admin/orders/{s.order.number}/proofs/{version}/file"]
    if link is not None:
        paths.append(f"{link}/file")
    return [await s.client.get(path) for path in paths]


async def test_file_names_are_made_safe_when_stored_and_served_with_them(staff):
    s = await shop(staff)
    image = png()
    for version, (sent, stored) in enumerate(NAMES, start=1):
        done = await upload_raw(s, image, sent)
        assert done.status_code == 303, (sent, done.text)
        row = await (
            ArtworkProof.select(ArtworkProof.file_name, ArtworkProof.content_type)
            .where(ArtworkProof.version == version)
            .first()
        )
        assert row == {"file_name": stored, "content_type": "image/png"}, sent
        for served in await _served(s, version, await last_link()):
            assert served.status_code == 200 and served.content == image, sent
            assert served.headers["content-type"] == "image/png"
            assert served.headers["content-disposition"] == disposition(stored), sent
            assert served.headers["cache-control"] == "no-store", served.url
    assert await ArtworkProof.count() == len(NAMES)


async def test_a_non_ascii_name_is_kept_and_served_with_an_ascii_fallback(staff):
    s = await shop(staff)
    done = await upload(s, png(), GERMAN)
    assert done.status_code == 303
    assert await ArtworkProof.select(ArtworkProof.file_name).output(as_list=True) == [GERMAN]
    page = await staff.get(f"/admin/orders/{s.order.number}/artwork")
    assert GERMAN in page.text
    for served in await _served(s, 1, await last_link()):
        assert served.status_code == 200
        assert served.headers["content-disposition"] == GERMAN_DISPOSITION


async def test_a_name_that_says_another_type_gets_the_files_own_extension(staff):
    s = await shop(staff)
    assert (await upload(s, PDF, "x.html")).status_code == 303
    assert (await upload(s, png(), "logo.jpg")).status_code == 303
    assert (await upload(s, PDF, "artwork.PDF")).status_code == 303
    rows = await ArtworkProof.select(
        ArtworkProof.version, ArtworkProof.file_name, ArtworkProof.content_type
    ).order_by(ArtworkProof.version)
    assert [(r["file_name"], r["content_type"]) for r in rows] == [
        ("x.html.pdf", "application/pdf"),
        ("logo.jpg.png", "image/png"),
        ("artwork.PDF", "application/pdf"),
    ]
    [served] = await _served(s, 1)
    assert served.headers["content-type"] == "application/pdf"
    assert served.headers["content-disposition"] == disposition("x.html.pdf")


def _unsafe_stored_name() -> tuple[str, str]:
    """A name as rows stored before the rule may hold it (PostgreSQL text holds no NUL), and
    the name it is served under."""
    if db.is_postgres():
        return "old\r\nname.png", "old__name.png"
    return "old\r\nname\x00.png", "old__name_.png"


async def test_names_stored_before_the_rule_are_served_safely(staff, customer):
    s = await shop(staff)
    image = png()
    await upload(s, image)
    link = await last_link()
    unsafe, served_as = _unsafe_stored_name()
    await ArtworkProof.update({ArtworkProof.file_name: unsafe}).where(
        ArtworkProof.order == s.order.id
    )
    admin = await staff.get(f"/admin/orders/{s.order.number}/proofs/1/file")
    page = await customer.get(f"{link}/file")
    for served in (admin, page):
        assert served.status_code == 200 and served.content == image
        assert served.headers["content-disposition"] == disposition(served_as)
        assert served.headers["cache-control"] == "no-store"
    # The pages name the file as it is served.
    for shown in (
        await staff.get(f"/admin/orders/{s.order.number}/artwork"),
        await customer.get(link),
    ):
        assert f">{served_as}</a>" in shown.text and "old\r\nname" not in shown.text


@pytest.mark.slow
async def test_names_stored_before_the_rule_are_served_by_a_real_server(
    backend: str, staff: httpx.AsyncClient, tmp_path
):
    """uvicorn drops the connection over a header value with a control character (the
    in-process transport does not), so the old rows are asked for through a real server."""
    s = await shop(staff)
    image = png()
    await upload(s, image)
    link = await last_link()
    unsafe, served_as = _unsafe_stored_name()
    await ArtworkProof.update({ArtworkProof.file_name: unsafe}).where(
        ArtworkProof.order == s.order.id
    )
    with web_process(backend, tmp_path / "web.log") as web:
        async with httpx.AsyncClient(base_url=web.base, timeout=30) as browser:
            assert (await log_in(browser, s.owner.email)).status_code == 303
            for path in (f"/admin/orders/{s.order.number}/proofs/1/file", f"{link}/file"):
                served = await browser.get(path)
                assert served.status_code == 200 and served.content == image, path
                assert served.headers["content-disposition"] == disposition(served_as), path
                assert served.headers["cache-control"] == "no-store", path
    assert await CustomerMessage.count() == 1
