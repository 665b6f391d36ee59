"""Text around a proof that the service does not keep: NUL (which PostgreSQL
text cannot hold) and other control characters in the staff's note and in the customer's
comment and name are refused with the field's error, on both databases, and nothing changes;
line breaks from browsers (CR LF) are kept as LF where lines are text."""

from __future__ import annotations

import httpx

from models.tables import Artwork, ArtworkProof, CustomerMessage, WebhookEvent
from tests.admin.support import csrf_of
from tests.proofs.files import png
from tests.proofs.support import Shop, form_token, last_link, shop, upload, upload_raw

NOTE_REFUSED = "The note must be text, without control characters other than tabs and line breaks."
COMMENT_REFUSED = "Please write your comment as plain text"
NAME_REFUSED = "Your name must be one line of text, without control characters."
CONTROLS = ["\x00", "\x07", "\x0b", "\x1b", "\x1f"]


async def _artwork(s: Shop) -> tuple[str, int]:
    row = await Artwork.select(Artwork.status, Artwork.version).where(Artwork.order == s.order.id)
    return row[0]["status"], row[0]["version"]


async def test_a_note_with_control_characters_is_refused_and_nothing_is_sent(staff):
    s = await shop(staff)
    for control in CONTROLS:
        refused = await upload(s, png(), note=f"Left chest{control}9 cm")
        assert refused.status_code == 422, repr(control)
        assert NOTE_REFUSED in refused.text, repr(control)
    # The refused form comes back with the note as typed, to be corrected.
    long = await upload(s, png(), note="Left chest " + "y" * 2_000)
    assert long.status_code == 422 and "at most 2,000 characters" in long.text
    assert ">Left chest " + "y" * 2_000 + "</textarea>" in long.text
    assert await ArtworkProof.count() == 0
    assert await CustomerMessage.count() == 0
    assert await _artwork(s) == ("awaiting_proof", 0)

    done = await upload(s, png(), note="Left chest,\r\n9 cm\twide ")
    assert done.status_code == 303
    assert await ArtworkProof.select(ArtworkProof.note).output(as_list=True) == [
        "Left chest,\n9 cm\twide"
    ]


async def _answer(client: httpx.AsyncClient, link: str, action: str, **fields: str):
    page = await client.get(link)
    return await client.post(f"{link}/{action}", data={"_csrf": form_token(page), **fields})


async def _unanswered(s: Shop) -> None:
    """The link's proof is still waiting: no answer kept, no artwork change, no event but the
    proof's own."""
    proof = await ArtworkProof.select(
        ArtworkProof.answer, ArtworkProof.answered_name, ArtworkProof.customer_comment
    ).first()
    assert proof == {"answer": None, "answered_name": None, "customer_comment": None}
    assert await _artwork(s) == ("awaiting_approval", 1)
    events = await WebhookEvent.select(WebhookEvent.name)
    assert [event["name"] for event in events] == ["artwork.proof_sent"]


async def test_the_customers_comment_and_name_with_control_characters_are_refused(staff, customer):
    s = await shop(staff)
    await upload(s, png())
    link = await last_link()
    for control in CONTROLS:
        comment = await _answer(customer, link, "changes", comment=f"Bigger{control}logo")
        assert comment.status_code == 422, repr(control)
        assert COMMENT_REFUSED in comment.text, repr(control)
        for action in ("approve", "changes"):
            named = await _answer(customer, link, action, comment="Bigger", name=f"Dana{control}")
            assert named.status_code == 422, (action, repr(control))
            assert NAME_REFUSED in named.text, (action, repr(control))
    # A name is one line: a line break in it is refused too, not folded in.
    broken = await _answer(customer, link, "approve", name="Dana\r\nReyes")
    assert broken.status_code == 422 and NAME_REFUSED in broken.text
    await _unanswered(s)

    done = await _answer(
        customer, link, "changes", comment="Bigger logo,\r\nand\tred ", name="Dana \t Reyes"
    )
    assert done.status_code == 303
    proof = await ArtworkProof.select(
        ArtworkProof.answer, ArtworkProof.answered_name, ArtworkProof.customer_comment
    ).first()
    assert proof == {
        "answer": "changes_requested",
        "answered_name": "Dana Reyes",
        "customer_comment": "Bigger logo,\nand\tred",
    }


async def test_a_huge_comment_is_refused_naming_its_length(staff, customer):
    s = await shop(staff)
    await upload(s, png())
    link = await last_link()
    refused = await _answer(customer, link, "changes", comment="x" * 200_000)
    assert refused.status_code == 422
    assert "Please keep it to 2,000 characters (this is 200,000)." in refused.text
    await _unanswered(s)


async def test_a_note_sent_as_a_file_is_no_note(staff):
    s = await shop(staff)
    page = await staff.get(f"/admin/orders/{s.order.number}/artwork")
    done = await staff.post(
        f"/admin/orders/{s.order.number}/proofs",
        data={"_csrf_token": csrf_of(page)},
        files={
            "file": ("front.png", png(), "image/png"),
            "note": ("note.txt", b"hi", "text/plain"),
        },
    )
    assert done.status_code == 303
    assert await ArtworkProof.select(ArtworkProof.note).output(as_list=True) == [""]


async def test_an_upload_whose_note_or_name_is_not_utf8_is_a_400_and_stores_nothing(staff):
    s = await shop(staff)
    for name, note in ((b"front.png", b"Left \xff\xfe chest"), (b"front\xff.png", b"")):
        refused = await upload_raw(s, png(), name, note=note)
        assert refused.status_code == 400, (name, note)
    assert await ArtworkProof.count() == 0
    assert await CustomerMessage.count() == 0
    assert await _artwork(s) == ("awaiting_proof", 0)
