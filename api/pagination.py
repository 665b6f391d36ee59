"""The one pagination helper: fixed page sizes, the list envelope and its absolute links.
(The `page` parameter itself is read with the other query parameters: api/params.py.)"""

from __future__ import annotations

from typing import Any, TypeVar
from urllib.parse import urlencode

from litestar import Request

from api.links import request_url
from api.schemas.common import Links, Page

T = TypeVar("T")


def last_page(total: int, per_page: int) -> int:
    return max(1, -(-total // per_page))


def offset(page: int, per_page: int) -> int:
    return (page - 1) * per_page


def page_envelope(
    request: Request[Any, Any, Any], data: list[T], *, page: int, per_page: int, total: int
) -> Page[T]:
    others = [(k, v) for k, v in request.query_params.multi_items() if k != "page"]
    return page_of(request_url(request), others, data, page=page, per_page=per_page, total=total)


def page_of(
    base: str,
    others: list[tuple[str, str]],
    data: list[T],
    *,
    page: int,
    per_page: int,
    total: int,
) -> Page[T]:
    """The envelope of one page at `base`, its links keeping the `others` query parameters."""
    last = last_page(total, per_page)

    def link(number: int) -> str:
        return f"{base}?{urlencode([*others, ('page', str(number))])}"

    return Page(
        data=data,
        current_page=page,
        last_page=last,
        per_page=per_page,
        total=total,
        links=Links(
            first=link(1),
            last=link(last),
            prev=link(min(page - 1, last)) if page > 1 else None,
            next=link(page + 1) if page < last else None,
        ),
    )
