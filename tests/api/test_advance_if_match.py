"""`If-Match` on POST /api/v1/orders/{id}/advance, as on the order's PATCH: a move made from a
stale read of the order is refused with 412 and nothing moves; the check runs under the order's
lock, so of two moves from one read only one is made. A move answers the order's new `ETag`;
an `Idempotency-Key` replay answers the stored response whatever its `If-Match`."""

from __future__ import annotations

import asyncio

import httpx

from models.tables import IdempotencyKey, Invoice, Order, StageChange
from tests.api.item_helpers import get, patch
from tests.api.order_helpers import (
    Shop,
    advance,
    create,
    more_callers,
    order_body,
    shop,
    snapshot,
    subscription,
)

KEY = "Idempotency-Key"
STALE = (
    "The order changed since you read it (its ETag is no longer the one in If-Match); read it "
    "again and retry."
)


async def new_order(client: httpx.AsyncClient, s: Shop) -> int:
    response = await create(client, s.auth, order_body(s.customer.id))
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


async def etag(client: httpx.AsyncClient, s: Shop, order_id: int) -> str:
    response = await get(client, s.auth, order_id)
    assert response.status_code == 200, response.text
    return response.headers["etag"]


async def stage(order_id: int) -> str:
    row = await Order.select(Order.stage).where(Order.id == order_id).first()
    assert row is not None
    return str(row["stage"])


async def moved(
    client: httpx.AsyncClient,
    s: Shop,
    order_id: int,
    to_stage: str,
    if_match: str,
    auth: dict[str, str] | None = None,
    **headers: str,
) -> httpx.Response:
    return await advance(
        client, auth or s.auth, order_id, to_stage, headers={"If-Match": if_match, **headers}
    )


async def test_the_current_tag_moves_the_order_and_the_answer_carries_the_new_tag(client):
    s = await shop()
    order_id = await new_order(client, s)
    tag = await etag(client, s, order_id)

    response = await moved(client, s, order_id, "print_queue", tag)

    assert response.status_code == 200, response.text
    assert response.json()["stage"] == "print_queue"
    # The answer's tag is the order's tag now, as a GET gives it, good for the next move.
    new_tag = response.headers["etag"]
    assert new_tag != tag
    assert new_tag == await etag(client, s, order_id)
    chained = await moved(client, s, order_id, "in_production", new_tag)
    assert chained.status_code == 200, chained.text
    assert chained.headers["etag"] == await etag(client, s, order_id)


async def test_without_if_match_a_move_checks_nothing_and_still_answers_the_tag(client):
    s = await shop()
    order_id = await new_order(client, s)
    assert (await patch(client, s.auth, order_id, {"notes": "changed"})).status_code == 200

    response = await advance(client, s.auth, order_id, "print_queue")

    assert response.status_code == 200, response.text
    assert response.headers["etag"] == await etag(client, s, order_id)


async def test_a_tag_made_stale_by_an_edit_is_412_as_on_patch_and_nothing_moves(client):
    s = await shop()
    await subscription(s.ws)
    order_id = await new_order(client, s)
    stale = await etag(client, s, order_id)
    assert (await patch(client, s.auth, order_id, {"notes": "first"})).status_code == 200
    before = await snapshot()

    for target in ("print_queue", "dispatched"):
        refused = await moved(client, s, order_id, target, stale)
        assert refused.status_code == 412, refused.text
        assert refused.json()["message"] == STALE
        assert "etag" not in refused.headers

    assert await stage(order_id) == "artwork"
    assert await snapshot() == before  # no history, message, event, invoice or customer touch
    # The PATCH answers the same 412 to the same tag.
    edit = await patch(client, s.auth, order_id, {"notes": "second"}, **{"If-Match": stale})
    assert edit.status_code == 412
    assert edit.json() == refused.json()


async def test_a_tag_made_stale_by_a_move_is_412(client):
    s = await shop()
    order_id = await new_order(client, s)
    stale = await etag(client, s, order_id)
    assert (await advance(client, s.auth, order_id, "print_queue")).status_code == 200

    refused = await moved(client, s, order_id, "in_production", stale)

    assert refused.status_code == 412, refused.text
    assert await stage(order_id) == "print_queue"


async def test_the_tag_forms_patch_accepts_are_accepted_and_the_others_refused(client):
    s = await shop()
    order_id = await new_order(client, s)
    stale = await etag(client, s, order_id)
    assert (await patch(client, s.auth, order_id, {"notes": "x"})).status_code == 200
    cases: list[tuple[str, int]] = [
        ("W/{current}", 412),  # If-Match compares strongly: a weak tag never matches
        ("{stale}", 412),
        ("{stale}, W/{current}", 412),
        ('"something-else"', 412),
        ("{stale}, {current}", 200),  # a list naming the current tag
        ("*", 200),
    ]
    stages = iter(("print_queue", "in_production"))
    for form, status in cases:
        before = await stage(order_id)
        header = form.format(stale=stale, current=await etag(client, s, order_id))
        # PATCH answers the same to the same header (an empty edit changes nothing).
        edit = await patch(client, s.auth, order_id, {}, **{"If-Match": header})
        assert edit.status_code == status, (form, edit.text)
        target = "print_queue" if status == 412 else next(stages)
        response = await moved(client, s, order_id, target, header)
        assert response.status_code == status, (form, response.text)
        if status == 412:
            assert response.json() == edit.json()
            assert await stage(order_id) == before
    assert await stage(order_id) == "in_production"


