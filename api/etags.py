"""Entity tags on single-resource reads and writes (RFC 9110 §13): `If-None-Match` on a GET
answers 304 when the representation is unchanged; `If-Match` on a write (a PATCH, an order's
advance) refuses (412) a change made from an outdated read. The tag itself is the resource's
own (models/schemas)."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

from litestar import MediaType, Response
from litestar.datastructures import ResponseHeader
from litestar.params import HeaderParameter
from litestar.status_codes import HTTP_304_NOT_MODIFIED

IfMatchHeader = Annotated[
    str | None,
    HeaderParameter(
        name="If-Match",
        description="The `ETag` of the last read; the change is refused with 412 when the "
        "resource changed since (`*` matches any)",
    ),
]
IfNoneMatchHeader = Annotated[
    str | None,
    HeaderParameter(
        name="If-None-Match",
        description="The `ETag` of a copy held; 304 without a body when it is still current",
    ),
]
ETAG_RESPONSE_HEADER = ResponseHeader(
    name="ETag",
    description="Strong validator of this representation (for If-None-Match / If-Match)",
    documentation_only=True,
)


def of(body: bytes) -> str:
    """A strong validator of a representation: it changes whenever any byte of it does."""
    return '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"'


def read(body: bytes, etag: str, if_none_match: str | None) -> Response[Any]:
    """A single resource's GET answer: the JSON body with its tag, or 304 without a body when
    `If-None-Match` names the tag."""
    if if_none_match is not None and unchanged(if_none_match, etag):
        return Response(content=b"", status_code=HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
    return Response(content=body, media_type=MediaType.JSON, headers={"ETag": etag})


def _tags(header: str) -> set[str]:
    return {tag.strip() for tag in header.split(",") if tag.strip()}


def unchanged(if_none_match: str, etag: str) -> bool:
    """`If-None-Match` compares weakly: `W/"x"` matches `"x"`."""
    tags = {tag.removeprefix("W/") for tag in _tags(if_none_match)}
    return "*" in tags or etag in tags


def current(if_match: str, etag: str) -> bool:
    """`If-Match` compares strongly: a weak tag never matches (RFC 9110 §13.1.1)."""
    tags = _tags(if_match)
    return "*" in tags or etag in tags
