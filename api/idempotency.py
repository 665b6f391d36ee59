"""`Idempotency-Key` on the POST endpoints (docs/api.md §4.6): run once, replay the first response.

The handler hands over its work as an `operation` that makes the change and renders the
response; it runs in one transaction together with storing that response under the key.
Only a successful response is kept. A request that fails (4xx or 5xx) rolled its change back,
so its claim on the key is dropped and a retry with the same key runs afresh — for example
after the plan limit freed up or the artwork was approved. While another request holds the
key's lease the answer is 409 with `Retry-After: 1`: a running request is usually done within
a second, and one whose process died keeps answering 409 until its lease ends.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
from litestar import MediaType, Request, Response
from litestar.datastructures import ResponseHeader
from litestar.openapi.spec import OpenAPI, OpenAPIHeader, OpenAPIResponse, OpenAPIType, Schema
from litestar.params import HeaderParameter

from models import db, idempotency

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255

IdempotencyKeyHeader = Annotated[
    str | None,
    HeaderParameter(
        name=HEADER,
        max_length=MAX_KEY_LENGTH,
        description=(
            "Extension: up to 255 characters. The first successful response is kept 24 h per "
            "user and key; a retry with the same key and body gets it again with "
            "`Idempotent-Replayed: true`. The same key with a different body answers 422; "
            "while the first request is still running, 409 with `Retry-After: 1` (retry "
            "every second; a request usually finishes within one). A failed request keeps "
            "nothing; one whose process died is taken over when its 60 s lease ends, and "
            "until then retries keep answering 409."
        ),
    ),
]
REPLAYED_RESPONSE_HEADER = ResponseHeader(
    name=REPLAYED_HEADER,
    description="`true` when this is the stored response to an earlier request with the key",
    documentation_only=True,
)


@dataclass(frozen=True)
class Outcome:
    """A rendered success: status, exact body bytes and an optional Location."""

    status: int
    body: bytes
    location: str | None = None


def key_errors(value: str | None) -> list[str]:
    """Problems with the header's value (checked with the body, before any work)."""
    if value is None:
        return []
    if not value.strip():
        return ["The Idempotency-Key header must not be blank."]
    if len(value) > MAX_KEY_LENGTH:
        return [f"The Idempotency-Key header must not be greater than {MAX_KEY_LENGTH} characters."]
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in value):
        return ["The Idempotency-Key header must not contain control characters."]
    return []


def request_hash(method: str, path: str, body: bytes) -> str:
    """What "the same request" means: method, path and the body's JSON value, so key order
    and whitespace do not matter."""
    canonical = (
        msgspec.json.encode(msgspec.json.decode(body), order="sorted") if body.strip() else b""
    )
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), canonical):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def _response(outcome: Outcome, *, replayed: bool = False) -> Response[Any]:
    headers = {"Location": outcome.location} if outcome.location else {}
    if replayed:
        headers[REPLAYED_HEADER] = "true"
    return Response(
        content=outcome.body, status_code=outcome.status, media_type=MediaType.JSON, headers=headers
    )


async def respond(
    request: Request[Any, Any, Any],
    key: str | None,
    operation: Callable[[], Awaitable[Outcome]],
    *,
    body: bytes | None = None,
) -> Response[Any]:
    """Run `operation` in one transaction (`db.atomic`: run again whole after a deadlock), at
    most once per user and key. Every refusal is raised, for the app's exception handlers:
    `idempotency.KeyBusy` while another request holds the key (409 with Retry-After).

    "The same request" is the same method, path and JSON body; a body that is not JSON (a
    multipart upload, whose boundary changes with every send) gives `body`: a JSON value
    standing for what it says (its fields, a file by its digest)."""
    if key is None:
        return _response(await db.atomic(operation))
    sent = await request.body() if body is None else body
    fingerprint = request_hash(request.method, request.url.path, sent)
    claimed = await idempotency.claim(request.user.user_id, key, fingerprint)
    if isinstance(claimed, idempotency.StoredResponse):
        stored = Outcome(claimed.status, claimed.body.encode(), claimed.location)
        return _response(stored, replayed=True)

    async def operation_kept() -> Outcome:
        # The claim stays ours across runs: only the change and the stored response retry.
        outcome = await operation()
        await idempotency.complete(
            claimed, status=outcome.status, body=outcome.body.decode(), location=outcome.location
        )
        return outcome

    try:
        outcome = await db.atomic(operation_kept)
    except BaseException:
        # Best effort: should this fail too, the claim is taken over when its lease ends.
        with contextlib.suppress(Exception):
            await idempotency.release(claimed)
        raise
    return _response(outcome)


def document_retry_after(schema: OpenAPI) -> None:
    """`Retry-After` on every 409 of the OpenAPI schema (only keyed writes answer 409)."""
    for path_item in (schema.paths or {}).values():
        for operation in (path_item.post, path_item.patch):
            response = (operation.responses or {}).get("409") if operation else None
            if not isinstance(response, OpenAPIResponse):
                continue
            response.headers = {
                **(response.headers or {}),
                "Retry-After": OpenAPIHeader(
                    schema=Schema(type=OpenAPIType.INTEGER, enum=[1]),
                    required=True,
                    description="Always 1: retry in a second. The running request holding "
                    "the Idempotency-Key is usually done by then; one whose process died keeps "
                    "the key until its lease ends (60 s by default), and retries answer 409 "
                    "until then",
                ),
            }
