"""The authenticated user (`GET /me`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.schemas.common import Schema

if TYPE_CHECKING:
    from api.auth import Principal


class User(Schema):
    id: int
    name: str
    email: str


def user_body(principal: Principal) -> User:
    return User(id=principal.user_id, name=principal.name, email=principal.email)
