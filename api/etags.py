"""Entity tags on single-resource reads and writes (RFC 9110 §13): `If-None-Match` on a GET
answers 304 when the representation is unchanged; `If-Match` on a PATCH refuses (412) a change
made from an outdated read. The tag itself is the resource's own (models/schemas)."""

from __future__ import annotations

from typing import Annotated

from litestar.datastructures import ResponseHeader
from litestar.params import HeaderParameter

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


def _tags(header: str) -> set[str]:
    """The tags listed in an If-Match / If-None-Match value; weak ones compare by their
    opaque part (If-None-Match uses weak comparison)."""
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def matches(header: str, etag: str) -> bool:
    tags = _tags(header)
    return "*" in tags or etag in tags
