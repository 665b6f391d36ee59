"""The admin's numeric path ids are bounded before any handler runs: Litestar's `int` converter
takes an integer of any size, which PostgreSQL's integer columns (and, past 2**63, SQLite)
refuse with an error instead of finding nothing. Every such id, and a proof's version, is a
positive integer within MAX_ID, so anything else is a record that does not exist: 404, as any
unknown id. (The API's handlers bound their ids themselves, each with its resource's message.)"""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection
from litestar.exceptions import NotFoundException
from litestar.handlers import BaseRouteHandler

from models.filters import MAX_ID


def ids_in_range(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """The admin router's guard: a path's `{…:int}` parameter outside 1..MAX_ID answers 404."""
    for value in connection.path_params.values():
        if type(value) is int and not 0 < value <= MAX_ID:
            raise NotFoundException()
