"""What an admin address may hold, checked before any handler runs (guards of the admin's
router).

Numeric path ids: Litestar's `int` converter takes an integer of any size, which PostgreSQL's
integer columns (and, past 2**63, SQLite) refuse with an error instead of finding nothing.
Every such id, and a proof's version, is a positive integer within MAX_ID, so anything else is
a record that does not exist: 404, as any unknown id. (The API's handlers bound their ids
themselves, each with its resource's message.)

Any path parameter holding NUL, or a segment longer than a file name may be, is a 404 too
(a static file's name included).

Query parameters: a name or value holding NUL or another C0 control character but tab (text
no field stores, `models.errors.storable`) is refused with the admin's 422 page, whatever the
page: no filter, search or page number is made of such text, and PostgreSQL refuses NUL."""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection
from litestar.exceptions import ClientException, NotFoundException
from litestar.handlers import BaseRouteHandler
from litestar.status_codes import HTTP_422_UNPROCESSABLE_ENTITY

from models.errors import storable
from models.filters import MAX_ID

CONTROL_IN_QUERY = (
    "The address holds a control character (such as NUL) in its query; no search or filter "
    "takes one. Remove it and try again."
)


def ids_in_range(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """The admin router's guard: a path's `{…:int}` parameter outside 1..MAX_ID answers 404."""
    for value in connection.path_params.values():
        if type(value) is int and not 0 < value <= MAX_ID:
            raise NotFoundException()


NAME_MAX = 255  # bytes of one file name (Linux); no id, number, code or token is longer


def path_can_exist(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """The guard of the admin's router and of the API documentation's files: a path parameter
    holding NUL, or a segment longer than a file name may be, names nothing (PostgreSQL refuses
    NUL; a static file's lookup fails with ValueError or ENAMETOOLONG): 404, before any
    handler."""
    for value in connection.path_params.values():
        if type(value) is int:
            continue
        text = str(value)
        if "\x00" in text or any(
            len(part.encode("utf-8", "surrogatepass")) > NAME_MAX for part in text.split("/")
        ):
            raise NotFoundException()


def query_is_text(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """The admin router's guard: a query name or value that is not storable text answers 422."""
    for name, value in connection.query_params.multi_items():
        if not (storable(name) and storable(value)):
            raise ClientException(CONTROL_IN_QUERY, status_code=HTTP_422_UNPROCESSABLE_ENTITY)
