"""`GET /me`: the token's user, a connectivity check."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get

from api.auth import Principal
from api.openapi import COMMON_RESPONSES
from api.request_path import DIRECT
from api.schemas.users import User, user_body


async def me(principal: Principal) -> User:
    """The body of `GET /me`, also answered directly (api/request_path.py)."""
    return user_body(principal)


class MeController(Controller):
    path = "/me"
    tags = ["Users"]

    @get(summary="The authenticated user", responses=COMMON_RESPONSES, opt={DIRECT: me})
    async def get_me(self, request: Request[Principal, int, Any]) -> User:
        return await me(request.user)
