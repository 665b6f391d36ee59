"""A create form sent twice makes one record.

Each create form carries a one-time token (the hidden field `once`, made when the form is
first shown and kept while it is shown again with its errors). The first submit that saves
with a token keeps where it went; a second submit of the same form — a double click, a
reload of the POST, Back and Save again — opens that record instead, with "Already created:
ORD-2026-0042." (an invoice's payment form: "Already recorded: …"). The tokens are the staff
member's idempotency keys (models/idempotency.py, as the API's `Idempotency-Key`), so
simultaneous submits are decided by one unique index and the token is forgotten after 24 h; a
submit refused for its fields frees its token, so the corrected form saves.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from litestar import Request
from litestar.response import Redirect

from api.admin import flash
from models import db, idempotency

FIELD = "once"
_WAIT_SECONDS = 0.1  # between looks at a submit still being saved
_WAITS = 100  # 10 s: then the form's answer says to look for the record


@dataclass(frozen=True)
class Created:
    """Where a create form's record is, and what people call it ("ORD-2026-0042").
    `shown_once`: what the first answer's page shows once (a new token's secret, passed on
    by the flash); a second submit goes to `kept_url` instead when that page is `url`."""

    url: str
    name: str
    shown_once: dict[str, Any] = field(default_factory=dict)
    kept_url: str | None = None


def new_token() -> str:
    return secrets.token_urlsafe(18)


def token_of(fields: dict[str, Any]) -> str:
    """The form's token as sent, or a new one (a form from before tokens, or altered)."""
    sent = fields.get(FIELD)
    if isinstance(sent, str) and 16 <= len(sent) <= 64 and sent.isascii() and sent.isprintable():
        return sent
    return new_token()


async def create_once(
    request: Request[Any, Any, Any],
    fields: dict[str, Any],
    create: Callable[[], Awaitable[Created]],
    *,
    created: Callable[[Created], str],
    already: str = "Already created",
) -> Redirect:
    """Run `create` once per form token and redirect to its record with the flash
    `created(record)`; a token already used redirects to its record with `already` and its
    name ("Already created: ORD-2026-0042.").
    Whatever `create` raises (a refusal of the form's fields) frees the token and goes up."""
    key = f"{FIELD}:{token_of(fields)}"
    form = hashlib.sha256(request.url.path.encode()).hexdigest()
    for _ in range(_WAITS):
        try:
            claimed = await idempotency.claim(request.user.user_id, key, form)
            break
        except idempotency.KeyBusy:  # the first submit is still saving: wait for it
            await asyncio.sleep(_WAIT_SECONDS)
    else:
        raise idempotency.KeyBusy("This form is still being saved; look for it in a moment.")
    if isinstance(claimed, idempotency.StoredResponse):
        done = Created(claimed.location or request.url.path, claimed.body)
        return await flash.redirect(request, done.url, f"{already}: {done.name}.")

    async def create_and_keep() -> Created:
        record = await create()
        kept = record.kept_url or record.url
        await idempotency.complete(claimed, status=303, body=record.name, location=kept)
        return record

    try:
        record = await db.atomic(create_and_keep)
    except BaseException:
        await idempotency.release(claimed)
        raise
    return await flash.redirect(request, record.url, created(record), **record.shown_once)