async def test_the_tag_is_checked_before_the_moves_rules(client):
    """As on PATCH: a stale read is 412 even for a move the rules would refuse; with the
    current tag the rules still apply (422)."""
    s = await shop()
    order_id = await new_order(client, s)
    stale = await etag(client, s, order_id)
    assert (await patch(client, s.auth, order_id, {"notes": "x"})).status_code == 200

    assert (await moved(client, s, order_id, "artwork", stale)).status_code == 412
    same_stage = await moved(client, s, order_id, "artwork", await etag(client, s, order_id))
    assert same_stage.status_code == 422, same_stage.text


async def test_an_unknown_order_is_404_whatever_the_tag(client):
    s = await shop()
    other = await shop()
    theirs = await new_order(client, other)
    tag = await etag(client, other, theirs)
    for order_id in (theirs, 999_999):
        response = await moved(client, s, order_id, "print_queue", tag)
        assert response.status_code == 404, response.text
    assert await stage(theirs) == "artwork"


async def test_of_two_simultaneous_moves_from_one_read_one_is_made_and_one_is_412(client):
    s = await shop()
    other = (await more_callers(s.ws, 1))[0]
    for targets in (("print_queue", "in_production"), ("print_queue", "print_queue")):
        order_id = await new_order(client, s)
        tag = await etag(client, s, order_id)
        answers = await asyncio.gather(
            moved(client, s, order_id, targets[0], tag),
            moved(client, s, order_id, targets[1], tag, auth=other),
        )
        assert sorted(r.status_code for r in answers) == [200, 412], [r.text for r in answers]
        [won] = [r for r in answers if r.status_code == 200]
        assert await stage(order_id) == won.json()["stage"]
        history = await StageChange.count().where(StageChange.order == order_id)
        assert history == 2  # created, then the one move made
        assert won.headers["etag"] == await etag(client, s, order_id)


async def test_of_two_simultaneous_dispatches_from_one_read_one_invoice_is_issued(client):
    s = await shop()
    other = (await more_callers(s.ws, 1))[0]
    order_id = await new_order(client, s)
    for target in ("print_queue", "in_production", "qc_pack"):
        assert (await advance(client, s.auth, order_id, target)).status_code == 200
    tag = await etag(client, s, order_id)
    answers = await asyncio.gather(
        moved(client, s, order_id, "dispatched", tag, carrier="DPD"),
        moved(client, s, order_id, "dispatched", tag, auth=other, carrier="UPS"),
    )
    assert sorted(r.status_code for r in answers) == [200, 412], [r.text for r in answers]
    assert await Invoice.count().where(Invoice.order == order_id) == 1


async def advance_with(
    client: httpx.AsyncClient, s: Shop, order_id: int, to_stage: str, headers: dict[str, str]
) -> httpx.Response:
    return await advance(client, s.auth, order_id, to_stage, headers=headers)


async def test_a_replay_answers_the_stored_move_even_when_its_tag_is_stale_now(client):
    """As a PATCH replay: the key names the first request, whose answer is kept; the move is
    not made again and its tag not checked again."""
    s = await shop()
    order_id = await new_order(client, s)
    tag = await etag(client, s, order_id)
    headers = {"If-Match": tag, KEY: "move-1"}
    first = await advance_with(client, s, order_id, "print_queue", headers)
    assert first.status_code == 200, first.text
    assert "idempotent-replayed" not in first.headers
    assert (await patch(client, s.auth, order_id, {"notes": "later"})).status_code == 200
    before = await snapshot()

    replay = await advance_with(client, s, order_id, "print_queue", headers)

    assert replay.status_code == 200, replay.text
    assert replay.headers["idempotent-replayed"] == "true"
    assert replay.content == first.content
    assert replay.headers["etag"] == first.headers["etag"]  # the stored answer's own tag
    assert await snapshot() == before
    # Without the key, the same stale tag is refused.
    fresh = await advance(client, s.auth, order_id, "in_production", headers={"If-Match": tag})
    assert fresh.status_code == 412
    assert await IdempotencyKey.count() == 1


async def test_a_patch_replay_with_a_stale_tag_also_answers_the_stored_edit(client):
    s = await shop()
    order_id = await new_order(client, s)
    tag = await etag(client, s, order_id)
    headers = {"If-Match": tag, KEY: "edit-1"}
    first = await patch(client, s.auth, order_id, {"notes": "one"}, **headers)
    assert first.status_code == 200, first.text
    assert (await advance(client, s.auth, order_id, "print_queue")).status_code == 200

    replay = await patch(client, s.auth, order_id, {"notes": "one"}, **headers)

    assert replay.status_code == 200, replay.text
    assert replay.headers["idempotent-replayed"] == "true"
    assert replay.content == first.content


async def test_a_412_keeps_nothing_under_the_key_so_a_retry_with_a_fresh_tag_runs(client):
    s = await shop()
    order_id = await new_order(client, s)
    stale = await etag(client, s, order_id)
    assert (await patch(client, s.auth, order_id, {"notes": "x"})).status_code == 200

    refused = await advance_with(client, s, order_id, "print_queue", {"If-Match": stale, KEY: "k"})
    assert refused.status_code == 412, refused.text
    assert await IdempotencyKey.count() == 0

    current = await etag(client, s, order_id)
    retry = await advance_with(client, s, order_id, "print_queue", {"If-Match": current, KEY: "k"})
    assert retry.status_code == 200, retry.text
    assert "idempotent-replayed" not in retry.headers
    assert await stage(order_id) == "print_queue"


async def test_the_advance_documents_if_match_412_and_the_etag(client):
    openapi = (await client.get("/schema/openapi.json")).json()
    operation = openapi["paths"]["/api/v1/orders/{order_id}/advance"]["post"]
    names = {parameter["name"] for parameter in operation["parameters"]}
    assert "If-Match" in names
    assert "412" in operation["responses"]
    assert "ETag" in operation["responses"]["200"]["headers"]
